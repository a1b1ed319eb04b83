"""notesearch: a small, harmless command-line program that the shell examples run.

It searches the notes of one user for a word: the .txt files under notes/<user>/ in the folder it runs in,
and prints each matching line as "user/file: line" (case-insensitive; no word matches every line). Its
option --all-users searches every user's notes: the kind of option an argument from a model must never
be able to switch on. It reads only that folder, writes nothing, and parses its arguments with argparse,
which reads an argument that starts with "-" as an option unless "--" came before it, as most programs do.
Run it as: python -m evidencedesk.sinks.notesearch --user farida -- tap
Left out: everything a real search tool has (indexes, patterns, encodings other than UTF-8).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

NOTES = "notes"  # the folder, under the working folder, with one subfolder per user


def parser() -> argparse.ArgumentParser:
    """The program's argument parser. Example: parser().parse_args(["--user", "farida", "tap"]).word -> "tap" """
    p = argparse.ArgumentParser(prog="notesearch", description="Search a user's notes for a word.")
    p.add_argument("--user", required=True, help="whose notes to search")
    p.add_argument("--all-users", action="store_true", help="search every user's notes (staff only)")
    p.add_argument("word", nargs="?", default="", help="the word to find; none matches every line")
    return p


def search(root: Path, user: str, word: str, all_users: bool = False) -> list[str]:
    """Matching lines as "user/file: line", in order of user, file and line.

    Args: root (Path, the folder holding notes/); user (str); word (str); all_users (bool).
    Returns: list of str ([] when nothing matches or the user has no notes).
    Example: search(Path("."), "farida", "tap")  # ["farida/t-1101.txt: ..."]
    """
    folders = sorted(p for p in (root / NOTES).iterdir() if p.is_dir()) if all_users else [root / NOTES / user]
    found = []
    for folder in folders:
        for path in sorted(folder.glob("*.txt")) if folder.is_dir() else []:
            for line in path.read_text(encoding="utf-8").splitlines():
                if word.lower() in line.lower():
                    found.append(f"{folder.name}/{path.name}: {line}")
    return found


def main(argv: list[str] | None = None) -> int:
    """Run the program on argv (default sys.argv[1:]), printing the matches; returns 0 (argparse exits 2
    on bad arguments). Example: main(["--user", "farida", "tap"]) -> 0"""
    args = parser().parse_args(argv)
    for line in search(Path.cwd(), args.user, args.word, args.all_users):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
