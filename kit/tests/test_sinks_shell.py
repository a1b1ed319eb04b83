"""Tests of evidencedesk.sinks.shell: shell=True runs a second command, quoting misses options, the list does not."""

from __future__ import annotations

import pytest

from evidencedesk.sinks.shell import (
    ArgumentRefused,
    make_notes,
    search_notes,
    search_notes_quoted,
    search_notes_unsafe,
)


@pytest.fixture
def folder(tmp_path):
    return make_notes(tmp_path)


def test_a_shell_runs_the_second_command(folder) -> None:
    assert search_notes_unsafe(folder, "farida", "tap; echo INJECTED").splitlines()[-1] == "INJECTED"


def test_quoting_stops_the_second_command_but_not_the_option(folder) -> None:
    assert "INJECTED" not in search_notes_quoted(folder, "farida", "tap; echo INJECTED")
    assert "jonas/" in search_notes_quoted(folder, "farida", "--all-users")


def test_the_list_with_a_checked_word_reads_only_the_users_notes(folder) -> None:
    assert search_notes(folder, "farida", "tap").startswith("farida/t-1101.txt: Kitchen tap")
    assert search_notes(folder, "farida", "refund") == ""  # jonas's note is never searched


@pytest.mark.parametrize("word", ["--all-users", "-r", "tap; echo x", "", "a" * 41, "$(id)", "tap\nx"])
def test_words_that_are_not_plain_are_refused(folder, word: str) -> None:
    with pytest.raises(ArgumentRefused, match="expected 1-40 letters"):
        search_notes(folder, "farida", word)


def test_make_notes_needs_a_folder(tmp_path) -> None:
    with pytest.raises(FileNotFoundError):
        make_notes(tmp_path / "missing")
