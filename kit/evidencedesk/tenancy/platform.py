"""The help desk for several tenants behind one handler, with each classic cross-tenant bug as a switch.

Platform.handle(ctx, op, arg) serves one request for ctx and returns the text that tenant sees. It wires
the modules of this subpackage together: records (stores), the answer cache and the prompt cache
(caches; page 4's PrefixCache stands in for the provider's), a search index per tenant (retrieval), memory
per tenant and user (memory), background jobs that carry their tenant, picked up by the worker between requests (context), an audit log exported
per tenant (audit) and daily limits per tenant (neighbours). Platform(bugs=...) turns on named bugs, one
per classic mistake (BUGS). Two checks read a run of many requests: foreign_data() finds a response that
holds another tenant's name (every tenant's data carries its name, so this is "saw another's data"), and
interference() replays each tenant's requests alone on a fresh platform and finds the first response that
differs: anything another tenant did that changed what this one sees, data or not (a score, a count, a
refusal, a cached prefix). The two are complementary: data that reaches a tenant whatever the others do (a
tenant set up with another's facts) looks the same alone and in company, so only foreign_data sees it.
foreign_data knows a tenant's data by its markers (markers()): the tenant id, which every record, fact,
note and upload id carries, and the ids of its documents; data without a marker goes unseen. The model is
a script: it answers with the facts it was given. Left out: a real model, persistence, concurrency
(requests run one at a time, in the order given).
"""

from __future__ import annotations

import functools
import json
from decimal import Decimal
from collections.abc import Iterable, Sequence

from pydantic import BaseModel, ConfigDict

from evidencedesk import DATA_DIR
from evidencedesk.cache import ResponseCache
from evidencedesk.compaction.promptcache import PrefixCache
from evidencedesk.limits import DailyLimit, UserLimits
from evidencedesk.retrieval.chunking import Document
from evidencedesk.tenancy.audit import AuditLog
from evidencedesk.tenancy.caches import PrefixBuilder, answer_key, tenant_request
from evidencedesk.tenancy.context import AmbientQueue, Job, JobQueue, TenantContext
from evidencedesk.tenancy.memory import TenantMemories
from evidencedesk.tenancy.neighbours import POOL
from evidencedesk.tenancy.retrieval import TenantIndexes, shared_search
from evidencedesk.tenancy.stores import KeyRing, TenantStore
from evidencedesk.usage import ManualClock
from evidencedesk.llm import LLMResponse, Usage

TENANCY_DATA = DATA_DIR / "tenancy"
PREFIX_MIN_TOKENS = 32  # the stand-in provider caches prefixes from 32 tokens (invented; real minimums are larger)
DAILY_CALLS = 12  # requests a tenant may make per day (invented)
OPS = ("put", "get", "ask", "remember", "recall", "job", "upload", "search", "audit", "fail")
BUGS = {  # name -> the classic mistake it switches on
    "cache_key_without_tenant": "the answer cache is keyed on the question alone",
    "shared_prefix": "the prompt prefix is built once and reused for every tenant",
    "unsalted_prompt_cache": "one prompt cache, and no tenant's prefix is unguessable",
    "ambient_job": "a background job reads the tenant from a 'current tenant' slot",
    "trace_in_error": "an error shows recent audit lines of every tenant",
    "memory_by_user": "memory is keyed by user id alone",
    "filter_after_ranking": "one index for all; top k first, then the tenant filter",
    "shared_index_stats": "one index for all, filtered, with its statistics",
    "shared_limit": "one daily allowance shared by every tenant",
}


class Tenant(BaseModel):
    """One tenant of kit/data/tenancy/tenants.json: id, business, users, facts, credential, documents.

    Frozen. Example: load_tenants()[0].id -> "quillmere"
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    business: str
    users: tuple[str, ...]
    facts: str
    credential: str
    documents: tuple[Document, ...]


@functools.lru_cache(maxsize=8)
def load_tenants(path: str | None = None) -> tuple[Tenant, ...]:
    """The synthetic tenants (default kit/data/tenancy/tenants.json), read once per path (they are frozen).

    Raises ValueError naming the tenant and the bad field."""
    data = json.loads((TENANCY_DATA / "tenants.json").read_text(encoding="utf-8") if path is None
                      else open(path, encoding="utf-8").read())
    tenants = []
    for tid, t in data.items():
        try:
            docs = tuple(Document(tenant=tid, **d) for d in t["documents"])
            tenants.append(Tenant(id=tid, business=t["business"], users=tuple(t["users"]), facts=t["facts"],
                                  credential=t["credential"], documents=docs))
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"tenants.json: tenant {tid}: {exc}") from None
    return tuple(tenants)


class Platform:
    """The multi-tenant help desk. bugs: names from BUGS to switch on (default none); tenants: Tenant tuple.

    Raises ValueError naming an unknown bug. Example: Platform().handle(ctx, "ask", "Refund window?")
    """

    def __init__(self, bugs: Iterable[str] = (), tenants: Sequence[Tenant] | None = None) -> None:
        self.bugs = frozenset(bugs)
        if unknown := self.bugs - set(BUGS):
            raise ValueError(f"unknown bug(s): {', '.join(sorted(unknown))}; expected names from BUGS")
        self.tenants = {t.id: t for t in (tenants if tenants is not None else load_tenants())}
        self.clock = ManualClock()
        self.store, self.keys, self.audit = TenantStore(), KeyRing(), AuditLog()
        for t in self.tenants.values():
            self.keys.register(t.id, t.credential)
        self.answers = ResponseCache(max_entries=1000)
        self.prompt_caches: dict[str, PrefixCache] = {}
        self.prefixes = PrefixBuilder(memoise="shared_prefix" in self.bugs)
        self.indexes = TenantIndexes((d for t in self.tenants.values() for d in t.documents),
                                     {t.id: t.users for t in self.tenants.values()})
        self.memories = TenantMemories(self.clock, key_by_user="memory_by_user" in self.bugs)
        self.jobs: JobQueue | AmbientQueue = AmbientQueue() if "ambient_job" in self.bugs else JobQueue()
        self.limits = UserLimits(DailyLimit(max_calls=DAILY_CALLS), self.clock)
        self.traces: dict[str, int] = {}
        self.uploads: dict[str, int] = {}
        self.requests: list[TenantContext] = []  # what a provider-side log would hold: the contexts served

    def handle(self, ctx: TenantContext, op: str, arg: str = "") -> str:
        """Serve one request: op (one of OPS) with arg (str) for ctx. Returns what ctx's tenant sees.

        Raises ValueError naming op when unknown, or ctx's tenant when the platform does not host it.
        """
        if op not in OPS:
            raise ValueError(f"op must be one of {', '.join(OPS)}, got {op!r}")
        if ctx.tenant not in self.tenants:
            raise ValueError(f"tenant {ctx.tenant!r} is not hosted here")
        if isinstance(self.jobs, AmbientQueue):
            self.jobs.serve(ctx)
        key = POOL if "shared_limit" in self.bugs else ctx.tenant
        if self.limits.refusal(key, Decimal(0)):  # calls are what is limited here; credits are not counted
            return "refused: daily limit"
        self.limits.charge(key, Decimal(0))
        self.audit.record(ctx, op, arg)
        self.jobs.run_all(self._summarise)  # the worker picks queued jobs up between requests
        return getattr(self, f"_{op}")(ctx, arg)

    def _put(self, ctx: TenantContext, arg: str) -> str:
        self.store.put(ctx, arg, f"{ctx.tenant} ticket {arg}")
        return f"stored {arg}"

    def _get(self, ctx: TenantContext, arg: str) -> str:
        return self.store.get(ctx, arg) or "not found"

    def _ask(self, ctx: TenantContext, arg: str) -> str:
        facts = self.tenants[ctx.tenant].facts
        key = answer_key(ctx, arg, with_tenant="cache_key_without_tenant" not in self.bugs)
        cached = self.answers.get(key)
        salt = "unsalted_prompt_cache" not in self.bugs
        prefix = self.prefixes.prefix(ctx, facts, salt)
        request = tenant_request(ctx, facts, arg, salt=salt)
        request = type(request)(request.model, (*prefix, request.messages[-1]), request.max_tokens)
        if cached is None:  # the scripted model answers from the facts block it was given
            said = prefix[1].content.removeprefix("<facts>\n").removesuffix("\n</facts>")
            cached = LLMResponse(f"From the facts: {said}", request.model, Usage())
            self.answers.put(key, cached)
            scope = "all" if "unsalted_prompt_cache" in self.bugs else ctx.tenant
            read = self.prompt_caches.setdefault(scope, PrefixCache(self.clock, PREFIX_MIN_TOKENS)).read(request)
            return f"{cached.text} [prefix {read.outcome}]"
        return f"{cached.text} [answer cache]"

    def _remember(self, ctx: TenantContext, arg: str) -> str:
        return self.memories.for_context(ctx).write(arg, f"{ctx.tenant} noted {arg}", "user:turn-1").code

    def _recall(self, ctx: TenantContext, arg: str) -> str:
        return "; ".join(n.text for n in self.memories.for_context(ctx).notes()) or "nothing remembered"

    def _job(self, ctx: TenantContext, arg: str) -> str:
        text = self.store.get(ctx, arg) or f"{ctx.tenant} has no ticket {arg}"
        self.jobs.enqueue(Job(kind="summarise", payload=text, context=ctx))
        return "queued"

    def _summarise(self, job_ctx: TenantContext, job: Job) -> str:
        self.store.put(job_ctx, "summary", f"summary: {job.payload}")
        return job_ctx.tenant

    def _upload(self, ctx: TenantContext, arg: str) -> str:
        self.uploads[ctx.tenant] = self.uploads.get(ctx.tenant, 0) + 1
        doc_id = f"{ctx.tenant}-upload-{self.uploads[ctx.tenant]}"
        self.indexes.add(Document(id=doc_id, tenant=ctx.tenant, owner="", title="upload", text=f"{ctx.tenant} note: {arg}"))
        return f"uploaded {doc_id}"

    def _search(self, ctx: TenantContext, arg: str) -> str:
        if "filter_after_ranking" in self.bugs or "shared_index_stats" in self.bugs:
            order = "rank_first" if "filter_after_ranking" in self.bugs else "filter"
            hits = shared_search(ctx, self.indexes.chunks(), arg, order=order)
        else:
            hits = self.indexes.search(ctx, arg)
        return ", ".join(f"{h.chunk.doc_id} {h.score:.3f}" for h in hits) or "no results"

    def _audit(self, ctx: TenantContext, arg: str) -> str:
        return " | ".join(self.audit.export(ctx))

    def _fail(self, ctx: TenantContext, arg: str) -> str:
        if "trace_in_error" in self.bugs:
            return "error; recent trace: " + " | ".join(self.audit.recent())
        self.traces[ctx.tenant] = self.traces.get(ctx.tenant, 0) + 1
        return f"error; trace id {ctx.tenant}-{self.traces[ctx.tenant]}"


Request = tuple[TenantContext, str, str]  # (who, op, arg)


def run(requests: Iterable[Request], bugs: Iterable[str] = (), tenants: Sequence[Tenant] | None = None) -> list[str]:
    """Play requests in order on a fresh Platform(bugs, tenants); returns each response, in order."""
    platform = Platform(bugs, tenants)
    return [platform.handle(ctx, op, arg) for ctx, op, arg in requests]


def markers(tenants: Sequence[Tenant] | None = None) -> dict[str, tuple[str, ...]]:
    """{tenant id: the strings that mark its data}: the id itself and the ids of its documents.

    Example: markers()["tidewick"] -> ("tidewick", "tw-returns", "tw-recall", "tw-care")
    """
    return {t.id: (t.id, *(d.id for d in t.documents)) for t in (tenants if tenants is not None else load_tenants())}


def foreign_data(requests: Sequence[Request], bugs: Iterable[str] = (),
                 tenants: Sequence[Tenant] | None = None) -> tuple[int, str] | None:
    """The first (index, response) whose text holds another tenant's marker, or None: no tenant saw
    another's data, as far as markers() can tell."""
    marks = markers(tenants)
    for i, ((ctx, _, _), said) in enumerate(zip(requests, run(requests, bugs, tenants))):
        text = said.lower()
        if any(m in text for tenant, ms in marks.items() if tenant != ctx.tenant for m in ms):
            return i, said
    return None


def interference(requests: Sequence[Request], bugs: Iterable[str] = (),
                 tenants: Sequence[Tenant] | None = None) -> tuple[int, str, str] | None:
    """The first (index, response, response alone) where a tenant's response differs from the one it gets
    when only its own requests run, on a fresh platform; None when no tenant can tell the others exist."""
    together = run(requests, bugs, tenants)
    for tenant in dict.fromkeys(ctx.tenant for ctx, _, _ in requests):
        mine = [i for i, (ctx, _, _) in enumerate(requests) if ctx.tenant == tenant]
        alone = run([requests[i] for i in mine], bugs, tenants)
        for i, said in zip(mine, alone):
            if together[i] != said:
                return i, together[i], said
    return None
