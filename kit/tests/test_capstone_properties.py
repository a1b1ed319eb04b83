"""The property runner finds the Hypothesis tests, runs only them, and counts by file."""

import subprocess
import sys

from evidencedesk.capstone.properties import TESTS_DIR, FileResult, property_files, run

SAMPLE = '''
from hypothesis import given, settings, strategies as st

@settings(max_examples=20, derandomize=True, database=None)
@given(st.integers())
def test_holds(n):
    assert n + 0 == n

@settings(max_examples=20, derandomize=True, database=None)
@given(st.integers(min_value=0))
def test_fails(n):
    assert n < 5

def test_plain_example():
    assert False, "an example test: never run by the property runner"
'''


def test_property_files_are_the_test_files_that_import_hypothesis(tmp_path):
    (tmp_path / "test_a.py").write_text("import hypothesis.strategies as st\n", encoding="utf-8")
    (tmp_path / "test_b.py").write_text("from hypothesis import given\n", encoding="utf-8")
    (tmp_path / "test_c.py").write_text("import pytest  # mentions hypothesis only here\n", encoding="utf-8")
    (tmp_path / "helper.py").write_text("import hypothesis\n", encoding="utf-8")
    assert [p.name for p in property_files(tmp_path)] == ["test_a.py", "test_b.py"]
    assert TESTS_DIR / "test_invariants.py" in property_files()


def test_only_given_tests_run_and_each_outcome_is_counted(tmp_path):
    sample = tmp_path / "test_sample_all.py"  # a name of its own: pytest imports each file once per process
    sample.write_text(SAMPLE, encoding="utf-8")
    results, code = run([sample])
    assert code == 1 and len(results) == 1 and (results[0].passed, results[0].failed) == (1, 1)
    assert [n.split("::")[-1] for n in results[0].failures] == ["test_fails"] and not results[0].green


def test_a_selection_keeps_the_rest_out(tmp_path):
    sample = tmp_path / "test_sample_some.py"
    sample.write_text(SAMPLE, encoding="utf-8")
    results, code = run([sample], select="holds")
    assert code == 0 and results == [FileResult(name="test_sample_some.py", passed=1, failed=0)] and results[0].green
    assert run([sample], select="nothing_by_this_name") == ([], 5)


def test_a_run_of_the_kits_files_uses_the_kits_derandomized_profile():
    # a fresh process: Hypothesis' own default draws new examples; the run must load kit/tests/conftest.py
    code = ("from hypothesis import settings\n"
            "from evidencedesk.capstone.properties import TESTS_DIR, run\n"
            "before = settings.default.derandomize\n"
            "results, code = run([TESTS_DIR / 'test_routing_breakeven.py'])\n"
            "after = settings.default\n"
            "print(before, after.derandomize, after.deadline, after.database, code, len(results))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=240)
    assert done.stdout.split() == ["False", "True", "None", "None", "0", "1"], done.stderr[-500:]
