"""Tool contracts and execution: what a tool is, the registry that checks every call, the result codes.

A tool is a name, a pydantic schema for its arguments, a function and a flag saying whether it
changes the world (`writes`). The registry validates every call against the schema before it runs
anything, and answers every failure (bad arguments, an unknown tool, a tool that crashes) with a
ToolResult carrying a code. result_text clips what goes back to a model. The kit's result codes are
defined here, once; gate.py re-exports them. A call is a ToolCall, the kit's one shape for it, defined in
llm.py because a model's reply carries it; this module checks and runs it.
Left out: any particular tool (the help desk's three tools and their data are in helpdesk.py, which
builds on this module; this module imports nothing from it); permissions, call limits and approval
(gate.py); real e-mail.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from evidencedesk.llm import ToolCall

# Result codes: the only values error["code"] takes. One definition, used by every module of the kit.
OK = "ok"                                # the tool ran; result.data holds its answer
NOT_ALLOWED = "not_allowed"              # refused: tool not available for the task, or no write grant
INVALID_ARGUMENTS = "invalid_arguments"  # the arguments (or the call) failed the checks; nothing ran
CALL_LIMIT = "call_limit"                # the run used up its calls, in total or for this tool
NEEDS_APPROVAL = "needs_approval"        # a write waits for a person to approve it; nothing ran yet
NOT_FOUND = "not_found"                  # no such tool, record or pending action (or not yours)
DUPLICATE = "duplicate"                  # the idempotency key was first used for a different request; nothing sent
TOOL_ERROR = "tool_error"                # the tool itself failed; only the kind of error is told
TOO_LARGE = "too_large"                  # the arguments are too big to check at all
RESULT_CODES = (OK, NOT_ALLOWED, INVALID_ARGUMENTS, CALL_LIMIT, NEEDS_APPROVAL, NOT_FOUND, DUPLICATE,
                TOOL_ERROR, TOO_LARGE)

MAX_RESULT_CHARS = 400  # characters of a result that go back to a model
CLIPPED = " [clipped]"  # ends a result text that was cut, so the model can tell that text is missing


def clip(value: object, limit: int | None = 40) -> str:
    """str(value), cut to limit characters (None: no limit). Never raises: a value that cannot be
    turned into text (its __str__ raises, it is nested too deep, an int too long) gives "<TypeName>".

    Example: clip("x" * 50, 3) -> "xxx"
    """
    try:
        text = str(value)
    except Exception:  # RecursionError and ValueError included
        return f"<{type(value).__name__}>"
    return text if limit is None else text[:limit]


class UnknownTool(LookupError):
    """The registry has no tool of that name; the message names it."""


@dataclass(frozen=True)
class ToolResult:
    """The outcome of a call: ok with data, or not ok with error {"code", "message", ...extra}.

    Example: ToolResult.failure(NOT_FOUND, "no ticket T-999").code -> "not_found"
    """

    ok: bool
    data: dict[str, Any] | None = None
    error: dict[str, Any] | None = None

    @classmethod
    def success(cls, data: dict[str, Any]) -> ToolResult:
        """A successful result carrying data (dict). Example: ToolResult.success({"id": "T-501"}).ok -> True"""
        return cls(True, data=data)

    @classmethod
    def failure(cls, code: str, message: str, **extra: Any) -> ToolResult:
        """A failed result: code (one of RESULT_CODES other than OK), message (str), extra keys such as pending_id.

        Raises: ValueError naming the code when it is not one of RESULT_CODES, or is OK.
        Example: ToolResult.failure(NEEDS_APPROVAL, "parked", pending_id="pa-1").error["pending_id"] -> "pa-1"
        """
        if code not in RESULT_CODES or code == OK:
            raise ValueError(f"unknown failure code {clip(code)!r}; expected one of {', '.join(RESULT_CODES[1:])}")
        return cls(False, error={"code": code, "message": message, **extra})

    @property
    def code(self) -> str:
        """OK for a success, else the error code."""
        return OK if self.ok else str((self.error or {}).get("code", TOOL_ERROR))


class ArgsModel(BaseModel):
    """Base of every argument schema: unknown fields are refused, types are strict ("501" is not an int,
    601 is not a str), and a checked value cannot be changed. Give every str field a max_length.

    Example: class LookupDocumentArgs(ArgsModel): doc_id: str = Field(pattern=r"^[a-z0-9-]{1,40}$")
    """

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


# A tool: what a model may ask for, and what the registry needs to check the request and run it.
@dataclass(frozen=True)
class Tool:
    """One tool: name (str), args (pydantic model class), function(arguments: dict, caller: str)
    returning a ToolResult, writes (bool: a consequential write, parked for approval by the gate),
    description (str).

    Example: Tool("lookup_document", LookupDocumentArgs, lambda a, caller: docs.lookup_document(a["doc_id"]))
    """

    name: str
    args: type[BaseModel]
    function: Callable[[dict[str, Any], str], ToolResult]
    writes: bool = False
    description: str = ""


def problems_of(error: ValidationError) -> list[str]:
    """One line per problem in error (a pydantic ValidationError), naming the field; the value is never echoed.

    Example: problems_of(exc) -> ["ticket_id: Field required"]
    """
    return [f"{'.'.join(clip(p) for p in e['loc']) or 'arguments'}: {e['msg']}" for e in error.errors()]


class ToolRegistry:
    """The tools an application offers, by name.

    Example: registry = ToolRegistry(); registry.register(tool); registry.names() -> {"get_ticket"}
    """

    def __init__(self) -> None:
        self._tools: dict[str, Tool] = {}

    def register(self, tool: Tool) -> None:
        """Add a tool. Raises ValueError naming it if the name is taken, TypeError for a non-Tool."""
        if not isinstance(tool, Tool):
            raise TypeError(f"tool must be a Tool, got {type(tool).__name__}")
        if tool.name in self._tools:
            raise ValueError(f"tool {tool.name!r} is already registered")
        self._tools[tool.name] = tool

    def names(self) -> set[str]:
        """The names of all registered tools."""
        return set(self._tools)

    def get(self, name: str) -> Tool:
        """The tool called name. Raises UnknownTool naming it."""
        if not isinstance(name, str) or name not in self._tools:
            raise UnknownTool(f"unknown tool {clip(name)!r}")
        return self._tools[name]

    def validate(self, call: ToolCall) -> list[str]:
        """Problems with a call, each naming the field; an empty list means valid.

        An unknown tool, a non-dict arguments value, a missing field, an extra field, a wrong type,
        a too-long string and arguments too odd to check at all are problems. Never raises.
        Example: registry.validate(ToolCall("c1", "get_ticket", {})) -> ["ticket_id: Field required"]
        """
        if not isinstance(call, ToolCall):
            return [f"call: expected a ToolCall, got {type(call).__name__}"]
        if not isinstance(call.name, str) or call.name not in self._tools:
            return [f"unknown tool {clip(call.name)!r}"]
        if not isinstance(call.arguments, dict):
            return [f"arguments: expected an object, got {type(call.arguments).__name__}"]
        try:
            self._tools[call.name].args.model_validate(call.arguments)
        except ValidationError as exc:
            return problems_of(exc)
        except Exception as exc:  # e.g. nesting so deep that checking it overflows the stack
            return [f"arguments: could not be checked ({type(exc).__name__})"]
        return []

    def execute(self, call: ToolCall, caller: str) -> ToolResult:
        """Validate, then run the tool for caller (str, user id). Never raises.

        Returns: the tool's ToolResult; INVALID_ARGUMENTS naming the problems (or the caller); NOT_FOUND
        for an unknown tool; TOOL_ERROR if the tool raised or returned something that is not a ToolResult.
        Example: registry.execute(ToolCall("c1", "get_ticket", {"ticket_id": "T-501"}), "kwame").ok -> True
        """
        try:
            return self._execute(call, caller)
        except Exception as exc:  # last resort: input so odd that checking it raised
            return ToolResult.failure(INVALID_ARGUMENTS, f"call: could not be checked ({type(exc).__name__})")

    def _execute(self, call: ToolCall, caller: str) -> ToolResult:
        if isinstance(call, ToolCall) and (not isinstance(call.name, str) or call.name not in self._tools):
            return ToolResult.failure(NOT_FOUND, f"unknown tool {clip(call.name)!r}")
        if not isinstance(caller, str):
            return ToolResult.failure(INVALID_ARGUMENTS, f"caller: expected a str, got {type(caller).__name__}")
        if problems := self.validate(call):
            return ToolResult.failure(INVALID_ARGUMENTS, "; ".join(problems))
        tool = self._tools[call.name]
        arguments = tool.args.model_validate(call.arguments).model_dump()  # the checked copy, not the raw
        try:
            result = tool.function(arguments, caller)
        except Exception as exc:  # a tool bug must not escape as a crash; its message may hold secrets
            return ToolResult.failure(TOOL_ERROR, f"tool {call.name} failed: {type(exc).__name__}")
        if not isinstance(result, ToolResult):
            return ToolResult.failure(TOOL_ERROR, f"tool {call.name} returned {type(result).__name__}")
        return result


def result_text(result: ToolResult, limit: int = MAX_RESULT_CHARS) -> str:
    """The text a model gets back for result: its data as JSON with sorted keys, or
    "error <code>: <message>", at most limit characters; a text that had to be cut ends with CLIPPED.
    Never raises for a ToolResult.

    Args: result (ToolResult); limit (int, characters, more than len(CLIPPED)).
    Raises: ValueError naming limit when it is not an int above len(CLIPPED).
    Example: result_text(ToolResult.failure(NOT_FOUND, "no ticket T-9")) -> "error not_found: no ticket T-9"
    """
    if isinstance(limit, bool) or not isinstance(limit, int) or limit <= len(CLIPPED):
        raise ValueError(f"limit must be an int above {len(CLIPPED)} (characters), got {clip(limit)!r}")
    if result.ok:
        try:
            text = json.dumps(result.data, sort_keys=True, ensure_ascii=False)
        except Exception:  # data a tool should not return (not JSON, a cycle): say so rather than crash
            text = f"<{type(result.data).__name__} that is not JSON>"
    else:
        text = f"error {result.code}: {clip((result.error or {}).get('message', ''), limit=None)}"
    return text if len(text) <= limit else text[: limit - len(CLIPPED)] + CLIPPED


def fingerprint(call: ToolCall) -> str:
    """The tool name plus canonical JSON of the arguments (sorted keys); the call id is ignored.

    Two calls with the same fingerprint would do the same thing. Never raises on odd values: arguments
    that are not JSON data fall back to their text, and arguments with no text at all (too deep, an int
    too long, a __repr__ that raises) to "<dict>"; such arguments never pass validation anyway.
    Example: fingerprint(ToolCall("a", "get_ticket", {"ticket_id": "T-501"})) -> 'get_ticket {"ticket_id":"T-501"}'
    """
    try:
        arguments = json.dumps(call.arguments, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=repr)
    except Exception:  # mixed key types, a cycle, deep nesting, a huge int, a repr that raises
        arguments = clip(call.arguments, limit=None)
    return f"{clip(call.name, limit=None)} {arguments}"
