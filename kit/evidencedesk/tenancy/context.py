"""The tenant a piece of work belongs to, carried explicitly, never read from an ambient "current tenant".

A TenantContext (tenant, user) is made once, where a request is authenticated, and is passed as an
argument to everything that touches data. A background job carries it as a field: JobQueue refuses a job
without one, and the worker hands each job its own context. AmbientQueue is THE BUG, kept to show it: its
jobs carry only their payload, and the worker reads the tenant from a shared "current tenant" slot that the
request handler sets. By the time a queued job runs, that slot holds whichever tenant was served last.
Python's contextvars do not rescue the ambient design across a queue: a job that a worker pulls off a
queue runs in the worker's context, not in the context of the request that queued it. Left out:
authentication (how a request proves its tenant), and queues that outlive the process.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

TENANT_ID = r"^[a-z][a-z0-9-]{0,29}$"  # a tenant id: lower-case letters, digits and "-"
USER_ID = r"^[a-z][a-z0-9_-]{0,39}$"  # a user id, unique only inside its tenant


class MissingTenant(RuntimeError):
    """Work was asked to run without a tenant context; nothing ran."""


class TenantContext(BaseModel):
    """Who is asking: tenant (str, TENANT_ID) and user (str, USER_ID; unique only inside the tenant).

    Frozen and strict. Raises pydantic.ValidationError naming the field.
    Example: TenantContext(tenant="quillmere", user="sam")
    """

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)
    tenant: Annotated[str, Field(pattern=TENANT_ID)]
    user: Annotated[str, Field(pattern=USER_ID)]

    def label(self) -> str:
        """"tenant/user", for logs and keys. Example: TenantContext(tenant="a", user="b").label() -> "a/b\""""
        return f"{self.tenant}/{self.user}"


class Job(BaseModel):
    """One piece of background work: kind (str), payload (str) and the context it runs for (or None).

    Example: Job(kind="summarise", payload="T-1501", context=ctx)
    """

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)
    kind: Annotated[str, Field(min_length=1, max_length=40)]
    payload: Annotated[str, Field(max_length=2000)]
    context: TenantContext | None = None


Handler = Callable[[TenantContext, Job], str]


class JobQueue:
    """Jobs that carry their tenant: enqueue refuses a job without a context; run_all passes each its own.

    Example: q = JobQueue(); q.enqueue(Job(kind="k", payload="p", context=ctx)); q.run_all(handler)
    """

    def __init__(self) -> None:
        self._jobs: list[Job] = []

    def enqueue(self, job: Job) -> None:
        """Queue job (Job). Raises MissingTenant when job.context is None, TypeError for a non-Job."""
        if not isinstance(job, Job):
            raise TypeError(f"job must be a Job, got {type(job).__name__}")
        if job.context is None:
            raise MissingTenant(f"job {job.kind!r}: no tenant context; refusing to queue it")
        self._jobs.append(job)

    def run_all(self, handler: Handler) -> list[str]:
        """Run every queued job in order as handler(job.context, job); returns their results, in order."""
        jobs, self._jobs = self._jobs, []
        return [handler(job.context, job) for job in jobs if job.context is not None]


class AmbientQueue:
    """THE BUG, kept to show it: jobs carry no tenant, and the worker reads a shared "current tenant" slot.

    serve(ctx) is what a request handler does: it sets the slot. run_all(handler) runs each job with
    whatever the slot holds when the job runs, not when it was queued.
    Example: q = AmbientQueue(); q.serve(a); q.enqueue(job); q.serve(b); q.run_all(h)  # runs as b
    """

    def __init__(self) -> None:
        self.current: TenantContext | None = None
        self._jobs: list[Job] = []

    def serve(self, ctx: TenantContext) -> None:
        """A request for ctx (TenantContext) arrives: the slot now holds it."""
        self.current = ctx

    def enqueue(self, job: Job) -> None:
        """Queue job's kind and payload; whatever context it carried is dropped, as the bug does."""
        self._jobs.append(job.model_copy(update={"context": None}))

    def run_all(self, handler: Handler) -> list[str]:
        """Run each job as handler(self.current, job). Raises MissingTenant when the slot is empty."""
        jobs, self._jobs = self._jobs, []
        if jobs and self.current is None:
            raise MissingTenant("no current tenant in the slot")
        return [handler(self.current, job) for job in jobs]  # type: ignore[arg-type]
