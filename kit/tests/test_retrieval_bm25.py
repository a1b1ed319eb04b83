"""Tests of evidencedesk.retrieval.bm25: terms, the formula, ties, statistics from the given chunks only."""

from __future__ import annotations

import math

import pytest

from evidencedesk.llm import estimate_tokens
from evidencedesk.retrieval.bm25 import K1, STOPWORDS, TOP_K, B, BM25Index, Hit, terms
from evidencedesk.retrieval.chunking import Chunk


def chunk(chunk_id: str, text: str) -> Chunk:
    return Chunk(chunk_id, chunk_id.split("#")[0], "kettlewise", "", 0, text, estimate_tokens(text))


SMALL = (chunk("a#0", "kettle kettle leaks"), chunk("b#0", "toaster leaks"), chunk("c#0", "kettle warranty"))


def test_terms_are_lower_case_words_of_the_visible_text_less_stopwords() -> None:
    assert terms("Can I return the K2 kettle?") == ["return", "k2", "kettle"]
    assert terms("ＫＥＴＴＬＥ ke\u200btle") == ["kettle", "ketle"]  # fullwidth folds; a hidden character goes
    assert terms("the and of") == [] and {"the", "is", "you"} <= STOPWORDS
    assert (K1, B, TOP_K) == (1.2, 0.75, 3)


def test_the_score_is_the_bm25_formula() -> None:
    index = BM25Index(SMALL)
    assert (index.count, index.average_length) == (3, 7 / 3)
    assert index.document_frequency == {"kettle": 2, "leaks": 2, "toaster": 1, "warranty": 1}
    idf = math.log(1 + (3 - 2 + 0.5) / (2 + 0.5))
    assert index.idf("kettle") == pytest.approx(idf)
    expected = idf * 2 * (K1 + 1) / (2 + K1 * (1 - B + B * 3 / (7 / 3)))
    assert index.score("kettle", 0) == pytest.approx(expected)
    both = index.score("kettle warranty", 2)
    one_term = index.idf("kettle") * (K1 + 1) / (1 + K1 * (1 - B + B * 2 / (7 / 3)))
    assert both == pytest.approx(one_term + index.idf("warranty") * (K1 + 1) / (1 + K1 * (1 - B + B * 2 / (7 / 3))))
    assert index.score("kettle kettle", 0) == index.score("kettle", 0)  # a repeated query term counts once


def test_idf_stays_above_zero_even_for_a_term_in_every_chunk() -> None:
    index = BM25Index([chunk("a#0", "kettle one"), chunk("b#0", "kettle two"), chunk("c#0", "kettle three")])
    plain_rsj = math.log((3 - 3 + 0.5) / (3 + 0.5))  # the paper's weight would be negative here
    assert plain_rsj < 0 < index.idf("kettle") < index.idf("one") and index.idf("absent") > index.idf("one")


def test_k1_and_b_do_what_they_say() -> None:
    repeats = [chunk(f"r{n}#0", "kettle " * n + "x") for n in (1, 2, 4)]
    scores = [BM25Index(repeats, b=0.0).score("kettle", i) for i in range(3)]
    assert scores[0] < scores[1] < scores[2] and scores[2] - scores[1] < 2 * (scores[1] - scores[0])  # saturates
    assert scores[2] < BM25Index(repeats).idf("kettle") * (K1 + 1)  # never above idf * (k1 + 1)
    flat = BM25Index(repeats, k1=0.0)
    assert flat.score("kettle", 0) == flat.score("kettle", 2) == flat.idf("kettle")  # k1 = 0: presence only
    short, long = chunk("a#0", "kettle"), chunk("b#0", "kettle " + "word " * 9)
    assert BM25Index([short, long], b=0.0).score("kettle", 0) == BM25Index([short, long], b=0.0).score("kettle", 1)
    assert BM25Index([short, long]).score("kettle", 0) > BM25Index([short, long]).score("kettle", 1)


def test_search_ranks_best_first_positive_scores_only_at_most_k() -> None:
    hits = BM25Index(SMALL).search("kettle warranty", k=5)
    assert [h.chunk.id for h in hits] == ["c#0", "a#0"] and all(isinstance(h, Hit) and h.score > 0 for h in hits)
    assert [h.chunk.id for h in BM25Index(SMALL).search("kettle warranty", k=1)] == ["c#0"]
    assert BM25Index(SMALL).search("blender") == [] and BM25Index([]).search("kettle") == []


def test_ties_are_broken_by_chunk_id_whatever_the_input_order() -> None:
    twins = [chunk("z#0", "kettle leaks"), chunk("m#0", "kettle leaks"), chunk("a#0", "kettle leaks")]
    for order in (twins, twins[::-1], [twins[1], twins[2], twins[0]]):
        hits = BM25Index(order).search("kettle")
        assert [h.chunk.id for h in hits] == ["a#0", "m#0", "z#0"] and len({h.score for h in hits}) == 1


def test_statistics_come_from_the_given_chunks_only() -> None:
    alone = BM25Index(SMALL).search("warranty")[0].score
    more = BM25Index([*SMALL, chunk("d#0", "warranty warranty claim")])
    assert more.search("warranty", among=frozenset({"c#0"}))[0].score != alone  # another chunk moved the score
    assert [h.chunk.id for h in more.search("warranty", among=frozenset({"c#0"}))] == ["c#0"]
    assert BM25Index(SMALL).search("warranty")[0].score == alone  # and the same chunks give the same score


@pytest.mark.parametrize(("kwargs", "error", "message"), [
    ({"k1": -1}, ValueError, "k1 must be"), ({"k1": math.inf}, ValueError, "k1 must be"),
    ({"b": 1.5}, ValueError, "b must be"), ({"b": True}, ValueError, "b must be"),
    ({"chunks": [SMALL[0], "text"]}, TypeError, r"chunks\[1\] must be a Chunk, got str"),
    ({"chunks": [SMALL[0], SMALL[0]]}, ValueError, "two chunks share an id"),
])
def test_bad_index_arguments_are_named(kwargs: dict, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        BM25Index(**{"chunks": SMALL, **kwargs})


@pytest.mark.parametrize("k", [0, -1, True, 2.0])
def test_a_bad_k_is_named(k: object) -> None:
    with pytest.raises(ValueError, match="k must be an int >= 1"):
        BM25Index(SMALL).search("kettle", k)  # type: ignore[arg-type]


def test_the_index_is_frozen_and_search_is_repeatable() -> None:
    index = BM25Index(SMALL)
    with pytest.raises(AttributeError):
        index.k1 = 2.0  # type: ignore[misc]
    assert index.search("kettle leaks") == index.search("kettle leaks") == BM25Index(SMALL).search("kettle leaks")
