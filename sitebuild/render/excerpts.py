"""Kit excerpts shown as Python: the output of a bash block that prints kit source with `sed -n`.

Pages print kit code with `sed -n '/start/,/end/p' kit/evidencedesk/....py`, so an excerpt cannot drift
from the kit. Such a block's output is Python source, so render.py shows it as Python (highlighted,
never wrapped: a long line scrolls), titled with the file it comes from, with the line numbers the
lines have in that file; where the excerpt skips lines of the file, the line after the gap carries a
marker saying how many lines are not shown. All of it is found from the block's command and the kit's
files at build time: a page needs no option for it, and the output's text (approved in data/) is
exactly what sed printed.

The lines are placed in the file by alignment, not by re-running sed: the output's lines must appear in
the files, in order (a block with several `sed -n` lines prints its files one after another); among the
placements, the one with the fewest gaps wins (on a tie, the one that places lines earliest). An output that cannot be
placed that way (a line sed printed twice, a file that changed since) is shown as Python without numbers.

Left out: excerpts printed another way (cat, grep, python): they stay plain output boxes.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

SED_LINE = re.compile(r"^sed -n (?:'[^']*'|\"[^\"]*\") (\S+\.py)$")


@dataclass(frozen=True)
class Excerpt:
    """The part of an output that comes from one file: its path as the command names it, and its lines.

    Attributes:
        path: e.g. "kit/evidencedesk/llm.py".
        lines: (line number in the file, text) for every output line from it, in order; number 0 when the
            lines could not be placed in the file (see the module docstring).
    """

    path: str
    lines: tuple[tuple[int, str], ...]

    @property
    def numbered(self) -> bool:
        """Whether every line carries its number in the file."""
        return all(number for number, _ in self.lines)

    def gaps(self) -> dict[int, int]:
        """{index of a line in `lines`: how many lines of the file were skipped just before it}.

        Example: Excerpt("a.py", ((3, "x"), (4, "y"), (9, "z"))).gaps() == {2: 4}
        """
        if not self.numbered:
            return {}
        return {i: self.lines[i][0] - self.lines[i - 1][0] - 1 for i in range(1, len(self.lines))
                if self.lines[i][0] - self.lines[i - 1][0] > 1}


def excerpt_paths(code: str) -> list[str] | None:
    """The kit files a bash block prints with `sed -n`, one per line of its code; None when the block does
    anything else.

    Example: excerpt_paths("sed -n '/^def a/,/^$/p' kit/evidencedesk/llm.py") == ["kit/evidencedesk/llm.py"]
    """
    lines = [line.strip() for line in code.strip().splitlines()]
    paths = []
    for line in lines:
        match = SED_LINE.match(line)
        if not match:
            return None
        try:
            words = shlex.split(line)
        except ValueError:
            return None
        if len(words) != 4 or not words[3].startswith("kit/"):
            return None
        paths.append(words[3])
    return paths or None


def _align(output: list[str], files: list[list[str]]) -> list[tuple[int, int]] | None:
    """Place each output line at (file index, line number from 1), in order, with the fewest gaps; None if the
    lines do not appear in the files in order."""
    places = [(f, n) for f, lines in enumerate(files) for n in range(1, len(lines) + 1)]
    where: dict[str, list[int]] = {}
    for j, (f, n) in enumerate(places):
        where.setdefault(files[f][n - 1], []).append(j)
    previous: dict[int, tuple[int, int]] = {}  # position of line i-1 -> (gaps so far, position of line i-2)
    steps: list[dict[int, tuple[int, int]]] = []
    for i, line in enumerate(output):
        candidates = where.get(line, [])
        if i == 0:
            current = {j: (0, -1) for j in candidates}
        else:
            ordered = sorted(previous)
            prefix, best = [], None  # prefix[k]: the cheapest of ordered[:k + 1], first on ties
            for j in ordered:
                if best is None or previous[j][0] < previous[best][0]:
                    best = j
                prefix.append(best)
            current, k = {}, -1
            for j in candidates:
                while k + 1 < len(ordered) and ordered[k + 1] < j - 1:
                    k += 1
                options = []
                # on a tie, the earlier place for the line before: a range like /^def f/,/^$/ ends at the first
                # blank line after f, so a blank line belongs to the run above it, not the one after the gap
                if j - 1 in previous and places[j - 1][0] == places[j][0]:
                    options.append((previous[j - 1][0], 1, j - 1))
                if k >= 0:
                    options.append((previous[prefix[k]][0] + 1, 0, prefix[k]))
                if options:
                    gaps, _, link = min(options)
                    current[j] = (gaps, link)
        if not current:
            return None
        steps.append(current)
        previous = current
    if not steps:
        return None
    at = min(steps[-1], key=lambda j: (steps[-1][j][0], j))
    found = []
    for step in reversed(steps):
        found.append(places[at])
        at = step[at][1]
    return found[::-1]


def kit_excerpts(code: str, output: str, root: Path, workdir: str = "") -> list[Excerpt] | None:
    """The excerpts a bash block's output holds, one per run of lines from one file; None when the block is
    not a kit excerpt (see excerpt_paths) or a file cannot be read.

    Args:
        code: the block's code; output: what it printed (cleaned); root: the site root; workdir: its option.

    Example: kit_excerpts("sed -n '1,2p' kit/evidencedesk/llm.py", out, ROOT)[0].lines[0][0] == 1
    """
    paths = excerpt_paths(code)
    if paths is None or not output.strip():
        return None
    try:
        files = [(root / workdir / path).read_text(encoding="utf-8").split("\n") for path in paths]
    except (OSError, UnicodeDecodeError):
        return None
    lines = output.split("\n")
    while lines and lines[-1] == "":
        lines.pop()
    placed = _align(lines, files)
    if placed is None:
        return [Excerpt(" · ".join(dict.fromkeys(paths)), tuple((0, line) for line in lines))]
    excerpts: list[Excerpt] = []
    current, found = -1, []
    for (file, number), line in zip(placed, lines, strict=True):
        if file != current and found:
            excerpts.append(Excerpt(paths[current], tuple(found)))
            found = []
        current = file
        found.append((number, line))
    excerpts.append(Excerpt(paths[current], tuple(found)))
    return excerpts
