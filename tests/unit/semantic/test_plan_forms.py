"""The richer QueryPlan: metrics, OR-groups, aggregate filters, time windows, comparisons,
top N and shares — how they resolve, and the clear refusals when they cannot."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from pydantic import ValidationError
from tests.fixtures.compiler.compiler_golden import retail_model

from dataagent.errors import DataAgentError, ErrorCode
from dataagent.semantic.compiler import compile_plan
from dataagent.semantic.plan import QueryPlan, TimeWindow
from dataagent.semantic.resolver import validate_plan
from dataagent.semantic.windows import DateRange, previous_range, resolve_window

MODEL = retail_model("duckdb")


def _plan(**parts: Any) -> QueryPlan:
    return QueryPlan.model_validate(parts)


def _refused(match: str, **parts: Any) -> DataAgentError:
    with pytest.raises(DataAgentError, match=match) as caught:
        compile_plan(_plan(**parts), MODEL, "duckdb")
    assert caught.value.code == ErrorCode.VALIDATION_ERROR
    return caught.value


def _window(period: str, grain: str, count: int = 1) -> TimeWindow:
    return TimeWindow.model_validate(
        {"field": "orders.order_date", "period": period, "grain": grain, "count": count}
    )


@pytest.mark.parametrize(
    ("period", "grain", "count", "today", "start", "end"),
    [
        ("last", "month", 6, "2025-12-15", "2025-07-01", "2026-01-01"),
        ("last", "week", 4, "2025-03-12", "2025-02-17", "2025-03-17"),
        ("last", "day", 7, "2025-03-01", "2025-02-23", "2025-03-02"),
        ("to_date", "year", 1, "2025-06-30", "2025-01-01", "2025-07-01"),
        ("to_date", "quarter", 1, "2025-05-05", "2025-04-01", "2025-05-06"),
        ("previous", "quarter", 1, "2025-11-20", "2025-07-01", "2025-10-01"),
        ("previous", "month", 3, "2025-01-31", "2024-10-01", "2025-01-01"),
        ("previous", "year", 1, "2024-02-29", "2023-01-01", "2024-01-01"),
    ],
)
def test_windows_resolve_to_dates(
    period: str, grain: str, count: int, today: str, start: str, end: str
) -> None:
    dates = resolve_window(_window(period, grain, count), dt.date.fromisoformat(today))
    assert dates == DateRange(dt.date.fromisoformat(start), dt.date.fromisoformat(end))


def test_previous_ranges_keep_the_length_or_go_back_a_year() -> None:
    last6 = _window("last", "month", 6)
    dates = resolve_window(last6, dt.date(2025, 12, 15))
    before = previous_range(last6, dates, "previous_period")
    assert before == DateRange(dt.date(2025, 1, 1), dt.date(2025, 7, 1))
    mtd = _window("to_date", "month")
    march = resolve_window(mtd, dt.date(2024, 3, 31))
    # The same stretch of February: all of it, since it has no 30th or 31st.
    assert previous_range(mtd, march, "previous_period") == DateRange(
        dt.date(2024, 2, 1), dt.date(2024, 3, 1)
    )
    leap = resolve_window(_window("to_date", "year"), dt.date(2024, 2, 29))
    assert previous_range(mtd, leap, "previous_year") == DateRange(
        dt.date(2023, 1, 1), dt.date(2023, 3, 1)
    )


def test_the_compiled_query_records_the_window_and_reference_date() -> None:
    plan = _plan(
        metrics=[{"name": "revenue"}],
        time_window={"field": "orders.order_date", "period": "last", "grain": "month", "count": 3},
        compare="previous_period",
    )
    compiled = compile_plan(plan, MODEL, "duckdb", today=dt.date(2025, 5, 20))
    window = compiled.time_window
    assert window is not None and window.reference_date == dt.date(2025, 5, 20)
    assert (window.start, window.end) == (dt.date(2025, 3, 1), dt.date(2025, 6, 1))
    assert (window.previous_start, window.previous_end) == (dt.date(2024, 12, 1), window.start)
    assert compiled.columns == [
        "revenue",
        "revenue_previous",
        "revenue_change",
        "revenue_change_pct",
    ]
    assert any("reference date 2025-05-20" in n for n in compiled.notes)
    # A plan that names its reference date keeps it, whatever today is.
    fixed = plan.model_copy(update={"reference_date": dt.date(2024, 1, 10)})
    assert compile_plan(fixed, MODEL, "duckdb").time_window.reference_date == dt.date(2024, 1, 10)  # type: ignore[union-attr]


def test_metrics_resolve_to_their_aggregates() -> None:
    resolved = validate_plan(
        _plan(metrics=[{"name": "average_order_value", "alias": "aov"}, {"name": "units"}]), MODEL
    )
    assert [m.alias for m in resolved.measures] == ["aov__numerator", "aov__denominator", "units"]
    assert resolved.outputs[0].ratio == ("aov__numerator", "aov__denominator")
    assert resolved.measures[0].uses == ("orders",)
    assert resolved.columns == ["aov", "units"]
    assert resolved.referenced_datasets == ["order_items", "orders"]


@pytest.mark.parametrize(
    ("parts", "match"),
    [
        ({"metrics": [{"name": "profit"}]}, "unknown metric 'profit'"),
        ({"metrics": [{"name": "return_rate", "share_of_total": True}]}, "adds up"),
        (
            {"metrics": [{"name": "revenue"}], "having": [{"by": "units", "op": ">", "value": 1}]},
            "not an output column",
        ),
        (
            {
                "metrics": [{"name": "revenue", "share_of_total": True}],
                "having": [{"by": "revenue_share", "op": ">", "value": 0.1}],
            },
            "not an output column",
        ),
        (
            {
                "metrics": [{"name": "revenue"}],
                "having": [{"by": "revenue", "op": "between", "value": 5}],
            },
            "two numbers",
        ),
        (
            {
                "metrics": [{"name": "revenue"}],
                "dimensions": [{"field": "stores.region"}],
                "top": {"n": 3, "by": "revenue", "within": ["channel"]},
            },
            "not an output column",
        ),
        (
            {
                "metrics": [{"name": "revenue"}],
                "time_window": {"field": "stores.region", "period": "last", "grain": "month"},
            },
            "not a date or timestamp",
        ),
        (
            {
                "metrics": [{"name": "revenue"}],
                "time_window": {
                    "field": "orders.order_date",
                    "period": "to_date",
                    "grain": "year",
                    "count": 2,
                },
            },
            "one period",
        ),
        (
            {
                "metrics": [{"name": "revenue"}],
                "dimensions": [{"field": "orders.order_date", "time_grain": "month"}],
                "time_window": {"field": "orders.order_date", "period": "last", "grain": "year"},
                "compare": "previous_period",
            },
            "never line up",
        ),
        (
            {
                "metrics": [
                    {"name": "revenue", "share_of_total": True},
                    {"name": "units", "alias": "revenue_share"},
                ]
            },
            "would appear twice",
        ),
    ],
)
def test_plans_that_cannot_work_are_refused(parts: dict[str, Any], match: str) -> None:
    _refused(match, **parts)


def test_compare_needs_a_window_and_a_plan_needs_output() -> None:
    with pytest.raises(ValidationError, match="compare needs a time_window"):
        _plan(metrics=[{"name": "revenue"}], compare="previous_year")
    with pytest.raises(ValidationError, match="at least one metric"):
        _plan(filters=[{"field": "orders.status", "op": "=", "value": "completed"}])
    with pytest.raises(ValidationError):
        _plan(metrics=[{"name": "revenue"}], filters=[{"any": []}])


def test_an_or_group_across_a_fan_out_is_refused_when_pre_aggregating() -> None:
    # stores.square_feet repeats once per order line: pre-aggregation collapses order_items
    # into a branch, and a condition mixing that branch with stores cannot be split.
    _refused(
        "spans a one-to-many join",
        metrics=[{"name": "selling_area"}],
        dimensions=[{"field": "stores.region"}],
        filters=[
            {
                "any": [
                    {"field": "order_items.quantity", "op": ">", "value": 3},
                    {"field": "stores.city", "op": "=", "value": "Houston"},
                ]
            }
        ],
    )


def test_a_ratio_across_grains_is_pre_aggregated_and_said_so() -> None:
    compiled = compile_plan(
        _plan(metrics=[{"name": "revenue_per_square_foot"}], dimensions=[{"field": "stores.city"}]),
        MODEL,
        "duckdb",
    )
    assert compiled.pre_aggregated
    assert any("metric selling_area would be inflated" in n for n in compiled.notes)
    assert "NULLIF" in compiled.sql and "CAST(" in compiled.sql
    with pytest.raises(DataAgentError, match="double count"):
        compile_plan(
            _plan(
                metrics=[{"name": "revenue_per_square_foot"}], dimensions=[{"field": "stores.city"}]
            ),
            MODEL,
            "duckdb",
            fan_out="refuse",
        )
