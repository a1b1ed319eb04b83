"""A labelled set of messages for a guardrail classifier: attacks and benign traffic, split into tune and holdout.

kit/data/redteam/traffic.jsonl holds one message per line, all invented for the course: an id, the split
("tune": the rows the classifier's rules and threshold were written and chosen from; "holdout": rows kept
apart to measure it), the label ("attack" or "benign"), a family (for attacks, how the attack is written:
direct, encoded, look-alike, split, role-play, reworded, translated; for benign messages, "ordinary" or
"hard": a customer's text that shares words or shapes with an attack) and the text. load_traffic() validates
every row. Left out: real traffic (its share of attacks is unknown here, and far below this set's; see
measure.precision_at), several labellers per message, messages longer than a couple of sentences, and
third-party content (a ticket body, a retrieved page, a tool result): every row is a message a customer
sends, so the set measures a guard on direct input only; indirect injection needs its own labelled set.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from evidencedesk import DATA_DIR
from evidencedesk.strictjson import read_jsonl

REDTEAM_DATA = DATA_DIR / "redteam"
ATTACK, BENIGN = "attack", "benign"
TUNE, HOLDOUT = "tune", "holdout"
ATTACK_FAMILIES = ("direct", "encoded", "look-alike", "split", "role-play", "reworded", "translated")
BENIGN_FAMILIES = ("ordinary", "hard")


class TrafficError(ValueError):
    """A row of the traffic table is malformed; the message names the line and the field."""


class Message(BaseModel):
    """One labelled message: id ("m" and three digits), split, label, family (one of its label's), text.

    Raises pydantic.ValidationError naming the field for a bad row. Example: load_traffic()[0].label -> "attack"
    """

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)
    id: str = Field(pattern=r"^m[0-9]{3}$")
    split: Literal["tune", "holdout"]
    label: Literal["attack", "benign"]
    family: str
    text: str = Field(min_length=1, max_length=300)

    @model_validator(mode="after")
    def _family_fits_label(self) -> Message:
        families = ATTACK_FAMILIES if self.label == ATTACK else BENIGN_FAMILIES
        if self.family not in families:
            raise ValueError(f"family {self.family!r} is not one of the {self.label} families: {', '.join(families)}")
        return self


def load_traffic(path: str | Path | None = None, split: str | None = None) -> list[Message]:
    """Read and validate the traffic table (default kit/data/redteam/traffic.jsonl), in file order.

    Args: path (str or Path); split (None for every row, or "tune" or "holdout").
    Raises TrafficError naming the file, line and field of a bad row or a repeated id; ValueError for an
    unknown split. Example: len(load_traffic(split="holdout")) -> 50
    """
    if split not in (None, TUNE, HOLDOUT):
        raise ValueError(f"split must be None, {TUNE!r} or {HOLDOUT!r}, got {str(split)[:40]!r}")
    path = Path(path) if path is not None else REDTEAM_DATA / "traffic.jsonl"
    rows = [m for _, _, m in read_jsonl(path, Message.model_validate, TrafficError, "traffic table")]
    return [m for m in rows if split is None or m.split == split]
