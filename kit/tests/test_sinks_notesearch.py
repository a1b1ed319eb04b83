"""Tests of evidencedesk.sinks.notesearch: the harmless program the shell examples run."""

from __future__ import annotations

import pytest

from evidencedesk.sinks.notesearch import main, parser, search
from evidencedesk.sinks.shell import make_notes


def test_search_reads_one_user_unless_told_otherwise(tmp_path) -> None:
    make_notes(tmp_path)
    assert search(tmp_path, "farida", "TAP") == ["farida/t-1101.txt: Kitchen tap drips; plumber booked for Monday."]
    assert len(search(tmp_path, "farida", "")) == 2 and len(search(tmp_path, "farida", "", all_users=True)) == 4
    assert search(tmp_path, "nobody", "") == []


def test_a_leading_dash_is_an_option_unless_double_dash_came_first() -> None:
    assert parser().parse_args(["--user", "farida", "--all-users"]).all_users is True
    after = parser().parse_args(["--user", "farida", "--", "--all-users"])
    assert after.all_users is False and after.word == "--all-users"


def test_main_prints_matches(tmp_path, monkeypatch, capsys) -> None:
    make_notes(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert main(["--user", "jonas", "refund"]) == 0
    assert capsys.readouterr().out.startswith("jonas/t-1102.txt: Parcel")
    with pytest.raises(SystemExit):
        main(["tap"])  # --user is required
