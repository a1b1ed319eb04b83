"""How well the detector does, measured: recall and precision by kind on a labelled synthetic set.

kit/data/privacy/labelled.jsonl holds invented texts of a removals company's customers, one per line,
each with the names the application would hold for it and every item of personal data a person marked in
it (kind and value, where the kinds are the detector's four and ADDRESS, which it has no recognizer for).
score() runs detect.find_personal_data on each text and matches what it found to what was marked: a found
span counts for a marked item of the same kind that it overlaps (so "020) 7946 0112" found inside
"(020) 7946 0112" counts), each marked item at most once. Recall is the share of marked items found, and
precision the share of found spans that were marked; each comes with its Wilson interval (evals.stats),
which assumes every item is found or missed independently with one probability, as a pass rate's cases
are. The texts were written to hold the cases a pattern detector gets wrong (spelled-out and encoded
values, names of third parties, street addresses, numbers that look like phones), so the figures
describe this set and this detector, not your traffic: measure on a labelled sample of your own. Left
out: a second labeller and agreement between labellers, and errors of kind (a phone found as a card).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from evidencedesk import DATA_DIR
from evidencedesk.evals.stats import Rate, wilson
from evidencedesk.privacy.detect import KINDS, Detection, find_personal_data
from evidencedesk.security import visible
from evidencedesk.strictjson import read_jsonl

PRIVACY_DATA = DATA_DIR / "privacy"
ADDRESS = "ADDRESS"  # a kind people mark that the detector has no recognizer for
LABELS = (*KINDS, ADDRESS)
TAGS = ("plain", "spelled", "encoded", "third_party", "address", "trap")
Detector = Callable[[str, Sequence[str]], Detection]  # find_personal_data's shape: (text, known_names) -> Detection


class LabelError(ValueError):
    """A row of the labelled set is malformed; the message names the line and the field."""


class Marked(BaseModel):
    """One item a person marked: kind (one of LABELS) and value (str, as it appears in the text)."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)
    kind: Literal["EMAIL", "CARD", "PHONE", "NAME", "ADDRESS"]
    value: Annotated[str, Field(min_length=1, max_length=200)]


class Labelled(BaseModel):
    """A labelled text: id ("p" and two digits), text, known_names, entities (tuple of Marked), tag (one of TAGS).

    Every marked value must occur in the visible form of the text. Example: load_labelled()[0].entities
    """

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)
    id: Annotated[str, Field(pattern=r"^p[0-9]{2}$")]
    text: Annotated[str, Field(min_length=1, max_length=400)]
    known_names: Annotated[tuple[str, ...], Field(strict=False)]  # a JSON list, kept as a tuple
    entities: Annotated[tuple[Marked, ...], Field(strict=False)]
    tag: Literal["plain", "spelled", "encoded", "third_party", "address", "trap"]

    @model_validator(mode="after")
    def _values_in_text(self) -> Labelled:
        for item in self.entities:
            if item.value not in visible(self.text):
                raise ValueError(f"marked {item.kind} value {item.value!r} is not in the text")
        return self


def load_labelled(path: str | Path | None = None) -> list[Labelled]:
    """Read and validate the labelled set (default kit/data/privacy/labelled.jsonl), in file order.

    Raises LabelError naming the file when it cannot be read, and the line and field of a bad row (an
    unknown kind or tag, a value not in its text, a repeated id). Example: len(load_labelled())
    """
    path = Path(path) if path is not None else PRIVACY_DATA / "labelled.jsonl"
    return [row for _, _, row in read_jsonl(path, Labelled.model_validate, LabelError, "labelled set")]


class Counts(BaseModel):
    """For one kind: found (marked items the detector found), missed (marked, not found), extra (found, not
    marked), all int. recall() and precision() return a Wilson Rate, or None when nothing was marked or found.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)
    found: int = 0
    missed: int = 0
    extra: int = 0

    def recall(self) -> Rate | None:
        """found / (found + missed) with its Wilson interval (evals.stats.Rate), or None when nothing was
        marked. Example: score()["EMAIL"].recall().value
        """
        return wilson(self.found, self.found + self.missed) if self.found + self.missed else None

    def precision(self) -> Rate | None:
        """found / (found + extra) with its Wilson interval, or None when nothing was found.

        Example: score()["PHONE"].precision().low
        """
        return wilson(self.found, self.found + self.extra) if self.found + self.extra else None


def match(row: Labelled, detector: Detector = find_personal_data) -> tuple[list[str], list[str], list[str]]:
    """Match a detector's spans on one row to the marked items: (kinds found, kinds missed, kinds extra).

    Args: row (Labelled); detector (called as detector(text, known_names), returning a Detection whose spans
    index the visible text; default find_personal_data). A span matches an unmatched marked item of its kind
    that it overlaps, first in order of position.
    Example: match(load_labelled()[0]) -> (["NAME", "EMAIL"], [], [])
    """
    text = visible(row.text)
    marked = sorted(((text.find(m.value), text.find(m.value) + len(m.value), m.kind) for m in row.entities))
    open_items = list(marked)
    found, extra = [], []
    for span in detector(row.text, row.known_names).spans:
        hit = next((m for m in open_items if m[2] == span.kind and span.start < m[1] and m[0] < span.end), None)
        if hit is None:
            extra.append(span.kind)
        else:
            open_items.remove(hit)
            found.append(span.kind)
    return found, [kind for _, _, kind in open_items], extra


def score(rows: list[Labelled] | None = None, detector: Detector = find_personal_data) -> dict[str, Counts]:
    """Counts by kind over the rows (default: the labelled set) for a detector (default find_personal_data),
    for every kind in LABELS, in that order. Example: score()["EMAIL"].recall()
    """
    totals: dict[str, Counter[str]] = {kind: Counter() for kind in LABELS}
    for row in rows if rows is not None else load_labelled():
        found, missed, extra = match(row, detector)
        for name, kinds in (("found", found), ("missed", missed), ("extra", extra)):
            for kind in kinds:
                totals[kind][name] += 1
    return {kind: Counts(**counts) for kind, counts in totals.items()}


def overall(counts: dict[str, Counts]) -> Counts:
    """The counts of every kind added up. Example: overall(score()).recall()"""
    return Counts(**{name: sum(getattr(c, name) for c in counts.values()) for name in ("found", "missed", "extra")})
