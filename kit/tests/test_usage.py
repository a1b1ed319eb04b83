"""Tests for evidencedesk.usage: clock, price table, ledger, latency percentiles, and the client wrappers."""

from __future__ import annotations

import ast
import json
from decimal import Decimal
from pathlib import Path

import pytest
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from evidencedesk import usage
from evidencedesk.llm import LLMRequest, LLMResponse, LLMTimeout, Message, ScriptedClient, ScriptExhausted, Usage
from evidencedesk.usage import (
    CallTimeout,
    CreditsText,
    Ledger,
    ManualClock,
    Price,
    PriceTableError,
    SlowClient,
    TimedClient,
    TimeoutClient,
    UnknownModel,
    UsageRecord,
    cost_of,
    latency_summary,
    load_prices,
    percentile,
    record_usage,
    request_tokens,
)

TABLE = {"m": Price(Decimal("0.000003"), Decimal("0.000006"))}


def ask(text: str = "hello world") -> LLMRequest:
    return LLMRequest("scripted-1", [Message("user", text)], max_tokens=20)


def test_manual_clock_moves_only_when_advanced() -> None:
    clock = ManualClock(10.0)
    assert clock() == 10.0
    assert clock.advance(2.5) == 12.5 and clock() == 12.5


@pytest.mark.parametrize(
    ("step", "error"),
    [(-0.1, ValueError), ("1", TypeError), (None, TypeError), (float("nan"), ValueError), (float("inf"), ValueError)],
)
def test_manual_clock_rejects_bad_steps(step: object, error: type[Exception]) -> None:
    clock = ManualClock()
    with pytest.raises(error, match="seconds"):
        clock.advance(step)  # type: ignore[arg-type]
    assert clock() == 0.0


@pytest.mark.parametrize("start", [float("nan"), float("-inf"), "0", True])
def test_manual_clock_refuses_a_start_that_is_not_a_finite_number(start: object) -> None:
    with pytest.raises(ValueError, match="start must be a finite number"):
        ManualClock(start)  # type: ignore[arg-type]


def test_kit_price_table_has_the_course_models_as_decimals() -> None:
    table = load_prices()
    assert {"fake-agent-1", "scripted-1", "fixed-plan"} <= set(table)
    assert all(isinstance(p.input, Decimal) and isinstance(p.output, Decimal) for p in table.values())
    assert table["fixed-plan"] == Price(Decimal(0), Decimal(0))


def test_one_agent_step_costs_about_a_thousandth_of_a_credit() -> None:
    step = cost_of(UsageRecord("s1", "fake-agent-1", 250, 40), load_prices())
    assert Decimal("0.0005") <= step <= Decimal("0.002")


@pytest.mark.parametrize(
    ("content", "named"),
    [
        ("not json", "prices.json"),
        ("[]", "prices.json"),
        ("{}", "prices.json"),
        ('{"m1": {"input": "0.1"}}', "'m1'"),
        ('{"m2": {"input": 0.1, "output": "0.1"}}', "'m2'"),
        ('{"m3": {"input": "-1", "output": "0.1"}}', "'m3'"),
        ('{"m4": {"input": "cheap", "output": "0.1"}}', "'m4'"),
        ('{"m5": {"input": "NaN", "output": "0.1"}}', "'m5'"),
        ('{"m6": "0.1"}', "'m6'"),
    ],
)
def test_malformed_price_table_names_file_and_entry(tmp_path: Path, content: str, named: str) -> None:
    path = tmp_path / "prices.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(PriceTableError, match=named):
        load_prices(path)


def test_missing_price_table_is_a_price_table_error(tmp_path: Path) -> None:
    with pytest.raises(PriceTableError, match="nowhere.json"):
        load_prices(tmp_path / "nowhere.json")


def test_cost_is_tokens_times_price_in_exact_decimals() -> None:
    assert cost_of(UsageRecord("c1", "m", 1000, 100), TABLE) == Decimal("0.003600")


def test_cost_of_an_unknown_model_names_it() -> None:
    with pytest.raises(UnknownModel, match="mystery-9"):
        cost_of(UsageRecord("c1", "mystery-9", 1, 1), TABLE)


@pytest.mark.parametrize(("field", "value"), [("input_tokens", -1), ("output_tokens", 1.5), ("input_tokens", "3")])
def test_usage_record_rejects_bad_token_counts(field: str, value: object) -> None:
    values = {"input_tokens": 1, "output_tokens": 1, field: value}
    with pytest.raises(ValueError, match=field):
        UsageRecord("c1", "m", **values)


def test_request_tokens_adds_four_per_message() -> None:
    request = LLMRequest("m", [Message("system", "abcd"), Message("user", "abcdefgh")], max_tokens=5)
    assert request_tokens(request) == (1 + 4) + (2 + 4)


def test_record_usage_takes_model_from_request_and_tokens_from_response() -> None:
    response = LLMResponse("ok", "reported-name", Usage(12, 3))
    assert record_usage(ask(), response, "run-1") == UsageRecord("run-1", "scripted-1", 12, 3)


def test_ledger_keeps_records_in_order_and_totals_them() -> None:
    ledger = Ledger(TABLE)
    ledger.add(UsageRecord("c1", "m", 100, 10))
    ledger.add(UsageRecord("c2", "m", 200, 20))
    assert [r.call_id for r in ledger.records] == ["c1", "c2"]
    summary = ledger.summary()
    assert (summary.calls, summary.input_tokens, summary.output_tokens, summary.tokens) == (2, 300, 30, 330)
    assert summary.cost == Decimal("0.000900") + Decimal("0.000180")


def test_empty_ledger_uses_kit_prices_and_sums_to_zero() -> None:
    ledger = Ledger()
    assert "fake-agent-1" in ledger.table
    assert ledger.summary().cost == Decimal(0) and ledger.summary().calls == 0


def test_ledger_refuses_unknown_models_and_non_records_on_add() -> None:
    ledger = Ledger(TABLE)
    with pytest.raises(UnknownModel, match="other"):
        ledger.add(UsageRecord("c1", "other", 1, 1))
    with pytest.raises(TypeError, match="UsageRecord"):
        ledger.add({"call_id": "c1"})  # type: ignore[arg-type]
    assert ledger.records == ()


def test_slow_client_advances_the_clock_by_base_plus_output_tokens() -> None:
    clock = ManualClock()
    slow = SlowClient(ScriptedClient(["x" * 40]), clock, base_s=0.4, per_output_token_s=0.01)
    response = slow.complete(ask())
    assert response.text == "x" * 40
    assert clock() == pytest.approx(0.4 + 0.01 * 10)


@pytest.mark.parametrize(("base_s", "per_token"), [(-1.0, 0.01), (0.1, -0.01)])
def test_slow_client_rejects_negative_delays(base_s: float, per_token: float) -> None:
    with pytest.raises(ValueError, match="delays"):
        SlowClient(ScriptedClient([]), ManualClock(), base_s, per_token)


@pytest.mark.parametrize(("base_s", "times_out"), [(1.0, False), (1.9, False), (2.1, True), (5.0, True)])
def test_timeout_client_raises_only_over_the_limit(base_s: float, times_out: bool) -> None:
    clock = ManualClock()
    client = TimeoutClient(SlowClient(ScriptedClient(["ok"]), clock, base_s, 0.0), clock, timeout_s=2.0)
    if times_out:
        with pytest.raises(CallTimeout) as caught:
            client.complete(ask())
        assert caught.value.seconds == pytest.approx(base_s) and caught.value.limit == 2.0
    else:
        assert client.complete(ask()).text == "ok"


def test_timeout_client_needs_a_positive_limit() -> None:
    with pytest.raises(ValueError, match="timeout_s"):
        TimeoutClient(ScriptedClient([]), ManualClock(), 0)


def test_kit_price_file_is_valid_json_with_string_prices() -> None:
    from evidencedesk import DATA_DIR

    raw = json.loads((DATA_DIR / "prices.json").read_text(encoding="utf-8"))
    assert all(isinstance(v, str) for entry in raw.values() for v in entry.values())


# Regression tests for the attack findings: only a plain decimal string is a price, and the file is strict JSON.
@pytest.mark.parametrize(
    ("content", "named"),
    [
        ('{"m": {"input": "0.1", "output": "0.1"}, "m": {"input": "0", "output": "0"}}', "repeated key 'm'"),
        ('{"": {"input": "0.1", "output": "0.1"}}', "entry '': a model name"),
        ('{"my model": {"input": "0.1", "output": "0.1"}}', "entry 'my model': a model name"),
        ('{"m1": {"input": "1E+999999999", "output": "0.1"}}', "entry 'm1' must be"),
        ('{"m2": {"input": " 1 ", "output": "0.1"}}', "entry 'm2' must be"),
        ('{"m3": {"input": "1_000", "output": "0.1"}}', "entry 'm3' must be"),
        ('{"m4": {"input": "Infinity", "output": "0.1"}}', "entry 'm4' must be"),
        ('{"m5": {"input": "+1", "output": "0.1"}}', "entry 'm5' must be"),
        ('{"m6": {"input": ".5", "output": "0.1"}}', "entry 'm6' must be"),
        ('{"m7": {"input": "0.1", "output": "0.1", "cached": "0"}}', "entry 'm7' must be"),
        ('{"m8": {"input": NaN, "output": "0.1"}}', "NaN is not a JSON number"),
        ('{"m9": {"input": Infinity, "output": "0.1"}}', "Infinity is not a JSON number"),
        ("[" * 100_000 + "]" * 100_000, "nested more than"),
    ],
)
def test_price_table_takes_plain_decimal_strings_only(tmp_path: Path, content: str, named: str) -> None:
    path = tmp_path / "prices.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(PriceTableError) as exc:
        load_prices(path)
    assert str(exc.value).startswith("prices.json: ") and named in str(exc.value)


def test_plain_decimal_prices_load_exactly(tmp_path: Path) -> None:
    path = tmp_path / "prices.json"
    path.write_text('{"m": {"input": "0.000003", "output": "12"}, "free": {"input": "0", "output": "0.0"}}')
    assert load_prices(path) == {"m": Price(Decimal("0.000003"), Decimal("12")), "free": Price(Decimal(0), Decimal(0))}


# Latency: percentiles over a run of calls, not averages.
@pytest.mark.parametrize(
    ("values", "p", "expected"),
    [
        ([3.0, 1.0, 2.0], 50, 2.0),
        ([1.0, 2.0, 3.0, 4.0], 50, 2.0),  # nearest rank: ceil(0.5 * 4) = 2nd value, never an average of two
        ([0.5] * 19 + [9.0], 95, 0.5),  # the 19th of 20 values
        ([0.5] * 18 + [9.0, 9.5], 95, 9.0),
        ([0.5] * 18 + [9.0, 9.5], 100, 9.5),
        ([7.0], 95, 7.0),
        ([1.0, 2.0], 0.1, 1.0),
    ],
)
def test_percentile_is_the_nearest_rank_value(values: list[float], p: float, expected: float) -> None:
    assert percentile(values, p) == expected
    assert percentile(values, p) in values


@pytest.mark.parametrize(("values", "p", "named"), [([], 50, "values"), ([1.0, float("nan")], 50, "values"),
                                                     ([1.0, float("inf")], 50, "values"), (["1"], 50, "values"),
                                                     ([1.0], 0, "p"), ([1.0], 101, "p"), ([1.0], True, "p"),
                                                     ([1.0], float("nan"), "p")])
def test_percentile_refuses_what_has_no_percentile(values: list, p: object, named: str) -> None:
    with pytest.raises(ValueError, match=named):
        percentile(values, p)  # type: ignore[arg-type]


def test_a_slow_tail_moves_the_mean_and_p95_but_not_p50() -> None:
    fast = latency_summary([0.5] * 20)
    tailed = latency_summary([0.5] * 18 + [6.0, 6.0])
    assert fast.mean_s == fast.p50_s == fast.p95_s == 0.5
    assert tailed.p50_s == 0.5 and tailed.p95_s == 6.0 and tailed.max_s == 6.0
    assert tailed.mean_s == pytest.approx(1.05) and not any(abs(v - tailed.mean_s) < 0.4 for v in [0.5, 6.0])


def test_timed_client_records_every_call_failed_ones_too() -> None:
    clock = ManualClock()
    inner = ScriptedClient(["x" * 40, "y"])
    timed = TimedClient(SlowClient(inner, clock, base_s=0.4, per_output_token_s=0.01), clock)
    timed.complete(ask())
    timed.complete(ask())
    with pytest.raises(ScriptExhausted):
        timed.complete(ask())
    assert timed.seconds == pytest.approx([0.5, 0.41, 0.0])


def test_call_timeout_is_the_kits_retryable_timeout() -> None:
    error = CallTimeout(2.5, 2.0)
    assert isinstance(error, LLMTimeout) and error.code == "timeout" and error.retryable
    assert str(error) == "call took 2.50 s, limit is 2.00 s"


@pytest.mark.parametrize("timeout_s", [-1.0, float("nan"), float("inf"), "2", True])
def test_timeout_client_needs_a_finite_positive_limit(timeout_s: object) -> None:
    with pytest.raises(ValueError, match="timeout_s"):
        TimeoutClient(ScriptedClient([]), ManualClock(), timeout_s)  # type: ignore[arg-type]


@pytest.mark.parametrize(("base_s", "per_token"), [(float("nan"), 0.01), (0.1, float("inf")), ("1", 0.0)])
def test_slow_client_refuses_delays_that_are_not_finite_numbers(base_s: object, per_token: object) -> None:
    with pytest.raises(ValueError, match="delays"):
        SlowClient(ScriptedClient([]), ManualClock(), base_s, per_token)  # type: ignore[arg-type]


def test_a_cache_hit_is_recorded_free_and_counted() -> None:
    ledger = Ledger(TABLE)
    ledger.add(UsageRecord("c1", "m", 100, 10))
    ledger.add(UsageRecord("c2", "m", 0, 0, cache_hit=True))
    summary = ledger.summary()
    assert (summary.calls, summary.cache_hits, summary.cost) == (2, 1, Decimal("0.000360"))
    assert cost_of(ledger.records[1], TABLE) == 0


@pytest.mark.parametrize(("tokens", "hit"), [((1, 0), True), ((0, 1), True), ((0, 0), "yes")])
def test_a_cache_hit_has_no_tokens_and_is_a_bool(tokens: tuple[int, int], hit: object) -> None:
    with pytest.raises(ValueError, match="cache_hit"):
        UsageRecord("c1", "m", *tokens, cache_hit=hit)  # type: ignore[arg-type]


# Cached input: the input tokens a provider read from its prompt cache, priced at the cached-input price.
def test_a_price_without_its_own_cached_input_takes_the_kit_share() -> None:
    assert usage.CACHED_INPUT_SHARE == Decimal("0.1")
    assert Price(Decimal("0.000003"), Decimal("0.000006")).cached_input == Decimal("0.0000003")
    assert Price(Decimal("0.000003"), Decimal("0.000006"), Decimal("0.0000015")).cached_input == Decimal("0.0000015")
    assert all(p.cached_input == p.input * usage.CACHED_INPUT_SHARE for p in load_prices().values())


def test_a_price_table_entry_may_set_its_own_cached_input(tmp_path: Path) -> None:
    path = tmp_path / "prices.json"
    path.write_text('{"m": {"input": "0.000002", "cached_input": "0.000001", "output": "0.000008"}}')
    assert load_prices(path)["m"] == Price(Decimal("0.000002"), Decimal("0.000008"), Decimal("0.000001"))
    path.write_text('{"m": {"input": "0.000002", "cached_input": 0.000001, "output": "0.000008"}}')
    with pytest.raises(PriceTableError, match="entry 'm' must be an object with 'input' and 'output' \\(and"):
        load_prices(path)


def test_cached_input_tokens_cost_the_cached_price_and_the_rest_full_price() -> None:
    record = UsageRecord("c2", "m", 1000, 10, cached_input_tokens=800)
    # 200 fresh input tokens at 0.000003, 800 cached at 0.0000003, 10 output at 0.000006
    assert cost_of(record, TABLE) == Decimal("0.000600") + Decimal("0.00024") + Decimal("0.000060")
    assert cost_of(record, TABLE) < cost_of(UsageRecord("c1", "m", 1000, 10), TABLE)
    assert str(cost_of(UsageRecord("c3", "m", 1000, 10, cached_input_tokens=0), TABLE)) == "0.003060"  # as before


@pytest.mark.parametrize(("cached", "match"), [(101, "must not exceed input_tokens"), (-1, "non-negative int"),
                                               (True, "non-negative int"), ("5", "non-negative int")])
def test_cached_input_tokens_are_a_part_of_the_input(cached: object, match: str) -> None:
    with pytest.raises(ValueError, match=f"cached_input_tokens.*{match}|{match}"):
        UsageRecord("c1", "m", 100, 10, cached_input_tokens=cached)  # type: ignore[arg-type]


def test_record_usage_and_the_ledger_carry_cached_input_tokens() -> None:
    response = LLMResponse("ok", "m", Usage(400, 5, cached_input_tokens=300))
    record = record_usage(ask(), response, "run-1")
    assert record == UsageRecord("run-1", "scripted-1", 400, 5, cached_input_tokens=300)
    ledger = Ledger({"scripted-1": TABLE["m"]})
    ledger.add(record)
    ledger.add(UsageRecord("run-2", "scripted-1", 100, 5))
    summary = ledger.summary()
    assert (summary.input_tokens, summary.cached_input_tokens) == (500, 300)
    assert summary.cost == cost_of(record, ledger.table) + cost_of(ledger.records[1], ledger.table)


def test_usage_shows_cached_input_tokens_only_when_there_are_some() -> None:
    assert repr(Usage(30, 13)) == "Usage(input_tokens=30, output_tokens=13)"
    assert repr(Usage(30, 13, 16)) == "Usage(input_tokens=30, output_tokens=13, cached_input_tokens=16)"
    assert Usage(30, 13) == Usage(30, 13, 0) != Usage(30, 13, 16)


def test_usage_imports_only_earlier_modules() -> None:
    """llm.py comes first in the course, usage.py second: nothing here imports a later module."""
    tree = ast.parse(Path(usage.__file__).read_text(encoding="utf-8"))
    kit = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
           and node.module and node.module.startswith("evidencedesk")}
    assert kit == {"evidencedesk", "evidencedesk.llm", "evidencedesk.strictjson"}, kit


def test_old_import_paths_still_work() -> None:
    from evidencedesk.llm import request_tokens as moved

    assert request_tokens is moved and usage.MESSAGE_OVERHEAD_TOKENS == 4


# Credits written as text in a data file (the scenario tables' max_cost) --------------------------------


class _Row(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    max_cost: CreditsText | None = Field(default=None, gt=0)


def test_credits_text_reads_a_plain_decimal_string_as_a_decimal() -> None:
    assert _Row.model_validate({"max_cost": "0.005"}).max_cost == Decimal("0.005")
    assert _Row.model_validate({}).max_cost is None


@pytest.mark.parametrize("bad", ["1e3", "-1", " 0.5", "0.5 ", "1_000", "NaN", "", 0.5, 1])
def test_credits_text_refuses_anything_but_a_plain_decimal_string_naming_the_field(bad) -> None:
    with pytest.raises(ValidationError) as error:
        _Row.model_validate({"max_cost": bad})
    assert error.value.errors()[0]["loc"] == ("max_cost",)
