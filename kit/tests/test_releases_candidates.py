"""The new snapshot differs from the sensible fake only on exchange questions; live traffic holds them."""

from evidencedesk.releases.candidates import CANDIDATES, RELEASE_CONFIGS, SERVED, V1, catalogue, live_set
from evidencedesk.trajectories.cases import golden_set
from evidencedesk.trajectories.runner import run_set


def test_on_the_golden_set_the_snapshot_gives_the_baselines_results():
    golden = golden_set()
    snapshot, baseline = (run_set(golden, RELEASE_CONFIGS[n]) for n in ("snapshot-1120", "baseline"))
    assert snapshot.results == baseline.results


def test_on_live_traffic_it_fails_exactly_the_exchange_questions():
    live = live_set()
    assert len(live.cases) == 34 and sum("exchange" in c.tags for c in live.cases) == 6
    base, snap = (run_set(live, RELEASE_CONFIGS[n]) for n in ("baseline", "snapshot-1120"))
    lost = [b.case_id for b, s in zip(base.results, snap.results) if b.grade.passed and not s.grade.passed]
    assert lost == ["x01", "x02", "x03", "x04", "x05", "x06"]
    assert all(r.grade.passed for r in base.results if r.case_id.startswith("x"))


def test_each_candidate_is_a_distinct_version_and_pins_a_known_model():
    ids = {c.version.id for c in CANDIDATES.values()} | {SERVED.version.id}
    assert len(ids) == len(CANDIDATES) + 1
    cat = catalogue()
    assert all(c.version.model in cat.snapshots or cat.is_alias(c.version.model) for c in CANDIDATES.values())
    assert V1.model == "desk-large-2026-09-14" and not cat.is_alias(V1.model)
