"""Two invented providers, Alpha and Beta, and an adapter for each: one LLMRequest out, one LLMResponse back.

Alpha and Beta are made up for this course; no real provider uses either wire format. Each fake server
plays the provider's side from a script, in this process: it reads the JSON body an adapter sends and
answers with a status code and a JSON body (or, for a timeout, raises TimeoutError as a socket would).
The adapters (AlphaClient, BetaClient) are where provider details stop: they encode the neutral request
into the provider's format, decode its reply into an LLMResponse, and turn each provider failure into one
of the kit's errors from llm.py, and each provider's own word for why the model stopped into one of the
kit's stop reasons. Each provider also has its own wire format for tools, as real providers differ:
Alpha sends a list of calls whose arguments are a JSON string the model wrote (it may not parse), and
takes each result back as a "tool" message; Beta sends content parts whose input is an object, and takes
the results of one round back together, as parts of one human turn. Both adapters map calls to the kit's
one shape, llm.ToolCall, and both fake servers refuse a result that answers no call they issued; Beta
also refuses a human turn where text comes before its tool results (Anthropic's rule). Calls count
against the output allowance too: a call cut there comes back with the provider's word for LENGTH and
must not run. A script entry can be a ModelReply: several tool calls at once, calls reported with
another stop word (as a forced call comes back with "stop"), a refusal, or a reply the content policy
withheld.
Left out: HTTP itself, real authentication (a fault stands in for a refused key), streaming, constrained
decoding (the fakes replay their script whatever schema they are sent), and the many fields real
providers add.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from evidencedesk.llm import (
    CHARS_PER_TOKEN,
    CONTENT_FILTER,
    LENGTH,
    STOP,
    TEXT,
    TOOL_CALLS,
    AuthFailed,
    BadRequest,
    ContextTooLong,
    LLMInputError,
    LLMRequest,
    LLMResponse,
    LLMTimeout,
    MalformedResponse,
    Message,
    Overloaded,
    RateLimited,
    ScriptExhausted,
    ServerError,
    ToolCall,
    Usage,
    arguments_text,
    estimate_tokens,
)
from evidencedesk.strictjson import parse_json

Transport = Callable[[str], tuple[int, str]]  # sends a JSON body, returns (status code, body text)

# What a fake server can be scripted to do instead of answering (see Fault).
RATE_LIMIT, SLOW, GARBLE = "rate_limit", "slow", "garble"  # too many requests; no reply in time; a broken body
OVERLOAD, SERVER_FAIL, BAD_KEY = "overload", "server_fail", "bad_key"  # no capacity; an internal error; key refused
FAULTS = (RATE_LIMIT, SLOW, GARBLE, OVERLOAD, SERVER_FAIL, BAD_KEY)
ALPHA_MAX_OUTPUT = 4096  # tokens; Alpha refuses a larger max_output_tokens (invented limit)
BETA_MAX_NEW = 2048  # tokens; Beta refuses a larger max_new_tokens (invented limit)
ALPHA_CONTEXT = 8192  # tokens; Alpha's context window: input plus max_output_tokens (invented limit)
BETA_CONTEXT = 4096  # tokens; Beta's context window: input plus max_new_tokens (invented limit)
# Each provider's own word for why the model stopped, and the kit's stop reason for it (invented words).
ALPHA_FINISH = {"done": STOP, "max_output_tokens": LENGTH, "tool_use": TOOL_CALLS, "safety": CONTENT_FILTER}
BETA_HALT = {"END": STOP, "LIMIT": LENGTH, "TOOL": TOOL_CALLS, "POLICY": CONTENT_FILTER}
BETA_SEGMENT_CHARS = 24  # Beta sends its reply text in pieces of at most this many characters
TOOL_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")  # the tool names both invented providers take
DEFINITION_KEYS = {"name", "description", "parameters"}  # a tool definition, as LLMRequest.tools holds it


@dataclass(frozen=True)
class Fault:
    """A scripted failure for a fake server: kind (one of FAULTS) and wait_s (float, seconds, for RATE_LIMIT).

    Raises: ValueError naming kind or wait_s. Example: Fault(RATE_LIMIT, wait_s=2.0)
    """

    kind: str
    wait_s: float = 1.0

    def __post_init__(self) -> None:
        if self.kind not in FAULTS:
            raise ValueError(f"kind must be one of {FAULTS}, got {self.kind!r}")
        if not isinstance(self.wait_s, int | float) or not 0 <= self.wait_s < 3600:
            raise ValueError(f"wait_s must be seconds from 0 to 3600, got {self.wait_s!r}")


@dataclass(frozen=True)
class ModelReply:
    """A script entry for a reply that is more than text: tool calls, a refusal, or a withheld reply.

    Args: text (str) -- what the model writes besides its calls (or before it was stopped); calls (tuple
    of (name, arguments) pairs, in order; several at once are allowed) -- arguments a dict, or for Alpha a
    str exactly as the model wrote it, which may not parse; filtered (bool) -- the provider's content policy
    withheld the rest; refusal (str) -- the model declines (Alpha: a "refusal" field, as OpenAI's; Beta: halt
    "POLICY", as Anthropic's stop_reason "refusal"); reports (str, "" or a kit stop reason) -- the stop
    reason the server reports instead of its usual one, in its own word (STOP with calls: as Gemini
    reports every call, and OpenAI, measured, a call forced by name in tool_choice). A plain str is ModelReply(text).
    Raises: ValueError naming the field for a call that is not (non-empty name, dict or str), calls
    together with filtered or refusal, or an unknown reports.
    Example: ModelReply(calls=(("get_ticket", {"ticket_id": "T-601"}),))
    """

    text: str = ""
    calls: tuple[tuple[str, dict[str, Any] | str], ...] = ()
    filtered: bool = False
    refusal: str = ""
    reports: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.text, str) or not isinstance(self.filtered, bool) or not isinstance(self.refusal, str):
            raise ValueError("text and refusal must be str and filtered a bool")
        if self.reports not in ("", *ALPHA_FINISH.values()):
            raise ValueError(f"reports must be '' or one of {tuple(ALPHA_FINISH.values())}, got {self.reports!r}")
        calls = tuple(self.calls) if isinstance(self.calls, tuple | list) else None
        if calls is None or not all(isinstance(c, tuple | list) and len(c) == 2 and isinstance(c[0], str) and c[0]
                                    and isinstance(c[1], dict | str) for c in calls):
            raise ValueError("calls must be (name, arguments) pairs: a non-empty str and a dict or a str")
        if calls and (self.filtered or self.refusal):
            raise ValueError("calls: a filtered reply or a refusal carries no calls")
        object.__setattr__(self, "calls", tuple((name, arguments) for name, arguments in calls))


class _FakeServer:
    """What both fake servers share: a script of replies and faults, a log of the bodies received, and the
    ids of the tool calls issued (a tool result must answer one of them)."""

    name = "fake"
    call_prefix = "call"

    def __init__(self, script: list[str | ModelReply | Fault]) -> None:
        self.script = list(script)
        self.used = 0  # script entries answered so far; a refused request uses none
        self.received: list[str] = []  # every body sent to this server, as text
        self.issued: list[str] = []  # the id of every tool call this server sent, in order

    def _issue(self) -> str:
        """A new call id, <prefix>_<n>, never given before by this server."""
        self.issued.append(f"{self.call_prefix}_{len(self.issued) + 1}")
        return self.issued[-1]

    def _unanswered(self, events: list[tuple[str, list[str]]]) -> str:
        """"" when every tool result answers a call this server issued in the message just before it, and every
        call is answered before the conversation goes on; else the problem. events, in conversation order:
        ("calls", ids) for a message (a plain one has none), ("result", [id]) for one tool result."""
        waiting: list[str] = []
        for kind, ids in events:
            if kind == "result":
                if ids[0] not in waiting or ids[0] not in self.issued:
                    return f"tool result {str(ids[0])[:40]!r} answers no call"
                waiting.remove(ids[0])
                continue
            if waiting:
                return f"call {waiting[0]!r} has no tool result"
            waiting = list(ids)
        return f"call {waiting[0]!r} has no tool result" if waiting else ""

    def _read(self, body: str) -> dict[str, Any] | None:
        """Log the body and return it parsed, or None when it is not a JSON object."""
        self.received.append(body)
        try:
            sent = json.loads(body)
        except (TypeError, ValueError):
            return None
        return sent if isinstance(sent, dict) else None

    def _next(self) -> str | Fault:
        """The next script entry. Raises ScriptExhausted when the script is used up."""
        if self.used >= len(self.script):
            raise ScriptExhausted(f"{self.name}: script of {len(self.script)} entries is used up")
        self.used += 1
        return self.script[self.used - 1]


def _is(entry: str | Fault, kind: str) -> bool:
    return isinstance(entry, Fault) and entry.kind == kind


def _fit_calls(calls: tuple[tuple[str, dict[str, Any] | str], ...], room: int) -> tuple[list[tuple[str, str]], bool]:
    """The calls as (name, arguments text) that fit in room characters of output, and whether one was cut.

    A call's arguments count against the output allowance (CHARS_PER_TOKEN characters a token, the kit's
    convention); the call where the allowance ends keeps the arguments written so far, and later calls are
    never written, as a model stops mid-call at its limit.
    """
    fitted: list[tuple[str, str]] = []
    for name, args in calls:
        text = args if isinstance(args, str) else json.dumps(args)
        if len(text) > room:
            return [*fitted, (name, text[:max(room, 0)])], True
        fitted.append((name, text))
        room -= len(text)
    return fitted, False


class FakeAlphaServer(_FakeServer):
    """The invented provider "Alpha", played in process from a script. Not a real API; no network.

    Reads {"model", "max_output_tokens", "temperature", "input": [{"role", "text"}, ...]} (a script: the
    temperature changes nothing), and when given, "tools": [{"name", "description", "input_schema"}] and
    "response_schema". An assistant item may carry "tool_calls"; a {"role": "tool", "call_id", "text"} item
    answers one of them. Answers 200 with
    {"id", "model", "output_text", "finish", "usage": {"input_tokens", "output_tokens"}}, where finish is
    "max_output_tokens" when the reply was cut at the allowance, "safety" when a ModelReply is filtered,
    "tool_use" with "tool_calls": [{"id", "name", "arguments": a JSON string}] when it has calls, else
    "done"; errors use HTTP-style status codes: 429 {"error": {"type": "rate_limited", "retry_after_s"}},
    400 {"error": {"type": "invalid_request" or "context_length_exceeded", "message"}} (invalid_request
    also for a tool result that answers no call it issued, or a call left without its result), 401
    "unauthorized" (BAD_KEY), 500 "server_error" (SERVER_FAIL) and 529 "overloaded" (OVERLOAD). SLOW raises
    TimeoutError (no reply at all); GARBLE answers 200 with a body cut off halfway.
    Args: script (list of str replies, ModelReply and Fault).
    Example: AlphaClient(FakeAlphaServer(["Yes."])).complete(request).text -> "Yes."
    """

    name = "alpha"

    def __call__(self, body: str) -> tuple[int, str]:
        sent = self._read(body)
        if sent is None or sent.get("max_output_tokens", 0) > ALPHA_MAX_OUTPUT:
            error = {"type": "invalid_request", "message": f"max_output_tokens must be at most {ALPHA_MAX_OUTPUT}"}
            return 400, json.dumps({"error": error})
        events = [("result", [m.get("call_id")]) if m["role"] == "tool" else
                  ("calls", [c["id"] for c in m.get("tool_calls", [])]) for m in sent["input"]]
        if problem := self._unanswered(events):
            return 400, json.dumps({"error": {"type": "invalid_request", "message": problem}})
        used_in = sum(estimate_tokens(m["text"]) + 4 for m in sent["input"])
        used_in += sum(estimate_tokens(json.dumps(m["tool_calls"])) for m in sent["input"] if "tool_calls" in m)
        used_in += estimate_tokens(json.dumps(sent["tools"])) if "tools" in sent else 0
        if used_in + sent["max_output_tokens"] > ALPHA_CONTEXT:
            error = {"type": "context_length_exceeded", "message": f"input and output exceed {ALPHA_CONTEXT} tokens"}
            return 400, json.dumps({"error": error})
        entry = self._next()
        if isinstance(entry, Fault) and entry.kind == RATE_LIMIT:
            return 429, json.dumps({"error": {"type": "rate_limited", "retry_after_s": entry.wait_s}})
        if _is(entry, SLOW):
            raise TimeoutError("no reply before the transport's deadline")
        for kind, status, kind_type in ((BAD_KEY, 401, "unauthorized"), (SERVER_FAIL, 500, "server_error"),
                                        (OVERLOAD, 529, "overloaded")):
            if _is(entry, kind):
                return status, json.dumps({"error": {"type": kind_type, "message": kind_type.replace("_", " ")}})
        if isinstance(entry, Fault):  # GARBLE: the connection dropped halfway through the body
            return 200, f'{{"id": "alpha-{self.used}", "output_te'
        reply = entry if isinstance(entry, ModelReply) else ModelReply(entry)
        room = sent["max_output_tokens"] * CHARS_PER_TOKEN
        text = reply.text[:room]  # a model stops at its output allowance, in its text or in a call
        fitted, cut = _fit_calls(reply.calls, room - len(text)) if len(text) == len(reply.text) else ([], True)
        calls = [{"id": self._issue(), "name": name, "arguments": args} for name, args in fitted]
        spent = estimate_tokens(text) + (estimate_tokens(json.dumps(calls)) if calls else 0)
        usage = {"input_tokens": used_in, "output_tokens": spent}
        finish = ("safety" if reply.filtered else "max_output_tokens" if cut else "tool_use" if calls else "done")
        if reply.reports and not cut:
            finish = {reason: word for word, reason in ALPHA_FINISH.items()}[reply.reports]
        answer = {"id": f"alpha-{self.used}", "model": sent["model"], "output_text": text, "finish": finish,
                  "usage": usage}
        answer |= {"refusal": reply.refusal} if reply.refusal else {}
        return 200, json.dumps({**answer, "tool_calls": calls} if calls else answer)


class FakeBetaServer(_FakeServer):
    """The invented provider "Beta", played in process from a script. Not a real API; no network.

    Reads {"engine", "system_prompt", "turns": [{"speaker": "human" | "bot", "says"}], "limits":
    {"max_new_tokens"}, "sampling": {"temp"}} (a script: the temperature changes nothing), and when given,
    "tools": [{"tool", "about", "schema"}]. A bot turn may hold "parts" instead of "says": text parts and
    {"kind": "tool_use", "use_id", "tool", "input"}; the human turn after it answers every use with
    {"kind": "tool_result", "use_id", "content"} parts, which come first (text parts may follow them, never
    precede them: E_INPUT). Answers status 200 even for its own errors:
    {"ok": true, "engine", "reply": {"segments": [...], "halt"}, "meter": {"tokens_in", "tokens_out"}},
    where halt is "LIMIT" when the reply was cut at the allowance, "POLICY" when a ModelReply is filtered,
    else "END"; when the request offers tools (or the reply has calls) the reply holds "parts" instead of
    "segments", and halt is "TOOL" when it has calls. Or {"ok": false, "fault": {"code", ...}} with code
    E_QUOTA (and wait_ms), E_DEADLINE, E_INPUT (also for a tool result that answers no use it issued, or a
    use left without its result), E_CONTEXT, E_KEY (BAD_KEY), E_INTERNAL (SERVER_FAIL) or E_BUSY
    (OVERLOAD). GARBLE: a proxy in front of Beta answers 502 with an HTML page.
    Args: script (list of str replies, ModelReply and Fault).
    Raises: ValueError naming the entry for a ModelReply whose arguments are a str (Beta's input is an object).
    Example: BetaClient(FakeBetaServer(["Yes."])).complete(request).text -> "Yes."
    """

    name = "beta"
    call_prefix = "use"

    def __init__(self, script: list[str | ModelReply | Fault]) -> None:
        super().__init__(script)
        for index, entry in enumerate(self.script):
            if isinstance(entry, ModelReply) and any(isinstance(args, str) for _, args in entry.calls):
                raise ValueError(f"script[{index}]: Beta sends tool input as an object; str arguments are Alpha's")

    def __call__(self, body: str) -> tuple[int, str]:
        sent = self._read(body)
        if sent is None or sent.get("limits", {}).get("max_new_tokens", 0) > BETA_MAX_NEW:
            detail = f"max_new_tokens must be at most {BETA_MAX_NEW}"
            return 200, json.dumps({"ok": False, "fault": {"code": "E_INPUT", "detail": detail}})
        events: list[tuple[str, list[str]]] = []
        for turn in sent["turns"]:
            parts = turn.get("parts", [])
            if turn["speaker"] == "human" and parts:
                kinds = [p["kind"] for p in parts]
                if "text" in kinds and "tool_result" in kinds[kinds.index("text"):]:
                    detail = "tool_result parts must come first in a human turn, before any text"
                    return 200, json.dumps({"ok": False, "fault": {"code": "E_INPUT", "detail": detail}})
                events += [("result", [p.get("use_id")]) for p in parts if p["kind"] == "tool_result"]
            else:
                events.append(("calls", [p["use_id"] for p in parts if p["kind"] == "tool_use"]))
        if problem := self._unanswered(events):
            return 200, json.dumps({"ok": False, "fault": {"code": "E_INPUT", "detail": problem}})
        texts = ([sent["system_prompt"]] if sent["system_prompt"] else []) + [
            t["says"] if "says" in t else json.dumps(t["parts"]) for t in sent["turns"]]
        used_in = sum(estimate_tokens(t) + 4 for t in texts)
        used_in += estimate_tokens(json.dumps(sent["tools"])) if "tools" in sent else 0
        if used_in + sent["limits"]["max_new_tokens"] > BETA_CONTEXT:
            detail = f"input and output exceed {BETA_CONTEXT} tokens"
            return 200, json.dumps({"ok": False, "fault": {"code": "E_CONTEXT", "detail": detail}})
        entry = self._next()
        if isinstance(entry, Fault) and entry.kind == RATE_LIMIT:
            return 200, json.dumps({"ok": False, "fault": {"code": "E_QUOTA", "wait_ms": round(entry.wait_s * 1000)}})
        if _is(entry, SLOW):  # Beta gives up by itself and says so
            return 200, json.dumps({"ok": False, "fault": {"code": "E_DEADLINE", "detail": "generation took too long"}})
        for kind, code in ((BAD_KEY, "E_KEY"), (SERVER_FAIL, "E_INTERNAL"), (OVERLOAD, "E_BUSY")):
            if _is(entry, kind):
                return 200, json.dumps({"ok": False, "fault": {"code": code}})
        if isinstance(entry, Fault):  # GARBLE
            return 502, "<html><body><h1>502 Bad Gateway</h1></body></html>"
        reply = entry if isinstance(entry, ModelReply) else ModelReply(entry)
        room = sent["limits"]["max_new_tokens"] * CHARS_PER_TOKEN
        text = reply.text[:room]  # stops at its output allowance, in its text or in a call
        fitted, cut = _fit_calls(reply.calls, room - len(text)) if len(text) == len(reply.text) else ([], True)
        # Beta parses a call's input itself; a call cut at the limit goes out with the empty object (invented).
        uses = [{"kind": "tool_use", "use_id": self._issue(), "tool": name,
                 "input": json.loads(args) if not cut or n < len(fitted) - 1 else {}}
                for n, (name, args) in enumerate(fitted)]
        halt = ("POLICY" if reply.filtered or reply.refusal else "LIMIT" if cut else "TOOL" if uses else "END")
        if reply.reports and not cut:
            halt = {reason: word for word, reason in BETA_HALT.items()}[reply.reports]
        if sent.get("tools") or uses:  # content parts: the text (if any), then one part per call
            answer: dict[str, Any] = {"parts": ([{"kind": "text", "text": text}] if text else []) + uses, "halt": halt}
        else:
            answer = {"segments": [text[i:i + BETA_SEGMENT_CHARS] for i in range(0, len(text), BETA_SEGMENT_CHARS)],
                      "halt": halt}
        spent = estimate_tokens(text) + (estimate_tokens(json.dumps(uses)) if uses else 0)
        meter = {"tokens_in": used_in, "tokens_out": spent}
        return 200, json.dumps({"ok": True, "engine": sent["engine"], "reply": answer, "meter": meter})


# --- The adapters: the only code that knows a wire format. ---------------------------------------------

class _Wire(BaseModel):
    """Wire shapes: fields we use must be there with the right type; fields we do not use are ignored."""

    model_config = ConfigDict(extra="ignore", strict=True, frozen=True)


class _AlphaUsage(_Wire):
    input_tokens: int = Field(ge=0)
    output_tokens: int = Field(ge=0)


class _AlphaCall(_Wire):
    id: str = Field(min_length=1, max_length=64)
    name: str = Field(min_length=1)
    arguments: str  # JSON text as the model wrote it: it may not parse


class _AlphaOk(_Wire):
    model: str
    output_text: str
    finish: str
    usage: _AlphaUsage
    tool_calls: list[_AlphaCall] = []
    refusal: str = ""  # the model declined (as OpenAI's refusal field); the finish stays "done"


class _AlphaError(_Wire):
    type: str
    message: str = ""
    retry_after_s: float = Field(default=0.0, ge=0, allow_inf_nan=False)


class _BetaMeter(_Wire):
    tokens_in: int = Field(ge=0)
    tokens_out: int = Field(ge=0)


class _BetaText(_Wire):
    kind: Literal["text"]
    text: str


class _BetaUse(_Wire):
    kind: Literal["tool_use"]
    use_id: str = Field(min_length=1, max_length=64)
    tool: str = Field(min_length=1)
    input: dict[str, Any]  # an object: Beta parses the model's arguments itself


class _BetaReply(_Wire):
    segments: list[str] | None = None  # a reply to a request without tools: the text in pieces
    parts: list[Annotated[_BetaText | _BetaUse, Field(discriminator="kind")]] | None = None  # with tools
    halt: str

    @model_validator(mode="after")
    def segments_or_parts(self) -> _BetaReply:
        if (self.segments is None) == (self.parts is None):
            raise ValueError("a reply holds either segments or parts")
        return self


class _BetaOk(_Wire):
    ok: Literal[True]
    engine: str
    reply: _BetaReply
    meter: _BetaMeter


class _BetaFault(_Wire):
    code: str
    detail: str = ""
    wait_ms: int = Field(default=0, ge=0)


def _object(provider: str, status: int, text: str) -> dict[str, Any]:
    """The body as a strict JSON object, or MalformedResponse naming provider, status and the body's start."""
    try:
        data = parse_json(text)
    except (TypeError, ValueError):
        data = None
    if not isinstance(data, dict):
        raise MalformedResponse(f"status {status}, body is not a JSON object: {str(text)[:40]!r}", provider)
    return data


def _fit(shape: type[_Wire], data: object, provider: str, status: int) -> Any:
    """data validated as shape, or MalformedResponse naming the first field that does not fit."""
    try:
        return shape.model_validate(data)
    except ValidationError as exc:
        where = ".".join(str(part) for part in exc.errors()[0]["loc"]) or "body"
        raise MalformedResponse(f"status {status}, {shape.__name__[1:]} does not fit at {where!r}", provider) from None


def tool_definitions(request: LLMRequest) -> list[dict[str, Any]]:
    """The tools a request offers, each read from its JSON text and checked: {"name", "description", "parameters"}.

    Both adapters encode these into their own format. A name is 1-64 letters, digits, "_" or "-"; parameters
    is a JSON schema of type "object"; no name twice.
    Args: request (LLMRequest). Returns: list of dict, in the request's order.
    Raises: LLMInputError naming tools[i] for text that is not such a definition, or a repeated name.
    Example: tool_definitions(request)[0]["name"] -> "get_ticket"
    """
    definitions: list[dict[str, Any]] = []
    for index, text in enumerate(request.tools):
        try:
            found = parse_json(text)
        except ValueError:
            found = None
        if not (isinstance(found, dict) and set(found) == DEFINITION_KEYS and isinstance(found["name"], str)
                and TOOL_NAME.fullmatch(found["name"]) and isinstance(found["description"], str)
                and isinstance(found["parameters"], dict) and found["parameters"].get("type") == "object"):
            raise LLMInputError(f"tools[{index}] must be a tool definition: a JSON object with a name (1-64 of "
                                "A-Z a-z 0-9 _ -), a description and parameters (a JSON schema of type object)")
        if any(d["name"] == found["name"] for d in definitions):
            raise LLMInputError(f"tools[{index}]: a second tool named {found['name']!r}")
        definitions.append(found)
    return definitions


def _response_schema(request: LLMRequest) -> dict[str, Any]:
    """The request's response_format as a JSON schema object. Raises LLMInputError naming response_format."""
    try:
        schema = parse_json(request.response_format)
    except ValueError:
        schema = None
    if not isinstance(schema, dict):
        raise LLMInputError("response_format must be TEXT or a JSON schema object, as JSON text")
    return schema


def _alpha_item(message: Message) -> dict[str, Any]:
    """One message as an Alpha input item: a tool result names its call_id; an assistant's calls go along."""
    if message.role == "tool":
        return {"role": "tool", "call_id": message.tool_call_id, "text": message.content}
    item: dict[str, Any] = {"role": message.role, "text": message.content}
    if message.tool_calls:
        item["tool_calls"] = [{"id": c.id, "name": c.name, "arguments": arguments_text(c)} for c in message.tool_calls]
    return item


def _beta_turns(messages: tuple[Message, ...]) -> list[dict[str, Any]]:
    """The messages other than system as Beta turns: the results of tool calls in a row go into ONE human turn,
    and a user message right after them joins that turn as a text part after the results (Beta, like
    Anthropic's Messages API, takes tool results first in a turn).

    Raises: LLMInputError naming messages[i].tool_calls[j].arguments when they are not a JSON object.
    """
    turns: list[dict[str, Any]] = []
    for index, m in enumerate(messages):
        if m.role == "tool":
            part = {"kind": "tool_result", "use_id": m.tool_call_id, "content": m.content}
            if turns and turns[-1]["speaker"] == "human" and "parts" in turns[-1]:
                turns[-1]["parts"].append(part)
            else:
                turns.append({"speaker": "human", "parts": [part]})
        elif m.tool_calls:
            uses = [{"kind": "tool_use", "use_id": c.id, "tool": c.name, "input": _input(c, f"messages[{index}]"
                     f".tool_calls[{n}].arguments")} for n, c in enumerate(m.tool_calls)]
            text = [{"kind": "text", "text": m.content}] if m.content else []
            turns.append({"speaker": "bot", "parts": text + uses})
        elif m.role == "user" and turns and turns[-1]["speaker"] == "human" and "parts" in turns[-1]:
            turns[-1]["parts"].append({"kind": "text", "text": m.content})  # after the results, never before
        elif m.role != "system":
            turns.append({"speaker": "human" if m.role == "user" else "bot", "says": m.content})
    return turns


def _input(call: ToolCall, where: str) -> dict[str, Any]:
    """A call's arguments as the object Beta takes. Raises LLMInputError naming where."""
    if isinstance(call.arguments, dict):
        return call.arguments
    try:
        found = parse_json(call.arguments)
    except ValueError:
        found = None
    if not isinstance(found, dict):
        raise LLMInputError(f"{where}: Beta takes tool input as a JSON object")
    return found


def _arguments(text: str) -> dict[str, Any] | str:
    """Alpha's arguments: a dict when the text is a strict JSON object, else the text unchanged (refused later)."""
    try:
        found = parse_json(text)
    except ValueError:
        return text
    return found if isinstance(found, dict) else text


def _response(text: str, model: str, usage: Usage, stop: str, calls: tuple[ToolCall, ...],
              provider: str, refusal: str = "") -> LLMResponse:
    """The LLMResponse, or MalformedResponse when a tool stop has no calls or two calls share an id."""
    try:
        return LLMResponse(text, model, usage, stop, calls, refusal)
    except LLMInputError as exc:
        raise MalformedResponse(f"status 200, {exc}", provider) from None


def encode_alpha(request: LLMRequest) -> str:
    """The Alpha body for a request: every message in order, roles unchanged, the temperature, and any tools.

    Tools go as {"name", "description", "input_schema"}; a response_format other than TEXT goes as
    "response_schema". Raises: LLMInputError naming the field for a tool that is not a definition, or a
    response_format that is not a JSON schema. Example: encode_alpha(request)
    """
    body: dict[str, Any] = {"model": request.model, "max_output_tokens": request.max_tokens,
                            "temperature": request.temperature, "input": [_alpha_item(m) for m in request.messages]}
    if request.tools:
        body["tools"] = [{"name": d["name"], "description": d["description"], "input_schema": d["parameters"]}
                         for d in tool_definitions(request)]
    if request.response_format != TEXT:
        body["response_schema"] = _response_schema(request)
    return json.dumps(body)


def decode_alpha(status: int, text: str) -> LLMResponse:
    """An LLMResponse from Alpha's reply, or the kit error that its status and error type stand for.

    Its finish field becomes the stop reason (ALPHA_FINISH), each of its tool_calls a ToolCall whose
    arguments are a dict, or the model's text when it is not a JSON object (with any finish: "done" with
    calls is valid, as a forced call is), and its refusal field the response's refusal.
    Raises: RateLimited (429, with retry_after_s), BadRequest (400), ContextTooLong (400
    context_length_exceeded), AuthFailed (401), ServerError (500), Overloaded (529), MalformedResponse (a body
    that is not Alpha's format, an unknown finish, "tool_use" without calls, calls that share an id, or an
    error Alpha does not document). Example: decode_alpha(429, '{"error": ...}')
    """
    body = _object("alpha", status, text)
    if status == 200:
        ok = _fit(_AlphaOk, body, "alpha", status)
        if ok.finish not in ALPHA_FINISH:
            raise MalformedResponse(f"status {status}, undocumented finish {ok.finish[:40]!r}", "alpha")
        usage = Usage(ok.usage.input_tokens, ok.usage.output_tokens)
        calls = tuple(ToolCall(c.id, c.name, _arguments(c.arguments)) for c in ok.tool_calls)
        return _response(ok.output_text, ok.model, usage, ALPHA_FINISH[ok.finish], calls, "alpha", ok.refusal)
    error = _fit(_AlphaError, body.get("error"), "alpha", status)
    if (status, error.type) == (429, "rate_limited"):
        raise RateLimited("rate limited", "alpha", retry_after_s=error.retry_after_s)
    documented = {(400, "invalid_request"): BadRequest, (400, "context_length_exceeded"): ContextTooLong,
                  (401, "unauthorized"): AuthFailed, (500, "server_error"): ServerError,
                  (529, "overloaded"): Overloaded}
    if (status, error.type) in documented:
        raise documented[status, error.type](error.message or error.type, "alpha")
    raise MalformedResponse(f"status {status}, undocumented error type {error.type[:40]!r}", "alpha")


def encode_beta(request: LLMRequest) -> str:
    """The Beta body: system messages joined into system_prompt; user/assistant become human/bot turns.

    Tool calls go as tool_use parts of a bot turn, their results as tool_result parts of one human turn, and
    the tools offered as {"tool", "about", "schema"}. Raises: LLMInputError naming the field for a
    response_format other than TEXT (Beta has no field for a schema), a tool that is not a definition, or
    call arguments that are not a JSON object.
    """
    if request.response_format != TEXT:
        raise LLMInputError("response_format: beta takes no response schema; put it in the instructions")
    system = "\n\n".join(m.content for m in request.messages if m.role == "system")
    turns = _beta_turns(request.messages)
    body: dict[str, Any] = {"engine": request.model, "system_prompt": system, "turns": turns,
                            "limits": {"max_new_tokens": request.max_tokens}, "sampling": {"temp": request.temperature}}
    if request.tools:
        body["tools"] = [{"tool": d["name"], "about": d["description"], "schema": d["parameters"]}
                         for d in tool_definitions(request)]
    return json.dumps(body)


BETA_FAULTS = {"E_QUOTA": RateLimited, "E_DEADLINE": LLMTimeout, "E_INPUT": BadRequest, "E_CONTEXT": ContextTooLong,
               "E_KEY": AuthFailed, "E_INTERNAL": ServerError, "E_BUSY": Overloaded}


def decode_beta(status: int, text: str) -> LLMResponse:
    """An LLMResponse from Beta's reply. Beta says 200 for its own errors too, so the body decides.

    Its reply's halt field becomes the stop reason (BETA_HALT); its text is the segments joined, or the text
    parts joined, and each tool_use part becomes a ToolCall. Raises: RateLimited (E_QUOTA; wait_ms
    becomes retry_after_s), LLMTimeout (E_DEADLINE), BadRequest (E_INPUT), ContextTooLong (E_CONTEXT),
    AuthFailed (E_KEY), ServerError (E_INTERNAL), Overloaded (E_BUSY), MalformedResponse (not Beta's
    format, an undocumented fault code or halt, "TOOL" without calls, a status other than 200).
    Example: decode_beta(200, '{"ok": false, "fault": {"code": "E_QUOTA", "wait_ms": 1500}}')  # RateLimited
    """
    body = _object("beta", status, text)
    if status != 200:
        raise MalformedResponse(f"status {status}: Beta answers everything with 200", "beta")
    if body.get("ok") is False:
        fault = _fit(_BetaFault, body.get("fault"), "beta", status)
        error = BETA_FAULTS.get(fault.code)
        if error is RateLimited:
            raise RateLimited("quota exceeded", "beta", retry_after_s=fault.wait_ms / 1000)  # ms -> s
        if error is not None:
            raise error(fault.detail or fault.code, "beta")
        raise MalformedResponse(f"status {status}, undocumented fault code {fault.code[:40]!r}", "beta")
    ok = _fit(_BetaOk, body, "beta", status)
    if ok.reply.halt not in BETA_HALT:
        raise MalformedResponse(f"status {status}, undocumented halt {ok.reply.halt[:40]!r}", "beta")
    usage = Usage(ok.meter.tokens_in, ok.meter.tokens_out)
    parts = ok.reply.parts or []
    text = "".join(ok.reply.segments or [p.text for p in parts if isinstance(p, _BetaText)])
    calls = tuple(ToolCall(p.use_id, p.tool, p.input) for p in parts if isinstance(p, _BetaUse))
    return _response(text, ok.engine, usage, BETA_HALT[ok.reply.halt], calls, "beta")


class AlphaClient:
    """An LLMClient for the invented Alpha provider: encode, send through the transport, decode.

    Args: transport (callable: body str -> (status int, body str)), e.g. a FakeAlphaServer.
    Raises (complete): LLMTimeout when the transport raises TimeoutError; the errors of decode_alpha.
    Example: AlphaClient(FakeAlphaServer(["Yes."])).complete(request).text -> "Yes."
    """

    provider = "alpha"

    def __init__(self, transport: Transport) -> None:
        self.transport = transport

    def complete(self, request: LLMRequest) -> LLMResponse:
        """Send one request to Alpha and return its answer as an LLMResponse."""
        try:
            status, text = self.transport(encode_alpha(request))
        except TimeoutError as exc:
            raise LLMTimeout(str(exc), self.provider) from None
        return decode_alpha(status, text)


class BetaClient:
    """An LLMClient for the invented Beta provider: the same interface as AlphaClient, another wire format.

    Args: transport (callable: body str -> (status int, body str)), e.g. a FakeBetaServer.
    Raises (complete): LLMTimeout when the transport raises TimeoutError; the errors of decode_beta.
    Example: BetaClient(FakeBetaServer(["Yes."])).complete(request).text -> "Yes."
    """

    provider = "beta"

    def __init__(self, transport: Transport) -> None:
        self.transport = transport

    def complete(self, request: LLMRequest) -> LLMResponse:
        """Send one request to Beta and return its answer as an LLMResponse."""
        try:
            status, text = self.transport(encode_beta(request))
        except TimeoutError as exc:
            raise LLMTimeout(str(exc), self.provider) from None
        return decode_beta(status, text)
