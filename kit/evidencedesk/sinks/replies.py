"""What a fooled model might write: the hostile replies this page feeds each sink, from a scripted fake.

kit/data/sinks/replies.json names one reply per sink (invented, with example hosts). fake_model() wraps
them in llm.ScriptedClient, a fake that returns its script in order and says it is a script: it tests the
code around a model, never a model. A real model writes such text when an injected instruction in a
ticket, a document or a web page steers it; nothing here measures how often that happens.
Left out: the injection itself (see security.py and the agent's attack table).
"""

from __future__ import annotations

from pathlib import Path

from evidencedesk import DATA_DIR
from evidencedesk.llm import LLMRequest, Message, ScriptedClient
from evidencedesk.strictjson import read_json

SINKS_DATA = DATA_DIR / "sinks"
REPLIES_FILE = SINKS_DATA / "replies.json"
FAKE_MODEL = "scripted-hostile"  # the name the fake reports: it is a script, not a model
MAX_REPLY_TOKENS = 400  # the request's output allowance; every scripted reply fits in it


def load_replies(path: Path | str | None = None) -> dict[str, str]:
    """The scripted replies by name, from a JSON object of strings.

    Args: path (str or Path; default kit/data/sinks/replies.json). Returns: dict name -> reply text.
    Raises: ValueError when the file is not strict JSON or not an object of non-empty strings; OSError
    when it cannot be read.
    Example: load_replies()["html"].startswith("Your repair") -> True
    """
    data = read_json(Path(path) if path is not None else REPLIES_FILE)
    if not isinstance(data, dict) or not all(isinstance(v, str) and v for v in data.values()):
        raise ValueError("replies must be a JSON object of non-empty strings")
    return data


def fake_model(*names: str) -> ScriptedClient:
    """A ScriptedClient that returns the named replies, in order, and reports the model name FAKE_MODEL.

    Args: names (str) -- keys of load_replies(). Returns: ScriptedClient.
    Raises: KeyError naming an unknown reply; ValueError when no name is given.
    Example: fake_model("html").model -> "scripted-hostile"
    """
    if not names:
        raise ValueError("name at least one scripted reply")
    replies = load_replies()
    unknown = [n for n in names if n not in replies]
    if unknown:
        raise KeyError(f"no scripted reply named {unknown[0]!r}; there are {sorted(replies)}")
    return ScriptedClient([replies[n] for n in names], model=FAKE_MODEL)


def ask(name: str, question: str = "Help me with my ticket.") -> str:
    """The text of the scripted reply name, returned through one call to the fake model.

    Args: name (str, a key of load_replies()); question (str, the user's message, which the script ignores).
    Returns: str. Raises: KeyError for an unknown name.
    Example: ask("path") -> "../jonas/contract.txt"
    """
    request = LLMRequest(FAKE_MODEL, [Message("user", question)], MAX_REPLY_TOKENS)
    return fake_model(name).complete(request).text
