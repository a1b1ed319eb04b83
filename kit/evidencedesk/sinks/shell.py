"""Model output on a command line: an argument list with subprocess, never shell=True, and what quoting misses.

search_notes_unsafe() builds one command string and runs it with shell=True, so a word holding "; echo ..."
runs a second command: the wrong way, kept to show the attack. search_notes_quoted() quotes the word with
shlex.quote, which stops that, but not argument injection: "--all-users" has no character a shell treats
specially, so it reaches the program unchanged and the program reads it as its own option. search_notes()
does three things: it checks the word against WORD (a letter or digit first, so never "-"), passes an
argument list with shell=False (no shell parses anything), and puts "--" before the word, which ends the
options of most programs (argparse's, getopt's). The program run is notesearch.py, which is harmless.
Left out: Windows, where a list is joined into one command line and each program parses it its own way,
and sandboxing (a container, a user with no rights): the layer for programs that must run model-chosen code.
Sources (read 2026-12-03): https://docs.python.org/3/library/subprocess.html#security-considerations,
https://docs.python.org/3/library/shlex.html#shlex.quote, https://cwe.mitre.org/data/definitions/88.html.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9 '-]{0,39}")  # one to forty characters, never a leading "-"
PROGRAM = (sys.executable, "-m", "evidencedesk.sinks.notesearch")  # the harmless program of notesearch.py
TIMEOUT_S = 20  # seconds before a run is stopped (subprocess.TimeoutExpired)
NOTES = {  # (user, file) -> text: invented notes, one line each
    ("farida", "t-1101.txt"): "Kitchen tap drips; plumber booked for Monday.",
    ("farida", "t-1103.txt"): "Card reader replaced under warranty.",
    ("jonas", "t-1102.txt"): "Parcel re-sent; customer asked for a refund.",
    ("jonas", "t-1104.txt"): "Invoice reissued with VAT number GB000000000.",
}


class ArgumentRefused(ValueError):
    """A word from the model is not a plain search word; the message says what was expected."""


def make_notes(folder: Path | str) -> Path:
    """Write NOTES under folder/notes/<user>/ and return folder. Raises: FileNotFoundError if folder does not
    exist. Example: make_notes(tempfile.mkdtemp())"""
    folder = Path(folder)
    if not folder.is_dir():
        raise FileNotFoundError(f"no folder {folder.name!r}")
    for (user, name), text in NOTES.items():
        (folder / "notes" / user).mkdir(parents=True, exist_ok=True)
        (folder / "notes" / user / name).write_text(text + "\n", encoding="utf-8")
    return folder


def _run(command: list[str] | str, folder: Path | str, shell: bool) -> str:
    done = subprocess.run(command, cwd=folder, shell=shell, capture_output=True, text=True, timeout=TIMEOUT_S,
                          check=False)
    return (done.stdout + done.stderr).rstrip("\n")


def search_notes_unsafe(folder: Path | str, user: str, word: str) -> str:
    """The wrong way, kept to show the attack: one string, run by a shell (shell=True).

    Returns: what the command printed (stdout then stderr). Example: search_notes_unsafe(f, "farida", "tap; echo hi")
    """
    command = " ".join(shlex.quote(part) for part in PROGRAM) + f" --user {user} {word}"
    return _run(command, folder, shell=True)


def search_notes_quoted(folder: Path | str, user: str, word: str) -> str:
    """Still a shell, with the word quoted by shlex.quote: a second command is stopped, an option is not.

    Returns: what the command printed. Example: search_notes_quoted(f, "farida", "--all-users")  # every user
    """
    command = " ".join(shlex.quote(part) for part in (*PROGRAM, "--user", user, word))
    return _run(command, folder, shell=True)


def search_notes(folder: Path | str, user: str, word: str) -> str:
    """Search user's notes for a word from the model: checked, passed in a list after "--", no shell.

    Args: folder (str or Path, holding notes/); user (str, from the session, never from the model); word (str).
    Returns: what the program printed ("" when nothing matched).
    Raises: ArgumentRefused when word does not match WORD; subprocess.TimeoutExpired after TIMEOUT_S.
    Example: search_notes(f, "farida", "tap") -> "farida/t-1101.txt: Kitchen tap drips; ..."
    """
    if not isinstance(word, str) or not WORD.fullmatch(word):
        raise ArgumentRefused(f"word {str(word)[:40]!r}: expected 1-40 letters, digits, spaces, ' or -, "
                              "starting with a letter or digit")
    return _run([*PROGRAM, "--user", user, "--", word], folder, shell=False)
