"""Each stage can stop a release, in order; only the canary moves a label, and it moves it back on a trip."""

import pytest

from evidencedesk.releases.candidates import CANDIDATES, SERVED
from evidencedesk.releases.pipeline import STOPPED_AT_GATE, STOPPED_AT_PIN, release
from evidencedesk.releases.prompts import PromptRegistry
from evidencedesk.usage import ManualClock


def run(name):
    reg = PromptRegistry()
    return release(CANDIDATES[name], SERVED, reg, ManualClock()), reg


def test_an_alias_stops_at_the_pin_before_anything_runs():
    report, reg = run("alias")
    assert report.outcome == STOPPED_AT_PIN and report.gate is None and reg.history("canary") == ()


def test_the_gate_is_page_10s_and_undecided_stops_too():
    for name, outcome in (("terse", "FAIL"), ("warmer", "UNDECIDED")):
        report, reg = run(name)
        assert (report.outcome, report.gate.outcome, report.shadow) == (STOPPED_AT_GATE, outcome, None)
        assert reg.current("production") == SERVED.version.id


def test_the_new_snapshot_passes_gate_and_shadow_and_the_canary_rolls_it_back():
    report, reg = run("snapshot-1120")
    assert (report.gate.outcome, report.shadow.verdict()[0], report.outcome) == ("PASS", True, "ROLLED BACK")
    assert reg.current("production") == reg.current("canary") == SERVED.version.id
    assert reg.history("canary") == (SERVED.version.id, report.version_id, SERVED.version.id)


def test_a_good_candidate_is_promoted():
    report, reg = run("thorough")
    assert report.outcome == "PROMOTED" and reg.current("production") == report.version_id


def test_a_release_refuses_a_registry_in_another_state():
    reg = PromptRegistry()
    reg.point("production", reg.add(CANDIDATES["terse"].version))
    with pytest.raises(ValueError, match="not the served version"):
        release(CANDIDATES["thorough"], SERVED, reg, ManualClock())
    with pytest.raises(ValueError, match="nothing to release"):
        release(SERVED, SERVED, PromptRegistry(), ManualClock())
