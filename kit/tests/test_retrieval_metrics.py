"""Tests of evidencedesk.retrieval.metrics: the two formulas, phrase labels, and the kit's query set."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evidencedesk.retrieval.access import Library, retrieve
from evidencedesk.retrieval.metrics import (
    Label,
    Query,
    QueryError,
    Score,
    evaluate,
    k_for_budget,
    load_queries,
    mean,
    precision_at_k,
    recall_at_k,
    reciprocal_rank,
    relevant_ids,
    relevant_passages,
)
from evidencedesk.security import Session

LIBRARY = Library.load()
QUERIES = load_queries()


def test_precision_divides_by_k_and_recall_by_the_relevant() -> None:
    assert precision_at_k(["a", "b", "c"], {"a", "c"}, 3) == pytest.approx(2 / 3)
    assert precision_at_k(["a"], {"a"}, 3) == pytest.approx(1 / 3)  # one came back: still divided by 3
    assert precision_at_k(["a", "b"], {"a", "b", "c", "d"}, 1) == 1.0
    assert recall_at_k(["a", "b", "c"], [{"a"}, {"d"}], 3) == 0.5 and recall_at_k(["x", "a"], [{"a"}], 1) == 0.0
    assert recall_at_k(["x", "y", "a"], [{"a"}], 3) == recall_at_k(["a", "x", "y"], [{"a"}], 3) == 1.0  # order ignored


def test_a_passage_in_two_overlapping_chunks_counts_once() -> None:
    assert recall_at_k(["a"], [{"a", "b"}], 1) == 1.0  # one of its two chunks found: the passage is found
    assert recall_at_k(["a", "b"], [{"a", "b"}, {"c"}], 3) == 0.5  # both its chunks: still one passage of two
    passages = relevant_passages(QUERIES[1], LIBRARY.chunks)  # q02: one phrase, sitting in the overlap
    assert len(passages) == 1 and len(passages[0]) == 2 and relevant_ids(QUERIES[1], LIBRARY.chunks) == passages[0]
    assert evaluate(LIBRARY, QUERIES[1:2], 1)[0].recall == 1.0


def test_the_reciprocal_rank_rewards_a_higher_rank_and_is_0_past_k() -> None:
    assert reciprocal_rank(["a", "x", "y"], {"a"}, 3) == 1.0 and reciprocal_rank(["x", "a"], {"a"}, 3) == 0.5
    assert reciprocal_rank(["x", "y", "a"], {"a"}, 3) == pytest.approx(1 / 3)
    assert reciprocal_rank(["x", "a"], {"a"}, 1) == 0.0  # past k
    assert reciprocal_rank([], {"a"}, 3) == 0.0


def test_score_tokens_count_the_chunk_text_handed_over_within_the_budget() -> None:
    spent = {}
    for size, overlap in ((30, 8), (60, 15), (120, 30)):
        library, k = Library.load(size, overlap), k_for_budget(size, 240)
        scores = evaluate(library, QUERIES, k)
        for query, score in zip(QUERIES, scores, strict=True):
            hits = retrieve(Session(query.user), library, query.question, k)
            assert score.tokens == sum(h.chunk.tokens for h in hits) <= k * size
        spent[size] = mean([s.tokens for s in scores])
    assert spent[30] < spent[60] < spent[120] < 240  # an equal cap, unequal spending: read tokens beside recall


def test_an_equal_token_budget_gives_smaller_chunks_a_larger_k() -> None:
    assert [k_for_budget(size, 240) for size in (30, 60, 120)] == [8, 4, 2]
    assert k_for_budget(60, 100) == 1
    for size, budget in ((0, 10), (10, True), (30, 20)):
        with pytest.raises(ValueError, match="size|budget"):
            k_for_budget(size, budget)


def test_a_query_with_one_relevant_chunk_scores_at_most_one_over_k() -> None:
    best = max(precision_at_k(ranked, {"a"}, 3) for ranked in (["a"], ["a", "b", "c"], ["b", "a"]))
    assert best == pytest.approx(1 / 3)


@pytest.mark.parametrize("k", [0, True, 1.5])
def test_bad_k_and_empty_relevant_are_named(k: object) -> None:
    with pytest.raises(ValueError, match="k must be an int >= 1"):
        precision_at_k(["a"], {"a"}, k)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="k must be an int >= 1"):
        recall_at_k(["a"], [{"a"}], k)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="k must be an int >= 1"):
        reciprocal_rank(["a"], {"a"}, k)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="passages must hold at least one passage"):
        recall_at_k(["a"], [], 3)
    with pytest.raises(ValueError, match="passages must hold at least one passage"):
        recall_at_k(["a"], [set()], 3)
    with pytest.raises(ValueError, match="mean of no values"):
        mean([])


def test_the_kit_query_set_resolves_at_every_chunk_size_the_page_uses() -> None:
    assert len(QUERIES) == 11 and {q.user for q in QUERIES} == {"ana", "ravi", "mira", "ifeoma"}
    for size, overlap in ((60, 15), (30, 8), (120, 30)):
        library = Library.load(size, overlap)
        assert all(relevant_ids(q, library.chunks) for q in QUERIES)
    assert len(relevant_ids(QUERIES[1], LIBRARY.chunks)) == 2  # q02's phrase sits in the overlap of two chunks


def test_the_figures_the_page_prints() -> None:
    table = {k: evaluate(LIBRARY, QUERIES, k) for k in (1, 3)}
    assert [s.relevant for s in table[3]] == [1, 1, 1, 2, 1, 1, 1, 1, 1, 1, 1]  # passages: q04 has two labels
    assert [s.found for s in table[3]] == [1, 1, 1, 2, 1, 0, 1, 1, 1, 1, 1]
    assert mean([s.precision for s in table[1]]) == pytest.approx(8 / 11)
    assert mean([s.recall for s in table[1]]) == pytest.approx(8 / 11)
    assert mean([s.precision for s in table[3]]) == pytest.approx(1 / 3)
    assert mean([s.recall for s in table[3]]) == pytest.approx(10 / 11)
    assert mean([s.rr for s in table[3]]) == pytest.approx(9 / 11)  # q05 and q10 found second: 1/2 each
    q06_tokens = sum(h.chunk.tokens for h in retrieve(Session("ana"), LIBRARY, QUERIES[5].question, 3))
    assert table[3][5] == Score("q06", 3, 1, 0, 0.0, 0.0, 0.0, q06_tokens)  # "money back": nothing relevant
    assert q06_tokens > 0  # one chunk came back, about something else: tokens spent, nothing found


def test_a_label_that_matches_nothing_or_that_its_user_cannot_read_is_an_error() -> None:
    missing = Query(id="q99", user="ana", question="?", relevant=[Label(doc="kw-returns", phrase="within 99 days")])
    with pytest.raises(QueryError, match="q99: label 'kw-returns' / 'within 99 days' matches no chunk"):
        relevant_ids(missing, LIBRARY.chunks)
    theirs = Query(id="q98", user="ana", question="lamp returns", relevant=[Label(doc="lh-returns", phrase="14 days")])
    with pytest.raises(QueryError, match="q98: ana may not read the labelled chunk lh-returns#0-"):
        evaluate(LIBRARY, [theirs], 3)
    cased = Query(id="q97", user="ana", question="?", relevant=[Label(doc="kw-returns", phrase="WITHIN 30 DAYS")])
    assert relevant_ids(cased, LIBRARY.chunks) == relevant_ids(QUERIES[0], LIBRARY.chunks)


def test_bad_rows_name_line_and_field(tmp_path: Path) -> None:
    path = tmp_path / "q.jsonl"
    good = {"id": "q01", "user": "ana", "question": "?", "relevant": [{"doc": "kw-returns", "phrase": "refund"}]}
    for change, field in (({"relevant": []}, "relevant"), ({"id": "x1"}, "id"), ({"extra": 1}, "extra"),
                          ({"relevant": [{"doc": "kw-returns", "phrase": "ab"}]}, "relevant.0.phrase")):
        path.write_text(json.dumps(good) + "\n" + json.dumps({**good, "id": "q02", **change}) + "\n", encoding="utf-8")
        with pytest.raises(QueryError, match=f"q.jsonl line 2: field {field}:"):
            load_queries(path)
    path.write_text(json.dumps(good) + "\n" + json.dumps(good) + "\n", encoding="utf-8")
    with pytest.raises(QueryError, match="line 2: field id: repeated id 'q01'"):
        load_queries(path)
