"""Context assembly and trust boundaries: which text goes where in a prompt.

Every piece of context is a ContextPart labelled trusted (our own instructions) or untrusted (users,
tickets, documents, tool results, memory). Trusted parts form the system message; untrusted parts go
in the user message, each inside a source-tagged block whose text cannot close the block, and from
which hidden characters are removed. Labels do not make a model obey; they keep our own code honest about
what came from where. layout() lists a prompt's parts in order with their size in tokens. Left out:
retrieval, ranking, and summarising old turns.
"""

from __future__ import annotations

from typing import Annotated, Literal, NamedTuple

from pydantic import ConfigDict, Field
from pydantic.dataclasses import dataclass

from evidencedesk.llm import Message, estimate_tokens
from evidencedesk.security import HIDDEN

MAX_PART_CHARS = 20_000  # one part's text; more is refused when the part is built
# What render_untrusted escapes: "&" (so a written-out "&lt;" stays text), "<", ">", and their look-alikes, the
# only other characters whose NFKC form holds "<" or ">" (U+FE64/FE65 small, U+FF1C/FF1E fullwidth).
ESCAPES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;",
                         "\uFE64": "&lt;", "\uFF1C": "&lt;", "\uFE65": "&gt;", "\uFF1E": "&gt;"})


@dataclass(frozen=True, config=ConfigDict(strict=True, extra="forbid"))
class ContextPart:
    """One piece of context with its trust label and where it came from.

    Args: kind (str, ^[a-z_]{1,20}$, used as the block name); text (str, at most 20,000 characters);
    trust ("trusted" or "untrusted"); source (str, 1-80 characters, no quotes or angle brackets).
    Raises: pydantic.ValidationError naming the field.
    Example: ContextPart("ticket", "My kettle leaks.", "untrusted", "tool:get_ticket:o1")
    """

    kind: Annotated[str, Field(pattern=r"^[a-z_]{1,20}$")]
    text: Annotated[str, Field(max_length=MAX_PART_CHARS)]
    trust: Literal["trusted", "untrusted"]
    source: Annotated[str, Field(pattern=r"^[^\"'<>\r\n]{1,80}$")]


def render_untrusted(part: ContextPart) -> str:
    """Wrap an untrusted part in a tagged block: <kind source="...">, the text, </kind>.

    Angle brackets in the text, and their small and fullwidth look-alikes, become "&lt;" and "&gt;" ("&" becomes
    "&amp;"), so the text cannot close the block or open a new one. Hidden characters (security.HIDDEN:
    zero-width, bidi, tag and control characters) are removed: the model gets only what a reviewer can see.
    Args: part (ContextPart, trust "untrusted"). Returns: str.
    Raises: ValueError if the part is trusted (trusted text belongs in the system message).
    Example: render_untrusted(ContextPart("note", "<b>", "untrusted", "t")) -> '<note source="t">\\n&lt;b&gt;\\n</note>'
    """
    if part.trust != "untrusted":
        raise ValueError(f"part {part.kind} from {part.source} is trusted; only untrusted parts are rendered as blocks")
    text = HIDDEN.sub("", part.text).translate(ESCAPES)
    return f'<{part.kind} source="{part.source}">\n{text}\n</{part.kind}>'


def build_messages(parts: list[ContextPart]) -> list[Message]:
    """Two messages: system = trusted texts joined by blank lines; user = untrusted blocks in order.

    A trusted part never goes in the user message, an untrusted part never in the system message.
    Args: parts (list of ContextPart). Returns: [Message("system", ...), Message("user", ...)].
    Raises: TypeError naming the index of an item that is not a ContextPart.
    Example: build_messages([ContextPart("rules", "Be brief.", "trusted", "app")])[0].content -> "Be brief."
    """
    for index, part in enumerate(parts):
        if not isinstance(part, ContextPart):
            raise TypeError(f"parts[{index}] must be a ContextPart, got {type(part).__name__}")
    system = "\n\n".join(p.text for p in parts if p.trust == "trusted")
    user = "\n\n".join(render_untrusted(p) for p in parts if p.trust == "untrusted")
    return [Message("system", system), Message("user", user)]


def keep_history(turns: list[Message], max_turns: int) -> list[Message]:
    """The last max_turns turns (int, turns, >= 0); 0 gives []. Older turns are dropped, not summarised.

    Raises: ValueError for a negative or non-int max_turns.
    Example: keep_history([Message("user", "a"), Message("assistant", "b")], 1) -> [Message("assistant", "b")]
    """
    if isinstance(max_turns, bool) or not isinstance(max_turns, int) or max_turns < 0:
        raise ValueError(f"max_turns must be an int >= 0, got {max_turns!r}")
    return list(turns[-max_turns:]) if max_turns else []


class PartSize(NamedTuple):
    """One part as it lands in a prompt: role ("system" or "user"), kind, source, trust, tokens (int, estimated)."""

    role: str
    kind: str
    source: str
    trust: str
    tokens: int


def layout(parts: list[ContextPart]) -> list[PartSize]:
    """The parts in the order build_messages puts them, each with its estimated size in tokens.

    System parts come first (trusted, in the given order), then user parts (untrusted, in order). Tokens are
    llm.estimate_tokens of what the part adds: its text if trusted, its rendered block if not. The request
    adds a little on top (separators, and usage.MESSAGE_OVERHEAD_TOKENS per message).
    Args: parts (list of ContextPart). Returns: list of PartSize.
    Raises: TypeError naming the index of an item that is not a ContextPart.
    Example: layout([ContextPart("rules", "Be brief.", "trusted", "app")])[0].tokens -> 3
    """
    build_messages(parts)  # the same checks, and the same errors, as the prompt itself
    ordered = [p for p in parts if p.trust == "trusted"] + [p for p in parts if p.trust == "untrusted"]
    return [PartSize("system" if p.trust == "trusted" else "user", p.kind, p.source, p.trust,
                     estimate_tokens(p.text if p.trust == "trusted" else render_untrusted(p))) for p in ordered]
