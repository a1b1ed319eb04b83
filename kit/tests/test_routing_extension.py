"""The generator of the routing eval set's extension and reply table (evidencedesk.routing.extension)."""

import random
from collections import Counter

import pytest

from evidencedesk.evals.cases import load_cases
from evidencedesk.routing.extension import (
    CASES_FILE,
    OUTCOMES,
    REPLIES_FILE,
    SEED,
    Draws,
    extension_cases,
    generate,
    right_reply,
    write,
    wrong_reply,
)
from evidencedesk.routing.models import ROUTING_DATA, load_replies, load_route_cases


def test_the_committed_files_are_what_the_generator_writes():
    for name, text in generate().items():
        assert (ROUTING_DATA / name).read_text(encoding="utf-8") == text, f"rerun the generator: {name}"


def test_write_puts_both_files_in_the_directory_given(tmp_path):
    paths = write(tmp_path)
    assert sorted(p.name for p in paths) == sorted([CASES_FILE, REPLIES_FILE])
    assert (tmp_path / CASES_FILE).read_text(encoding="utf-8") == generate()[CASES_FILE]


def test_another_seed_gives_other_replies_but_the_same_questions():
    other = generate(SEED + 1)
    assert other[REPLIES_FILE] != generate()[REPLIES_FILE]
    assert other[CASES_FILE].splitlines()[:90] == generate()[CASES_FILE].splitlines()[:90]  # no draws there


def test_draws_stay_in_range_and_refuse_an_empty_range():
    draws = Draws(SEED)
    assert all(0 <= draws.below(7) < 7 for _ in range(200))
    assert {draws.integer(2, 3) for _ in range(50)} == {2, 3}
    with pytest.raises(ValueError, match="n must be >= 1"):
        draws.below(0)


def test_draws_follow_the_algorithm_of_randint_and_shuffle_on_this_python():
    ours, theirs = Draws(5), random.Random(5)
    assert [ours.integer(6000, 6999) for _ in range(20)] == [theirs.randint(6000, 6999) for _ in range(20)]
    mine, stdlib = list(range(30)), list(range(30))
    ours.shuffle(mine)
    theirs.shuffle(stdlib)
    assert mine == stdlib and sorted(mine) == list(range(30))


def test_every_right_reply_passes_and_every_scripted_mistake_fails():
    cases = load_route_cases()[30:]
    for raw, case in zip(extension_cases(Draws(SEED)), cases, strict=True):
        assert case.grade(right_reply(raw)).passed, case.id
        assert not any(case.grade(wrong_reply(raw, style)).passed for style in (0, 1)), case.id


def test_the_extension_lands_in_the_outcome_cells():
    cases = load_route_cases()[30:]
    rows = load_replies(cases)
    cells = Counter((c.grade(rows[c.id].cheap).passed, c.grade(rows[c.id].expensive).passed) for c in cases)
    assert cells == Counter(OUTCOMES)


def test_the_extension_repeats_no_golden_question():
    golden = {c.input for c in load_cases()}
    assert not golden & {c["input"] for c in extension_cases(Draws(SEED))}
