"""Benchmark: how many random examples a second each property of test_invariants.py reaches.

Not a test (the suite has no timed tests, and pytest does not collect this file). Run it by hand,
from the repo root or the kit folder:

    python kit/tests/bench_properties.py            # 3 seconds per property
    python kit/tests/bench_properties.py 10         # 10 seconds per property

The suite runs each property on the same 1,000 derandomized examples. This script feeds each one
fresh random inputs instead, through Hypothesis's fuzz_one_input (its public way of driving a
@given test from outside: one example, drawn by the test's own strategies, from a buffer of random
bytes). So it measures speed and, as a bonus, searches new inputs: a failing example stops it with
the failing assertion, and the seed to reproduce it (python kit/tests/bench_properties.py 3 SEED).
"valid" counts the examples that ran to the end; the others were rejected while being drawn (an
assume() or a filter), which costs time too.
"""

from __future__ import annotations

import os
import random
import sys
import time
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # so test_invariants and oddvalues import

import test_invariants  # noqa: E402

BUFFER_BYTES = 4096  # random bytes per example; Hypothesis draws each example's choices from them


def properties() -> dict[str, object]:
    """The @given tests of test_invariants, by name, in file order."""
    tests = vars(test_invariants).items()
    return {name: f for name, f in tests if name.startswith("test_") and hasattr(f, "hypothesis")}


def bench(test: object, seconds: float, rng: random.Random) -> tuple[int, int, float]:
    """Run test on random buffers for about `seconds` (wall clock). Returns (examples, valid, elapsed seconds)."""
    fuzz = test.hypothesis.fuzz_one_input  # type: ignore[attr-defined]
    fuzz(rng.randbytes(BUFFER_BYTES))  # warm-up: the first call sets Hypothesis up
    examples = valid = 0
    start = time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        valid += fuzz(rng.randbytes(BUFFER_BYTES)) is not None
        examples += 1
    return examples, valid, elapsed


def main(argv: list[str]) -> int:
    seconds = float(argv[1]) if len(argv) > 1 else 3.0
    seed = int(argv[2]) if len(argv) > 2 else int.from_bytes(os.urandom(4), "big")
    print(f"random inputs (seed {seed}), {seconds:g} s per property, Hypothesis fuzz_one_input")
    print(f"{'property':<60} {'runs/s':>8} {'valid/s':>8} {'runs':>7}")
    for name, test in properties().items():
        rng = random.Random(f"{seed}-{name}")  # one stream per property: a rerun with the seed repeats each one
        try:
            examples, valid, elapsed = bench(test, seconds, rng)
        except AssertionError:
            traceback.print_exc()
            print(f"{name} FAILED on a random input; reproduce: python {argv[0]} {seconds:g} {seed}")
            return 1
        print(f"{name:<60} {examples / elapsed:>8.0f} {valid / elapsed:>8.0f} {examples:>7}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
