"""Shards of a check: the nav's pages split over N machines, balanced by the pages' recorded durations.

- parse_shard("2/3") reads `check --shard I/N` (1-based); bad input raises ShardError, which check turns into
  exit 2 naming the input and what was expected.
- read_durations / write_durations: the committed file of page durations (DURATIONS_FILE, data/durations.json):
  each page of the nav (its src_uri) to the wall-clock seconds its blocks took in a check, rounded to whole
  seconds (at least 1), a record kept while a new measure is within 25% (or 1 s) of it, so that the file changes
  only when a page's cost really does. Only
  `python -m sitebuild check --record-durations` writes it; a plain build or check never does.
- partition(pages, durations, n): a deterministic greedy longest-processing-time split: pages sorted by
  duration, longest first, then by path; each goes to the least-loaded shard, ties to the lowest index. A page
  with no record weighs the median of the recorded pages (1 s when nothing is recorded).

Every page of the nav is in exactly one shard, whatever the durations say, and the same inputs always give the
same shards, so that N machines that each compute their own shard agree without talking to each other.
"""

from __future__ import annotations

import json
import re
import statistics
from pathlib import Path

DURATIONS_FILE = Path("data") / "durations.json"  # relative to the site root (mkdocs.yml's folder)
DEFAULT_SECONDS = 1  # what a page weighs when no page has a record
NOISE = 0.25  # a new measure within this share of a page's record (or 1 s) keeps the record: timing noise
_SHARD = re.compile(r"\s*(\d+)\s*/\s*(\d+)\s*")


class ShardError(ValueError):
    """A --shard value that is not I/N with 1 <= I <= N, or a durations file that cannot be read."""


def parse_shard(text: str) -> tuple[int, int]:
    """Read a --shard value.

    Args:
        text: "I/N", e.g. "2/3": shard I (1-based) of N.

    Returns:
        (I, N).

    Raises:
        ShardError: text is not two whole numbers separated by "/", or not 1 <= I <= N; the message names the
            input and what was expected.

    Example: parse_shard("2/3") == (2, 3)
    """
    match = _SHARD.fullmatch(text)
    expected = "expected I/N with whole numbers 1 <= I <= N, e.g. --shard 1/3"
    if not match:
        raise ShardError(f"--shard {text!r}: not of the form I/N; {expected}")
    index, count = int(match.group(1)), int(match.group(2))
    if count < 1 or not 1 <= index <= count:
        raise ShardError(f"--shard {text!r}: shard {index} of {count} does not exist; {expected}")
    return index, count


def read_durations(path: Path) -> dict[str, int]:
    """The recorded durations (page src_uri -> whole seconds); {} when the file does not exist.

    Args:
        path: the durations file (the site root / DURATIONS_FILE).

    Returns:
        The mapping as recorded.

    Raises:
        ShardError: the file exists but is not a JSON object of page -> whole non-negative seconds.

    Example: read_durations(Path("data/durations.json"))["index.md"]  # e.g. 3
    """
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ShardError(f"{path}: cannot be read as JSON: {error}") from None
    if not isinstance(data, dict) or not all(
            isinstance(k, str) and isinstance(v, int) and not isinstance(v, bool) and v >= 0 for k, v in data.items()):
        raise ShardError(f"{path}: expected a JSON object of page path -> whole seconds, e.g. {{\"index.md\": 3}}")
    return data


def rounded(seconds: float) -> int:
    """Seconds as the durations file keeps them.

    Args:
        seconds: a page's measured seconds.

    Returns:
        The whole seconds, at least 1 (a page never weighs nothing).

    Example: rounded(0.2) == 1
    """
    return max(1, round(seconds))


def kept(old: int | None, new: int) -> int:
    """The record to keep for a page, so that timing noise does not rewrite the durations file.

    Args:
        old: the page's record (None: it has none); new: this run's measure, rounded.

    Returns:
        old while new is within NOISE of it (or 1 s), else new.

    Example: kept(10, 11) == 10 and kept(10, 13) == 13 and kept(None, 4) == 4
    """
    if old is None or abs(new - old) > max(1, NOISE * old):
        return new
    return old


def write_durations(path: Path, measured: dict[str, float], nav: list[str]) -> dict[str, int]:
    """Record the pages' durations: those measured (rounded), the others of the nav kept as they were.

    A measure within NOISE of its record (or 1 s) keeps the record, so that a re-recording on a machine as busy
    as the last one changes few lines (kept). Pages that are no longer in the nav are dropped. The file is sorted
    by page and ends with a newline.

    Args:
        path: the durations file; measured: page -> seconds of this run; nav: the nav's pages.

    Returns:
        What was written.

    Raises:
        ShardError: the existing file cannot be read (read_durations).

    Example: write_durations(Path("data/durations.json"), {"index.md": 2.6}, ["index.md"]) == {"index.md": 3}
    """
    durations = {page: seconds for page, seconds in read_durations(path).items() if page in nav}
    durations.update({page: kept(durations.get(page), rounded(seconds)) for page, seconds in measured.items()
                      if page in nav})
    text = json.dumps(dict(sorted(durations.items())), indent=1) + "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(text, encoding="utf-8")
    temporary.replace(path)
    return dict(sorted(durations.items()))


def weights(pages: list[str], durations: dict[str, int]) -> dict[str, int]:
    """Each page's weight in the partition.

    Args:
        pages: the pages to weigh; durations: the recorded seconds (read_durations).

    Returns:
        page -> its record, or for a page with none the median of the records of `pages`, rounded
        (DEFAULT_SECONDS when none of them has one).

    Example: weights(["a.md", "b.md"], {"a.md": 4}) == {"a.md": 4, "b.md": 4}
    """
    known = [durations[page] for page in pages if page in durations]
    default = round(statistics.median(known)) if known else DEFAULT_SECONDS
    return {page: durations.get(page, default) for page in pages}


def partition(pages: list[str], durations: dict[str, int], count: int) -> list[list[str]]:
    """Split pages into `count` shards by greedy longest-processing-time (module docstring).

    Args:
        pages: the nav's pages (src_uris), each once; durations: recorded seconds per page (missing: the median);
        count: how many shards (>= 1).

    Returns:
        `count` lists of pages, shard 1 first; each page in exactly one; within a shard, pages in the order of
        `pages` (nav order). A shard may be empty when there are fewer pages than shards.

    Raises:
        ShardError: count < 1, or a page listed twice.

    Example: partition(["a.md", "b.md", "c.md"], {"a.md": 5, "b.md": 3, "c.md": 2}, 2) == [["a.md"], ["b.md", "c.md"]]
    """
    if count < 1:
        raise ShardError(f"{count} shards: expected at least 1")
    if len(set(pages)) != len(pages):
        raise ShardError("a page is listed twice: " + ", ".join(sorted({p for p in pages if pages.count(p) > 1})))
    weight = weights(pages, durations)
    loads = [0] * count
    owner: dict[str, int] = {}
    for page in sorted(pages, key=lambda p: (-weight[p], p)):
        shard = min(range(count), key=lambda i: (loads[i], i))
        owner[page] = shard
        loads[shard] += weight[page]
    return [[page for page in pages if owner[page] == shard] for shard in range(count)]


def shard_loads(pages: list[str], durations: dict[str, int], count: int) -> list[int]:
    """Each shard's total weight in seconds (what partition balances).

    Args:
        pages, durations, count: as partition's.

    Returns:
        The sum of the weights of each shard's pages, shard 1 first.

    Raises:
        ShardError: as partition.

    Example: shard_loads(["a.md", "b.md", "c.md"], {"a.md": 5, "b.md": 3, "c.md": 2}, 2) == [5, 5]
    """
    weight = weights(pages, durations)
    return [sum(weight[p] for p in shard) for shard in partition(pages, durations, count)]
