"""Idempotency keys for a model's tool calls: set by the code from what names the decision, never from the text.

A run that retries a step, or resumes after a crash, asks the model again, and the model may word the
same reply differently. A key built from the text then changes with the wording, and every store that
deduplicates by key (the outbox's UNIQUE column, the receiver's, a provider's Idempotency-Key) sees a
new request. text_key() is that mistake, kept to show it: a SHA-256 of the text, as content-based
deduplication does (Amazon SQS FIFO's ContentBasedDeduplication hashes the body, read 2026-12-03:
https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/FIFO-key-terms.html).
step_key() names the decision by its place in the run (run id, step number, tool). That holds while the
step number is durable and a resumed run replays the steps it recorded instead of asking the model again;
a resumed run that re-plans can reach the same reply at another step (a new key: sent twice) or put
another email at that step (the same key: dropped). purpose_key() names it by what it is for (the ticket
and the kind of reply, as the Beginner page's Tool Contracts does), which no step order or wording changes.
Left out: keys for an effect that really happens twice (two refunds on one ticket need two purposes, say
the refund's id in each), and key expiry.
"""

from __future__ import annotations

import hashlib
import re

RUN_ID = re.compile(r"[a-z0-9][a-z0-9-]{0,62}")  # a run id: lower-case letters, digits, dashes
TOOL = re.compile(r"[a-z][a-z0-9_]{0,62}")  # a tool name, as the registry spells it
SUBJECT = re.compile(r"[A-Za-z0-9][A-Za-z0-9-]{0,62}")  # the record an effect is about: T-2001
PURPOSE = TOOL  # what the effect is for, spelled like a tool name: refund_confirmation


def step_key(run_id: str, step: int, tool: str) -> str:
    """The key of one tool call: the same for every retry of that step.

    Args: run_id (str, RUN_ID), step (int >= 1), tool (str, TOOL).
    Raises: ValueError naming the argument that is not of that form.
    Example: step_key("r-2001", 2, "send_reply") -> "r-2001/2/send_reply"
    """
    if not isinstance(run_id, str) or not RUN_ID.fullmatch(run_id):
        raise ValueError(f"run_id must be like r-2001, got {run_id!r}")
    if isinstance(step, bool) or not isinstance(step, int) or step < 1:
        raise ValueError(f"step must be an int >= 1, got {step!r}")
    if not isinstance(tool, str) or not TOOL.fullmatch(tool):
        raise ValueError(f"tool must be like send_reply, got {tool!r}")
    return f"{run_id}/{step}/{tool}"


def text_key(text: str) -> str:
    """The wrong key: 16 hex digits of the SHA-256 of the model's text.

    Args: text (str). Raises: ValueError for a non-string.
    Example: text_key("Hi") != text_key("Hello")  # a reworded retry is a new key
    """
    if not isinstance(text, str):
        raise ValueError(f"text must be a str, got {type(text).__name__}")
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    return "sha256:" + digest[:16]


def purpose_key(subject: str, purpose: str) -> str:
    """The key of one intended effect: the record it is about and what it is for.

    The same whatever step of whatever plan reaches it, and whatever the wording.
    Args: subject (str, SUBJECT: a ticket id); purpose (str, PURPOSE: one per effect meant once).
    Raises: ValueError naming the argument that is not of that form.
    Example: purpose_key("T-2001", "refund_confirmation") -> "T-2001/refund_confirmation"
    """
    if not isinstance(subject, str) or not SUBJECT.fullmatch(subject):
        raise ValueError(f"subject must be like T-2001, got {subject!r}")
    if not isinstance(purpose, str) or not PURPOSE.fullmatch(purpose):
        raise ValueError(f"purpose must be like refund_confirmation, got {purpose!r}")
    return f"{subject}/{purpose}"
