"""Tests of evidencedesk.sinks.paths: a file name from the model stays inside its folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from evidencedesk.sinks.paths import PathRefused, attachment_path, attachment_path_unsafe, make_attachments


@pytest.fixture
def root(tmp_path):
    return make_attachments(tmp_path)


def test_joining_trusts_dot_dot_and_absolute_names(root) -> None:
    base = root / "farida"
    assert attachment_path_unsafe(base, "../jonas/contract.txt").resolve() == (root / "jonas/contract.txt").resolve()
    assert attachment_path_unsafe(base, "/etc/hostname") == Path("/etc/hostname")


@pytest.mark.parametrize("name", ["../jonas/contract.txt", "/etc/hostname", "shortcut.txt", "..", "a/../../x",
                                  "", "x\x00y"])
def test_names_that_leave_the_folder_are_refused(root, name: str) -> None:
    with pytest.raises(PathRefused):
        attachment_path(root / "farida", name)


def test_names_inside_the_folder_resolve(root) -> None:
    base = (root / "farida").resolve()
    assert attachment_path(root / "farida", "receipt-t-1101.txt") == base / "receipt-t-1101.txt"
    assert attachment_path(root / "farida", "sub/../receipt-t-1101.txt") == base / "receipt-t-1101.txt"
    assert attachment_path(root / "farida", "new.txt") == base / "new.txt"  # need not exist yet


def test_a_missing_base_is_an_error(root) -> None:
    with pytest.raises(FileNotFoundError):
        attachment_path(root / "nobody", "x.txt")
    with pytest.raises(PathRefused):
        attachment_path(root / "farida", None)  # type: ignore[arg-type]
