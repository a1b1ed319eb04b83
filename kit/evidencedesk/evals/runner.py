"""Run a configuration over golden cases: one request per case, the reply graded, every result kept.

A configuration is what you compare: a name, the instructions (prompt) and the model client, through
the kit's one interface, llm.LLMClient. run_eval sends each case's input as it would in production,
refuses a reply that did not end by itself (llm.require_complete: a cut reply is not an answer, and is
graded INCOMPLETE without reading it), grades the rest with a Grader (cases.grade_case by default), and
returns an EvalRun: the results in case order, with counts by failure code and by tag. The two
configurations of the course, "v1" and "v2", are RecordedModel fakes: each answers a question with the
reply written for it in kit/data/evals/replies.jsonl, invented for the course, and never reads the
prompt. They test graders and statistics, not a model. A provider error is not a wrong answer: it
propagates, and the run is rerun. Left out: concurrency, retries, caching of replies, and cost.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from pydantic import BaseModel, ConfigDict, Field

from evidencedesk.evals.cases import EVALS_DATA, GoldenCase, Grader, grade_case
from evidencedesk.evals.graders import INCOMPLETE, Grade
from evidencedesk.llm import STOP, LLMClient, LLMRequest, LLMResponse, Message, ScriptedClient
from evidencedesk.strictjson import read_jsonl
from evidencedesk.tools import clip

MODEL = "small-model-1"  # the model name both configurations send
MAX_TOKENS = 200  # tokens: the output allowance of every request
PROMPTS = {  # the instructions of the two configurations compared on the course page
    "v1": "You are the help desk's assistant. Answer the question about the ticket.",
    "v2": ("You are the help desk's assistant. Answer with the value alone: one category word, a list of labels "
           "separated by commas, a plain number with no unit, or the JSON object asked for. Cite each policy "
           "you use as [doc-id]."),
}


class ReplyTableError(ValueError):
    """A row of the reply table is malformed; the message names the file, the line and the field."""


class NoRecordedReply(LookupError):
    """A RecordedModel was asked a question it holds no reply for; the message shows the question, clipped."""


class RecordedModel:
    """A fake model that says what it is: it answers a question with the reply recorded for that exact question.

    Args: replies (dict of question (str) -> reply (str)); model (str, the name it reports). It reads only the
    last user message, never the instructions. Like llm.ScriptedClient, it cuts a reply at the request's
    max_tokens (stop_reason LENGTH) and estimates usage. requests keeps every request it received.
    Raises NoRecordedReply (from complete) for a question it has no reply for.
    Example: RecordedModel({"Category?": "refund"}).complete(request).text
    """

    def __init__(self, replies: dict[str, str], model: str = "recorded-1") -> None:
        self.replies, self.model = dict(replies), model
        self.requests: list[LLMRequest] = []

    def complete(self, request: LLMRequest) -> LLMResponse:
        """The recorded reply to the request's last user message. Raises NoRecordedReply."""
        self.requests.append(request)
        question = next((m.content for m in reversed(request.messages) if m.role == "user"), "")
        if question not in self.replies:
            raise NoRecordedReply(f"no recorded reply for {clip(question, 60)!r}")
        return ScriptedClient([self.replies[question]], self.model).complete(request)


@dataclass(frozen=True)
class Config:
    """One configuration under evaluation: name (str), prompt (str, the system message), client (LLMClient).

    Example: Config("v1", PROMPTS["v1"], RecordedModel({...}))
    """

    name: str
    prompt: str
    client: LLMClient


@dataclass(frozen=True)
class Result:
    """One case's result: case_id, tags, the reply (str, as the model wrote it) and its Grade.

    Example: run.result("g17").grade.code -> "not_a_number"
    """

    case_id: str
    tags: tuple[str, ...]
    reply: str
    grade: Grade


@dataclass(frozen=True)
class EvalRun:
    """A configuration's results on a case set, in case order.

    Example: run.passed, run.total, run.codes(), run.by_tag()["refund"]
    """

    config: str
    results: tuple[Result, ...]

    @property
    def passed(self) -> int:
        """Cases that passed (int)."""
        return sum(r.grade.passed for r in self.results)

    @property
    def total(self) -> int:
        """Cases run (int)."""
        return len(self.results)

    def codes(self) -> dict[str, int]:
        """How many cases failed with each code, most common first (ties by code); passes not counted."""
        counts = Counter(r.grade.code for r in self.results if not r.grade.passed)
        return dict(sorted(counts.items(), key=lambda item: (-item[1], item[0])))

    def by_tag(self) -> dict[str, tuple[int, int]]:
        """tag -> (passed, cases) over the cases carrying that tag, tags sorted by name."""
        tags = sorted({t for r in self.results for t in r.tags})
        return {t: (sum(r.grade.passed for r in self.results if t in r.tags), sum(t in r.tags for r in self.results))
                for t in tags}

    def result(self, case_id: str) -> Result:
        """The result of one case. Raises KeyError naming case_id when the run has no such case."""
        for r in self.results:
            if r.case_id == case_id:
                return r
        raise KeyError(f"no result for case {case_id!r}")


def run_eval(cases: list[GoldenCase], config: Config, grader: Grader = grade_case) -> EvalRun:
    """Ask config's model every case's input, in order, and grade each reply.

    Args: cases (list of golden cases, as cases.load_cases returns them); config (Config); grader (Grader,
    called as grader(case, reply); default cases.grade_case). A reply that is no whole answer (cut short,
    asking for tools whatever its stop reason, or refusing, as llm.require_complete reads it) is graded INCOMPLETE
    and never shown to the grader. Returns an EvalRun. Raises ValueError when two cases share
    an id; the client's LLMError (or NoRecordedReply) as it is.
    Example: run_eval(load_cases(), configs(load_cases())["v1"]).passed
    """
    ids = [case.id for case in cases]
    if len(set(ids)) != len(ids):
        raise ValueError(f"case ids must be unique, got {sorted({i for i in ids if ids.count(i) > 1})}")
    results = []
    for case in cases:
        request = LLMRequest(MODEL, [Message("system", config.prompt), Message("user", case.input)], MAX_TOKENS)
        response = config.client.complete(request)
        if response.stop_reason != STOP:
            grade = Grade(False, INCOMPLETE, f"stop_reason {response.stop_reason}: not an answer")
        elif response.tool_calls or response.refusal:  # calls may come with "stop" (llm.require_complete)
            what = "tool calls" if response.tool_calls else "a refusal"
            grade = Grade(False, INCOMPLETE, f"{what} with stop_reason stop: not an answer")
        else:
            grade = grader(case, response.text)
        results.append(Result(case.id, tuple(case.tags), response.text, grade))
    return EvalRun(config.name, tuple(results))


class ReplyRow(BaseModel):
    """One row of replies.jsonl: a case id and the reply each configuration gave (invented)."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)
    id: str = Field(pattern=r"^[a-z][0-9]{2,3}$")
    v1: str = Field(max_length=2000)
    v2: str = Field(max_length=2000)


def configs(cases: list[GoldenCase], path: str | Path | None = None) -> dict[str, Config]:
    """The two configurations of the course page, "v1" and "v2", each a RecordedModel over cases.

    Args: cases (the golden cases; each needs a row); path (str or Path; default kit/data/evals/replies.jsonl).
    Returns {"v1": Config, "v2": Config}. Raises ReplyTableError naming the line and field of a bad row;
    ValueError naming the case ids with no reply row and the rows with no case, or when two cases share an input.
    Example: configs(load_cases())["v2"].prompt
    """
    path = Path(path) if path is not None else EVALS_DATA / "replies.jsonl"
    rows = {row.id: row for _, _, row in read_jsonl(path, ReplyRow.model_validate, ReplyTableError, "reply table")}
    missing, extra = sorted({c.id for c in cases} - set(rows)), sorted(set(rows) - {c.id for c in cases})
    if missing or extra:
        raise ValueError(f"replies and cases differ: no reply for {missing}, no case for {extra}")
    if len({case.input for case in cases}) != len(cases):
        raise ValueError("two cases ask the same input; a RecordedModel tells questions apart by their text")
    made = {}
    for name, prompt in PROMPTS.items():
        replies = {case.input: getattr(rows[case.id], name) for case in cases}
        made[name] = Config(name, prompt, RecordedModel(replies, model=f"recorded-{name}"))
    return made
