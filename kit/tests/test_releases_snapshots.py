"""Aliases move on their dates, snapshots do not; a shut-down snapshot is refused; the pin check finds each problem."""

import datetime

import pytest

from evidencedesk.llm import BadRequest, LLMRequest, Message
from evidencedesk.releases.candidates import catalogue
from evidencedesk.releases.snapshots import (ALIAS_IN_CONFIG, DAY_S, DRIFT, SHUT_DOWN, SHUTDOWN_SOON, START,
                                             AliasingProvider, Catalogue, check_pin, today)
from evidencedesk.usage import ManualClock

D = datetime.date


def ask(model):
    return LLMRequest(model, [Message("user", "<goal source=\"user-input\">\nCheck T-701.\n</goal>")], 200)


def test_an_alias_moves_on_its_date_and_a_snapshot_never_does():
    cat = catalogue()
    assert cat.resolve("desk-large", D(2026, 11, 19)) == "desk-large-2026-09-14"
    assert cat.resolve("desk-large", D(2026, 11, 20)) == "desk-large-2026-11-20"
    assert cat.resolve("desk-large-2026-09-14", D(2027, 1, 1)) == "desk-large-2026-09-14"
    with pytest.raises(BadRequest, match="does not exist"):
        cat.resolve("desk-huge", START)


def test_the_provider_names_the_snapshot_it_used_and_refuses_one_past_shutdown():
    clock = ManualClock()
    provider = AliasingProvider(catalogue(), clock)
    assert provider.complete(ask("desk-large")).model == "desk-large-2026-09-14"
    clock.advance(19 * DAY_S)
    assert today(clock) == D(2026, 11, 20) and provider.complete(ask("desk-large")).model == "desk-large-2026-11-20"
    assert provider.complete(ask("desk-large-2026-09-14")).model == "desk-large-2026-09-14"
    clock.advance((D(2027, 3, 14) - D(2026, 11, 20)).days * DAY_S)
    with pytest.raises(BadRequest, match="shut down on 2027-03-14"):
        provider.complete(ask("desk-large-2026-09-14"))
    assert provider.served == ["desk-large-2026-09-14", "desk-large-2026-11-20", "desk-large-2026-09-14"]


def test_the_pin_check_finds_alias_drift_and_shutdown():
    cat = catalogue()
    assert check_pin("desk-large-2026-09-14", "desk-large-2026-09-14", cat, START) == []
    assert [f.code for f in check_pin("desk-large", "desk-large-2026-11-20", cat, D(2026, 11, 20))] == [ALIAS_IN_CONFIG]
    assert [f.code for f in check_pin("desk-large-2026-09-14", "desk-large-2026-11-20", cat, START)] == [DRIFT]
    soon = check_pin("desk-large-2026-09-14", None, cat, D(2026, 12, 14))
    assert [f.code for f in soon] == [SHUTDOWN_SOON] and "in 90 days" in soon[0].detail
    assert check_pin("desk-large-2026-09-14", None, cat, D(2026, 12, 13)) == []
    assert [f.code for f in check_pin("desk-small-2026-03-02", None, cat, D(2027, 1, 15))] == [SHUT_DOWN]


def test_a_bad_catalogue_is_refused():
    cat = catalogue()
    with pytest.raises(ValueError, match="unknown snapshots"):
        Catalogue(cat.snapshots, {"x": ((START, "nope"),)})
    with pytest.raises(ValueError, match="date order"):
        Catalogue(cat.snapshots, {"x": ((D(2026, 12, 1), "desk-large-2026-09-14"), (START, "desk-large-2026-11-20"))})
    with pytest.raises(ValueError, match="both an alias"):
        Catalogue(cat.snapshots, {"desk-large-2026-09-14": ((START, "desk-large-2026-09-14"),)})
