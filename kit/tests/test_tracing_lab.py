"""lab.py: the workload's questions, their scripts, and the outcomes each kind ends with."""

import pytest

from evidencedesk.tracing.lab import KINDS, PATTERN, Question, ask_traced, run_workload, workload
from evidencedesk.tracing.setup import make_tracing
from evidencedesk.usage import ManualClock


def test_each_kind_ends_as_its_script_says():
    reasons = {}
    for kind in KINDS:
        tracing = make_tracing(ManualClock())
        reasons[kind] = ask_traced(tracing, Question("kwame", "triage", kind)).reason
    assert reasons == {"answer": "answered", "lookup": "answered", "research": "answered", "denied": "answered",
                       "overload": "error"}


def test_workload_cycles_through_the_pattern_and_the_clock_moves():
    questions = list(workload(2 * len(PATTERN)))
    assert questions[: len(PATTERN)] == questions[len(PATTERN):] == [Question(*p) for p in PATTERN]
    tracing = make_tracing(ManualClock())
    run_workload(tracing, 3)
    assert tracing.clock() > 0


@pytest.mark.parametrize("bad", [0, True, "3", 10_001])
def test_bad_n_and_bad_question_are_named(bad):
    with pytest.raises(ValueError, match="n must be"):
        list(workload(bad))
    with pytest.raises(ValueError, match="feature"):
        Question("kwame", "billing", "answer")
