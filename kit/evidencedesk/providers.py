"""Two invented providers, Alpha and Beta, and an adapter for each: one LLMRequest out, one LLMResponse back.

Alpha and Beta are made up for this course; no real provider uses either wire format. Each fake server
plays the provider's side from a script, in this process: it reads the JSON body an adapter sends and
answers with a status code and a JSON body (or, for a timeout, raises TimeoutError as a socket would).
The adapters (AlphaClient, BetaClient) are where provider details stop: they encode the neutral request
into the provider's format, decode its reply into an LLMResponse, and turn each provider failure into one
of the kit's errors from llm.py, and each provider's own word for why the model stopped into one of the
kit's stop reasons. Nothing here opens a connection or imports a vendor SDK.
Left out: HTTP itself, real authentication (a fault stands in for a refused key), streaming, tool calls,
and the many fields real providers add.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

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
    Overloaded,
    RateLimited,
    ScriptExhausted,
    ServerError,
    Usage,
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


class _FakeServer:
    """What both fake servers share: a script of replies and faults, and a log of the bodies received."""

    name = "fake"

    def __init__(self, script: list[str | Fault]) -> None:
        self.script = list(script)
        self.used = 0  # script entries answered so far; a refused request uses none
        self.received: list[str] = []  # every body sent to this server, as text

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


class FakeAlphaServer(_FakeServer):
    """The invented provider "Alpha", played in process from a script. Not a real API; no network.

    Reads {"model", "max_output_tokens", "temperature", "input": [{"role", "text"}, ...]} (a script: the
    temperature changes nothing). Answers 200 with
    {"id", "model", "output_text", "finish", "usage": {"input_tokens", "output_tokens"}}, where finish is
    "max_output_tokens" when the reply was cut at the allowance, else "done"; errors use HTTP-style
    status codes: 429 {"error": {"type": "rate_limited", "retry_after_s"}}, 400 {"error": {"type":
    "invalid_request" or "context_length_exceeded", "message"}}, 401 "unauthorized" (BAD_KEY),
    500 "server_error" (SERVER_FAIL) and 529 "overloaded" (OVERLOAD). SLOW raises TimeoutError (no reply
    at all); GARBLE answers 200 with a body cut off halfway. Args: script (list of str replies and Fault).
    Example: AlphaClient(FakeAlphaServer(["Yes."])).complete(request).text -> "Yes."
    """

    name = "alpha"

    def __call__(self, body: str) -> tuple[int, str]:
        sent = self._read(body)
        if sent is None or sent.get("max_output_tokens", 0) > ALPHA_MAX_OUTPUT:
            error = {"type": "invalid_request", "message": f"max_output_tokens must be at most {ALPHA_MAX_OUTPUT}"}
            return 400, json.dumps({"error": error})
        used_in = sum(estimate_tokens(m["text"]) + 4 for m in sent["input"])
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
        text = entry[:sent["max_output_tokens"] * CHARS_PER_TOKEN]  # a model stops at its output allowance
        usage = {"input_tokens": used_in, "output_tokens": estimate_tokens(text)}
        return 200, json.dumps({"id": f"alpha-{self.used}", "model": sent["model"], "output_text": text,
                                "finish": "max_output_tokens" if len(text) < len(entry) else "done", "usage": usage})


class FakeBetaServer(_FakeServer):
    """The invented provider "Beta", played in process from a script. Not a real API; no network.

    Reads {"engine", "system_prompt", "turns": [{"speaker": "human" | "bot", "says"}], "limits":
    {"max_new_tokens"}, "sampling": {"temp"}} (a script: the temperature changes nothing). Answers status 200 even for its own errors: {"ok": true, "engine", "reply":
    {"segments": [...], "halt"}, "meter": {"tokens_in", "tokens_out"}}, where halt is "LIMIT" when the
    reply was cut at the allowance, else "END"; or {"ok": false, "fault": {"code", ...}} with code E_QUOTA
    (and wait_ms), E_DEADLINE, E_INPUT, E_CONTEXT, E_KEY (BAD_KEY), E_INTERNAL (SERVER_FAIL) or E_BUSY
    (OVERLOAD). GARBLE: a proxy in front of Beta answers 502 with an HTML page.
    Args: script (list of str replies and Fault).
    Example: BetaClient(FakeBetaServer(["Yes."])).complete(request).text -> "Yes."
    """

    name = "beta"

    def __call__(self, body: str) -> tuple[int, str]:
        sent = self._read(body)
        if sent is None or sent.get("limits", {}).get("max_new_tokens", 0) > BETA_MAX_NEW:
            detail = f"max_new_tokens must be at most {BETA_MAX_NEW}"
            return 200, json.dumps({"ok": False, "fault": {"code": "E_INPUT", "detail": detail}})
        texts = ([sent["system_prompt"]] if sent["system_prompt"] else []) + [t["says"] for t in sent["turns"]]
        used_in = sum(estimate_tokens(t) + 4 for t in texts)
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
        text = entry[:sent["limits"]["max_new_tokens"] * CHARS_PER_TOKEN]  # stops at its output allowance
        pieces = [text[i:i + BETA_SEGMENT_CHARS] for i in range(0, len(text), BETA_SEGMENT_CHARS)]
        reply = {"segments": pieces, "halt": "LIMIT" if len(text) < len(entry) else "END"}
        meter = {"tokens_in": used_in, "tokens_out": estimate_tokens(text)}
        return 200, json.dumps({"ok": True, "engine": sent["engine"], "reply": reply, "meter": meter})


# --- The adapters: the only code that knows a wire format. ---------------------------------------------

class _Wire(BaseModel):
    """Wire shapes: fields we use must be there with the right type; fields we do not use are ignored."""

    model_config = ConfigDict(extra="ignore", strict=True, frozen=True)


class _AlphaUsage(_Wire):
    input_tokens: int = Field(ge=0)
    output_tokens: int = Field(ge=0)


class _AlphaOk(_Wire):
    model: str
    output_text: str
    finish: str
    usage: _AlphaUsage


class _AlphaError(_Wire):
    type: str
    message: str = ""
    retry_after_s: float = Field(default=0.0, ge=0, allow_inf_nan=False)


class _BetaMeter(_Wire):
    tokens_in: int = Field(ge=0)
    tokens_out: int = Field(ge=0)


class _BetaReply(_Wire):
    segments: list[str]
    halt: str


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


def _plain(request: LLMRequest, provider: str) -> None:
    """Refuse what the invented providers cannot take (tools, a response schema), rather than drop it unsaid."""
    if request.tools or request.response_format != TEXT:
        raise LLMInputError(f"{provider} takes no tools and no response_format; this kit's adapters send text only")


def encode_alpha(request: LLMRequest) -> str:
    """The Alpha body for a request: every message in order, roles unchanged, and the temperature.

    Raises: LLMInputError for a request with tools or a response_format (Alpha takes neither).
    Example: encode_alpha(request)
    """
    _plain(request, "alpha")
    messages = [{"role": m.role, "text": m.content} for m in request.messages]
    return json.dumps({"model": request.model, "max_output_tokens": request.max_tokens,
                       "temperature": request.temperature, "input": messages})


def decode_alpha(status: int, text: str) -> LLMResponse:
    """An LLMResponse from Alpha's reply, or the kit error that its status and error type stand for.

    Its finish field becomes the stop reason (ALPHA_FINISH). Raises: RateLimited (429, with retry_after_s),
    BadRequest (400), ContextTooLong (400 context_length_exceeded), AuthFailed (401), ServerError (500),
    Overloaded (529), MalformedResponse (a body that is not Alpha's format, an unknown finish, or an error
    Alpha does not document). Example: decode_alpha(429, '{"error": ...}')
    """
    body = _object("alpha", status, text)
    if status == 200:
        ok = _fit(_AlphaOk, body, "alpha", status)
        if ok.finish not in ALPHA_FINISH:
            raise MalformedResponse(f"status {status}, undocumented finish {ok.finish[:40]!r}", "alpha")
        usage = Usage(ok.usage.input_tokens, ok.usage.output_tokens)
        return LLMResponse(ok.output_text, ok.model, usage, ALPHA_FINISH[ok.finish])
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

    Raises: LLMInputError for a request with tools or a response_format (Beta takes neither).
    """
    _plain(request, "beta")
    system = "\n\n".join(m.content for m in request.messages if m.role == "system")
    turns = [{"speaker": "human" if m.role == "user" else "bot", "says": m.content}
             for m in request.messages if m.role != "system"]
    return json.dumps({"engine": request.model, "system_prompt": system, "turns": turns,
                       "limits": {"max_new_tokens": request.max_tokens}, "sampling": {"temp": request.temperature}})


BETA_FAULTS = {"E_QUOTA": RateLimited, "E_DEADLINE": LLMTimeout, "E_INPUT": BadRequest, "E_CONTEXT": ContextTooLong,
               "E_KEY": AuthFailed, "E_INTERNAL": ServerError, "E_BUSY": Overloaded}


def decode_beta(status: int, text: str) -> LLMResponse:
    """An LLMResponse from Beta's reply. Beta says 200 for its own errors too, so the body decides.

    Its reply's halt field becomes the stop reason (BETA_HALT). Raises: RateLimited (E_QUOTA; wait_ms
    becomes retry_after_s), LLMTimeout (E_DEADLINE), BadRequest (E_INPUT), ContextTooLong (E_CONTEXT),
    AuthFailed (E_KEY), ServerError (E_INTERNAL), Overloaded (E_BUSY), MalformedResponse (not Beta's
    format, an undocumented fault code or halt, a status other than 200).
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
    return LLMResponse("".join(ok.reply.segments), ok.engine, usage, BETA_HALT[ok.reply.halt])


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
