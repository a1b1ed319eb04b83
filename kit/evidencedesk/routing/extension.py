"""How the routing eval set's extension and its reply table are made: kit/data/routing/cases.jsonl and
replies.jsonl are this module's output, and kit/tests/test_routing_extension.py holds them to it.

The 270 cases are written from the five question forms of page 8's golden set (a ticket's category, its
labels, a refund amount or a count of days or months, a JSON triage, an answer that cites documents) by
filling templates with invented items, dates and amounts; each is graded by page 8's graders. The reply
table gives every case of the set (page 8's thirty, then these) the cheap model's reply, the expensive
model's reply and the verifier's confidence in the cheap reply. On the golden thirty the cheap replies are
page 8's "v2" replies, and the expensive replies and confidences that differ are the constants below. On
the extension, a fixed count of cases falls in each of the four (cheap right?, expensive right?) cells
(OUTCOMES); a wrong reply is one of two scripted mistakes of the case's kind (a wrong label, a currency
sign the number grader refuses, a flipped field, a missing citation...); and the confidence is drawn from
a band that depends on whether the cheap reply is right (CONFIDENCE_BANDS), so that the scores are ordered
but not calibrated, and some wrong replies are scored high.

The draws come from random.Random(SEED), through its random() and getrandbits() only: the Python
documentation guarantees that random() gives the same sequence for the same seed across versions
(https://docs.python.org/3/library/random.html#notes-on-reproducibility, read 2026-12-03), and
getrandbits() reads the same Mersenne Twister words; randint() and shuffle() are not covered by that
promise, so Draws writes out their algorithm (CPython's rejection sampling and Fisher-Yates) here. The
output is fixed, checked byte for byte by the test. Run `python -m evidencedesk.routing.extension` from
kit/ to rewrite the two files. Left out: anything measured from real traffic; the set is invented, and a
set written from templates holds near-duplicates, which make intervals look narrower than they are.
"""

from __future__ import annotations

import json
import random
from decimal import Decimal
from pathlib import Path
from typing import Any

from evidencedesk.evals.cases import GoldenCase, load_cases
from evidencedesk.evals.runner import configs
from evidencedesk.routing.models import ROUTING_DATA

SEED = 1701  # the seed of the draws (the page's ticket range starts at T-1701)
CASES_FILE, REPLIES_FILE = "cases.jsonl", "replies.jsonl"
EXTENSION_SIZE = 270  # cases written here, after page 8's thirty
# how many extension cases fall in each cell (cheap reply right, expensive reply right)
OUTCOMES = {(True, True): 204, (True, False): 8, (False, True): 48, (False, False): 10}
# the verifier's confidence in a cheap reply: (share of draws below which, (low, high)) bands, tried in
# order; a right reply is mostly scored high, a wrong one mostly low but not always
CONFIDENCE_BANDS = {
    True: ((0.72, (0.86, 0.99)), (0.92, (0.62, 0.86)), (1.0, (0.25, 0.62))),
    False: ((0.22, (0.86, 0.97)), (0.5, (0.62, 0.86)), (1.0, (0.10, 0.62))),
}
# page 8's golden cases: the expensive model's reply where it differs from v2's, and the verifier's scores
GOLDEN_EXPENSIVE = {
    "g05": "other: gift cards", "g08": "other", "g17": "18.50",
    "g24": json.dumps({"ticket_id": "T-704", "category": "delivery", "urgent": True,
                       "summary": "Address change before tomorrow."}),
    "g29": "Yes: faulty items within 12 months [kc-returns-v3], and 24 months for electrical goods "
           "[kc-warranty-v1].",
}
GOLDEN_CONFIDENCE = {"g08": "0.91", "g17": "0.55", "g24": "0.66", "g29": "0.88", "g15": "0.71", "g19": "0.58",
                     "g30": "0.64", "g12": "0.79"}  # every other golden case: 0.90 to 0.98 (golden_confidence)

CAT_Q = "Which category is this ticket: refund, delivery, account or other? Ticket: "
SET_Q = "Which labels apply: damaged, late, missing-item, wrong-item, charged-twice? Ticket: "
CITE_Q = "Answer from the documents given, and cite each one you use as [doc-id]. "
ITEMS = ("kettle", "toaster", "lamp", "teapot", "blender", "clock", "vase", "fan", "rug", "kettle lid",
         "coffee grinder", "bread bin", "mixing bowl", "salad spinner", "spice rack", "cutlery tray",
         "cake tin", "frying pan", "wok", "desk lamp", "doormat", "laundry basket", "ice tray", "egg timer")
WHEN = ("last week", "on Monday", "two days ago", "in May", "yesterday", "a month ago")
DEFECTS = ("leaks", "stopped working", "arrived cracked", "smells of burning", "will not switch on", "is scratched")
COURIER = ("with a neighbour I do not know", "in the rain", "at the wrong flat", "on the wrong street")
SIGN_IN = ("I changed my phone", "I reset my password", "you merged my two accounts", "my email provider closed",
           "I moved to a new address", "your last update")
KEPT = ("orders", "reviews", "addresses", "wish lists", "cards", "messages", "photos")
OTHER = ("gift boxes", "spare parts", "wedding lists", "gift wrapping", "bulk orders", "catalogues", "vouchers")
TOWNS = ("Leeds", "York", "Hull", "Derby", "Bath", "Ely", "Wells")
OPEN_ON = ("Sunday", "Monday", "bank holidays")
MONTHS = ("March", "April", "May", "June")
LABELS = ("damaged", "late", "missing-item", "wrong-item", "charged-twice")
TRIAGE = (("My {it} sparks when I switch it on. I want my money back.", "refund", True),
          ("Where is my {it}? It is a week late.", "delivery", False),
          ("I forgot my password and the reset email never comes.", "account", False),
          ("Please change the delivery address for the {it} arriving tomorrow, today.", "delivery", True),
          ("I was charged twice for the {it}.", "refund", False),
          ("Someone else has signed in to my account and changed my address.", "account", True))
CITED = (("kc-returns-v3", "Can I return a {it} after {n} days if I have the receipt?"),
         ("kc-shipping-v2", "How long does {kind} delivery take to {place}?"),
         ("kc-warranty-v1, kc-returns-v3", "Is a {it} bought {n} months ago still under warranty?"),
         ("kc-shipping-v2", "My {it} came {n} days late. Can I have the shipping fee back?"),
         ("kc-returns-v3", "Can I return an opened {it} bought {n} days ago?"))
WRONG_CATEGORY = {"refund": "account", "delivery": "other", "account": "refund", "other": "delivery"}


class Draws:
    """Seeded draws that do not depend on the Python version: random.Random(seed)'s random() and getrandbits().

    Args: seed (int). Methods: below(n) (int in [0, n)), integer(a, b) (int in [a, b]), shuffle(items) (in
    place), uniform(low, high) (float in [low, high]), random() (float in [0, 1)). Raises ValueError naming n
    when n < 1. Example: Draws(1701).integer(2, 9)
    """

    def __init__(self, seed: int) -> None:
        self._random = random.Random(seed)

    def random(self) -> float:
        """The generator's next float in [0, 1)."""
        return self._random.random()

    def below(self, n: int) -> int:
        """A uniform int in [0, n): k = n.bit_length() bits at a time, drawn again while >= n."""
        if n < 1:
            raise ValueError(f"n must be >= 1, got {n}")
        k = n.bit_length()
        r = self._random.getrandbits(k)
        while r >= n:
            r = self._random.getrandbits(k)
        return r

    def integer(self, a: int, b: int) -> int:
        """A uniform int in [a, b], both included."""
        return a + self.below(b - a + 1)

    def shuffle(self, items: list[Any]) -> None:
        """Shuffle items in place (Fisher-Yates, from the last position down)."""
        for i in reversed(range(1, len(items))):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]

    def uniform(self, low: float, high: float) -> float:
        """A float from low to high: low + (high - low) * random()."""
        return low + (high - low) * self.random()


def _categories() -> list[tuple[str, str]]:
    """The 90 (ticket text, category) pairs of the category questions."""
    texts = [(f"The {ITEMS[i]} I bought {WHEN[(i + 1) % 6]} {DEFECTS[i % 6]}. I want my money back.", "refund")
             for i in range(24)]
    for i in range(24):
        item = ITEMS[(i + 5) % 24]
        texts.append((f"My {item} was due {WHEN[i % 6]} and has not arrived." if i % 2
                      else f"The courier left my {item} {COURIER[i % 4]}.", "delivery"))
    for i in range(21):
        texts.append(((f"I cannot sign in since {SIGN_IN[i % 6]} (ticket {i + 1} of mine).",
                       f"Please change the email on my account to user{i}@example.org.",
                       f"Please delete my account and the {KEPT[i % 7]} kept in it.")[i % 3], "account"))
    for i in range(21):
        texts.append(((f"Do you sell {OTHER[i % 7]}?",
                       f"Is your {TOWNS[i % 7]} shop open on {OPEN_ON[i % 3]}?",
                       f"Can I collect an order from the {TOWNS[i % 7]} shop?")[i % 3], "other"))
    return texts


def _label_text(label: str, item: str, draws: Draws) -> str:
    """One clause of a labels ticket; "late" and "charged-twice" draw a number."""
    if label == "damaged":
        return f"the {item} arrived broken"
    if label == "late":
        return f"it came {draws.integer(2, 9)} days late"
    if label == "missing-item":
        return f"the {ITEMS[(ITEMS.index(item) + 7) % 24]} is missing"
    if label == "wrong-item":
        return f"I got a green {item} instead of the grey one"
    return f"you took the payment for order {draws.integer(6000, 6999)} twice"


def extension_cases(draws: Draws) -> list[dict[str, Any]]:
    """The 270 cases, r001 to r270, as dicts in the field order of kit/data/evals/cases.jsonl.

    Args: draws (Draws; the labels and amounts draw from it). Raises ValueError when a case repeats another's
    input or one of page 8's. Example: extension_cases(Draws(SEED))[0]["expected"] -> "refund"
    """
    cases: list[dict[str, Any]] = []

    def add(grader: str, text: str, expected: Any, tags: list[str], **extra: str) -> None:
        cases.append({"id": f"r{len(cases) + 1:03d}", "grader": grader, "input": text, **extra,
                      "expected": expected, "tags": tags})

    for text, category in _categories():
        add("exact", f"{CAT_Q}'{text}'", category, [category])
    combos = [[a] for a in LABELS] + [[a, b] for i, a in enumerate(LABELS) for b in LABELS[i + 1:]]
    for i in range(60):
        labels = combos[i % len(combos)]
        joined = ", and ".join(_label_text(label, ITEMS[i % 24], draws) for label in labels)
        text = joined[0].upper() + joined[1:] + f" (order of {MONTHS[i % 4]}, box {i + 1})."
        add("set", f"{SET_Q}'{text}'", labels, ["refund" if labels == ["charged-twice"] else "delivery"])
    for i in range(20):
        quantity, price = 2 + i % 5, Decimal(draws.integer(300, 4999)) / 100
        add("numeric", f"{quantity} {ITEMS[i]}s at {price:.2f} euros each came back unused. How much is the "
            "refund, in euros?", f"{quantity * price:.2f}", ["refund", "amount"], abs_tol="0.01")
    for i in range(20):
        promised, month = 1 + i, MONTHS[i % 4]
        arrived = promised + 1 + (i * 7) % 6
        add("numeric", f"Order {7100 + i} was promised for {promised} {month} and arrived on {arrived} {month}. "
            "How many days late was it?", str(arrived - promised), ["delivery"], abs_tol="0")
    for i in range(20):
        months = (12, 24, 36)[i % 3]
        ago = 1 + (i * 5) % (months - 1)
        add("numeric", f"A {ITEMS[(i + 3) % 24]} with a {months}-month warranty was bought {ago} months ago. "
            "How many months of warranty are left?", str(months - ago), ["warranty"], abs_tol="0")
    for i in range(30):
        ticket = f"T-{1711 + i}"
        template, category, urgent = TRIAGE[i % 6]
        text = template.format(it=ITEMS[(i * 7) % 24])
        if i >= 6:
            text = text[:-1] + f" (my {i // 6 + 1}{('st', 'nd', 'rd', 'th', 'th')[i // 6]} message)."
        add("json", f"Triage ticket {ticket} as a JSON object with ticket_id, category, urgent and summary. "
            f"Ticket {ticket}: '{text}'", {"ticket_id": ticket, "category": category, "urgent": urgent},
            [category], schema_name="TicketTriage")
    for i in range(30):
        docs, template = CITED[i % 5]
        question = template.format(it=ITEMS[(i * 5 + 1) % 24], n=3 + (i * 3) % 20, kind=("standard", "express")[i % 2],
                                   place=TOWNS[i % 6])
        tag = "warranty" if "warranty" in docs else ("delivery" if "shipping" in docs else "refund")
        add("citation", f"{CITE_Q}Documents given: {docs}. Question: {question}", docs.split(", "), [tag])
    inputs = [c["input"] for c in cases] + [c.input for c in load_cases()]
    if len(cases) != EXTENSION_SIZE or len(set(inputs)) != len(inputs):
        raise ValueError(f"the extension must be {EXTENSION_SIZE} cases, each with its own input")
    return cases


def right_reply(case: dict[str, Any]) -> str:
    """A reply that passes the case's grader. Example: right_reply({"grader": "exact", "expected": "refund"})"""
    kind, expected = case["grader"], case["expected"]
    if kind in ("exact", "numeric"):
        return expected
    if kind == "set":
        return ", ".join(expected)
    if kind == "json":
        return json.dumps({**expected, "summary": "Triaged from the ticket text."})
    return f"Yes, as the policy says [{expected[0]}]."


def wrong_reply(case: dict[str, Any], style: int) -> str:
    """One of two scripted mistakes (style 0 or 1) of the case's kind; each fails the case's grader."""
    kind, expected = case["grader"], case["expected"]
    if kind == "exact":
        return WRONG_CATEGORY[expected] if style == 0 else f"{expected} problem"
    if kind == "set":
        if len(expected) > 1:
            return expected[0]
        return ", ".join(expected + ["late" if expected[0] != "late" else "damaged"])
    if kind == "numeric":
        if style == 0 and "." in expected:
            return "€" + expected
        return str(Decimal(expected) + (1 if "." not in expected else Decimal("1.10")))
    if kind == "json":
        if style == 0:
            return json.dumps({**expected, "urgent": not expected["urgent"], "summary": "Triaged."})
        return "Here is the triage: " + json.dumps({**expected, "summary": "Triaged."})
    return "Yes, as the policy says." if style == 0 else f"Yes [{expected[0]}] [kc-privacy-v1]."


def confidence(right: bool, draws: Draws) -> str:
    """The verifier's score of a cheap reply, "0.00" to "1.00": a band by one draw, a value in it by another."""
    share = draws.random()
    low, high = next(band for limit, band in CONFIDENCE_BANDS[right] if share < limit)
    return f"{draws.uniform(low, high):.2f}"


def golden_confidence(number: int) -> str:
    """The score of golden case g<number> when GOLDEN_CONFIDENCE has none: 0.90 to 0.98, by number mod 9."""
    return f"{Decimal(90 + number % 9) / 100:.2f}"


def reply_rows(cases: list[dict[str, Any]], golden: list[GoldenCase], draws: Draws) -> list[dict[str, Any]]:
    """The reply table: one row per golden case (v2's reply, GOLDEN_EXPENSIVE, GOLDEN_CONFIDENCE), then one per
    extension case (OUTCOMES shuffled over the cases, then a reply and a confidence each).

    Args: cases (extension_cases' output); golden (page 8's cases, evals.cases.load_cases()); draws (Draws, the
    same one extension_cases drew from). Example: reply_rows(cases, load_cases(), draws)[16]["confidence"]
    """
    v2 = configs(golden)["v2"].client.replies
    rows = [{"id": g.id, "cheap": v2[g.input], "expensive": GOLDEN_EXPENSIVE.get(g.id, v2[g.input]),
             "confidence": GOLDEN_CONFIDENCE.get(g.id, golden_confidence(int(g.id[1:])))}
            for g in golden]
    cells = [cell for cell, count in OUTCOMES.items() for _ in range(count)]
    draws.shuffle(cells)
    for case, (cheap_right, expensive_right) in zip(cases, cells, strict=True):
        cheap = right_reply(case) if cheap_right else wrong_reply(case, draws.integer(0, 1))
        expensive = right_reply(case) if expensive_right else wrong_reply(case, draws.integer(0, 1))
        rows.append({"id": case["id"], "cheap": cheap, "expensive": expensive,
                     "confidence": confidence(cheap_right, draws)})
    return rows


def generate(seed: int = SEED) -> dict[str, str]:
    """The text of both files, {CASES_FILE: ..., REPLIES_FILE: ...}, one JSON object a line.

    Example: generate()[CASES_FILE].count("\\n") -> 270
    """
    draws = Draws(seed)
    cases = extension_cases(draws)
    rows = reply_rows(cases, load_cases(), draws)

    def lines(objects: list[dict[str, Any]]) -> str:
        return "".join(json.dumps(o, ensure_ascii=False) + "\n" for o in objects)

    return {CASES_FILE: lines(cases), REPLIES_FILE: lines(rows)}


def write(directory: str | Path | None = None) -> list[Path]:
    """Write both files into directory (default kit/data/routing/). Returns the paths written."""
    directory = Path(directory) if directory is not None else ROUTING_DATA
    written = []
    for name, text in generate().items():
        path = directory / name
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


if __name__ == "__main__":
    for path in write():
        print("wrote", path)
