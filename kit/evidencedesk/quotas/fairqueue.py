"""Who goes next: one bounded FIFO queue shared by every tenant, or a bounded queue per tenant served fairly.

A `Call` is one model call waiting to start, carrying its tenant's TenantContext (page 15) and its size in
tokens. Both queues answer push (False when full: the caller answers 429) and pop(can_start), which returns
the next call whose tenant may start one now (its concurrency limit), or None.
- SharedFifo: one queue for everyone, oldest first. A tenant that sends ten times as much fills it ten times
  as fast, and everyone else waits behind its calls or finds the queue full.
- DeficitRoundRobin: a queue per tenant, visited in turn. Each visit adds the tenant's quantum (tokens, times
  its weight) to its deficit counter, and the tenant's calls start while the counter covers their size; a
  tenant whose queue empties loses what is left, so no one saves up credit. Shreedhar and Varghese, "Efficient
  Fair Queuing using Deficit Round Robin", ACM SIGCOMM 1995, pp. 231-242, https://doi.org/10.1145/217382.217453
  (read 2026-12-03). A call larger than the quantum waits while the counter builds up over several visits, as
  in the paper; a quantum at least as large as the largest call lets every visit start at least one.
Left out: priorities, weighted fair queuing by virtual finish times, and queues that survive a restart.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from evidencedesk.tenancy.context import TenantContext

CanStart = Callable[[str], bool]  # tenant id -> may it start another call now?


class Call(BaseModel):
    """One model call: id (int), context (TenantContext), arrival_s (int, seconds on the clock),
    input_tokens and max_tokens (int > 0). Frozen and strict; raises pydantic.ValidationError naming the field.
    Example: Call(id=1, context=TenantContext(tenant="a", user="u"), arrival_s=0, input_tokens=800, max_tokens=400)
    """

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)
    id: Annotated[int, Field(ge=0)]
    context: TenantContext
    arrival_s: Annotated[int, Field(ge=0)]
    input_tokens: Annotated[int, Field(gt=0)]
    max_tokens: Annotated[int, Field(gt=0)]

    @property
    def tenant(self) -> str:
        """The tenant id, from the context."""
        return self.context.tenant

    @property
    def tokens(self) -> int:
        """The most tokens the call can use: input_tokens + max_tokens, known before the call."""
        return self.input_tokens + self.max_tokens


def _limit(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"limit must be an int >= 1, got {value!r}")
    return value


class SharedFifo:
    """One queue of at most `limit` (int >= 1) calls for all tenants; pop starts the oldest that may start.

    Example: q = SharedFifo(100); q.push(call); q.pop(lambda tenant: True) -> call
    """

    def __init__(self, limit: int) -> None:
        self.limit, self._calls = _limit(limit), deque[Call]()

    def has_room(self, tenant: str) -> bool:
        """True when one more call fits; the tenant does not matter in one shared queue."""
        return len(self._calls) < self.limit

    def push(self, call: Call) -> bool:
        """Queue call (Call) at the back; False (nothing queued) when the queue is full."""
        if not self.has_room(call.tenant):
            return False
        self._calls.append(call)
        return True

    def pop(self, can_start: CanStart) -> Call | None:
        """Remove and return the oldest call whose tenant can_start; None when there is none."""
        for index, call in enumerate(self._calls):
            if can_start(call.tenant):
                del self._calls[index]
                return call
        return None

    def __len__(self) -> int:
        return len(self._calls)


class DeficitRoundRobin:
    """A queue of at most `limit` calls per tenant, served by deficit round robin in tokens.

    Args: limit (int >= 1, calls per tenant); quantum (int >= 1, tokens a tenant earns per visit);
    weights (dict tenant -> int >= 1, default 1: a tenant of weight 2 earns twice the quantum).
    Example: q = DeficitRoundRobin(limit=10, quantum=4096); q.push(call); q.pop(lambda tenant: True)
    """

    def __init__(self, limit: int, quantum: int, weights: dict[str, int] | None = None) -> None:
        self.limit, self.quantum = _limit(limit), _limit(quantum)
        self.weights = dict(weights or {})
        if any(isinstance(w, bool) or not isinstance(w, int) or w < 1 for w in self.weights.values()):
            raise ValueError(f"weights must map tenants to ints >= 1, got {self.weights!r}")
        self.queues: dict[str, deque[Call]] = {}
        self.deficit: dict[str, int] = {}  # tokens each tenant may still start this visit
        self.active = deque[str]()  # tenants with calls waiting, in round order
        self._granted = False  # has the tenant at the head of `active` had its quantum this visit?

    def earns(self, tenant: str) -> int:
        """Tokens the tenant earns per visit: quantum * its weight."""
        return self.quantum * self.weights.get(tenant, 1)

    def has_room(self, tenant: str) -> bool:
        """True when the tenant's own queue has room for one more call."""
        return len(self.queues.get(tenant, ())) < self.limit

    def push(self, call: Call) -> bool:
        """Queue call (Call) at the back of its tenant's queue; False (nothing queued) when that queue is full."""
        if not self.has_room(call.tenant):
            return False
        queue = self.queues.setdefault(call.tenant, deque())
        if not queue:
            self.active.append(call.tenant)
            self.deficit[call.tenant] = 0
        queue.append(call)
        return True

    def _next_tenant(self) -> None:
        self.active.rotate(-1)
        self._granted = False

    def pop(self, can_start: CanStart) -> Call | None:
        """The next call in deficit round robin order among the tenants that
        can_start now; None when there is none."""
        blocked = 0
        while self.active and blocked < len(self.active):
            tenant = self.active[0]
            if not can_start(tenant):  # at its limit: skipped, earns nothing
                blocked += 1
                self._next_tenant()
                continue
            if not self._granted:
                self.deficit[tenant] += self.earns(tenant)
                self._granted = True
            queue = self.queues[tenant]
            if queue[0].tokens > self.deficit[tenant]:  # share spent: next one
                self._next_tenant()
                continue
            call = queue.popleft()
            self.deficit[tenant] -= call.tokens
            if not queue:  # an idle tenant keeps no credit
                self.deficit[tenant] = 0
                self.active.popleft()
                self._granted = False
            return call
        return None

    def __len__(self) -> int:
        return sum(len(q) for q in self.queues.values())
