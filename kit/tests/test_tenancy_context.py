"""A job that carries its tenant runs for that tenant; the ambient slot runs it for whoever came last."""

import pytest
from pydantic import ValidationError

from evidencedesk.tenancy.context import AmbientQueue, Job, JobQueue, MissingTenant, TenantContext

A = TenantContext(tenant="quillmere", user="sam")
B = TenantContext(tenant="tidewick", user="sam")


def record(ctx, job):
    return f"{ctx.tenant}:{job.payload}"


def test_context_is_frozen_and_checked():
    with pytest.raises(ValidationError):
        TenantContext(tenant="Quill Mere", user="sam")
    with pytest.raises(ValidationError):
        A.tenant = "tidewick"
    assert A.label() == "quillmere/sam"


def test_queue_refuses_a_job_without_a_tenant():
    with pytest.raises(MissingTenant, match="summarise"):
        JobQueue().enqueue(Job(kind="summarise", payload="T-1501"))
    with pytest.raises(TypeError):
        JobQueue().enqueue("T-1501")


def test_each_job_runs_for_its_own_tenant_whatever_came_after():
    queue = JobQueue()
    queue.enqueue(Job(kind="summarise", payload="T-1501", context=A))
    queue.enqueue(Job(kind="summarise", payload="T-1502", context=B))
    assert queue.run_all(record) == ["quillmere:T-1501", "tidewick:T-1502"]
    assert queue.run_all(record) == []


def test_ambient_slot_runs_the_job_for_the_last_tenant_served():
    queue = AmbientQueue()
    queue.serve(A)
    queue.enqueue(Job(kind="summarise", payload="T-1501", context=A))
    queue.serve(B)
    assert queue.run_all(record) == ["tidewick:T-1501"]


def test_ambient_slot_empty_is_an_error():
    queue = AmbientQueue()
    queue.enqueue(Job(kind="summarise", payload="T-1501"))
    with pytest.raises(MissingTenant):
        queue.run_all(record)
