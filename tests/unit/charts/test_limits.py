"""How big a chart request may be: measured before any other work, whatever its size; and a
line over thousands of labels is drawn with a readable number of them."""

from __future__ import annotations

import json
from typing import Any

import pytest
from matplotlib.figure import Figure

from dataagent.charts import ChartLimits, ChartRequest, json_chars, size_problems
from dataagent.charts.render import MAX_TICK_LABELS, _category_ticks

LIMITS = ChartLimits(argument_chars=10_000, rows=50, columns=4, text_chars=20)


def _args(data: list[dict[str, Any]], **more: Any) -> dict[str, Any]:
    return {"chart_type": "bar", "title": "t", "data": data, "x": "k", "y": ["v"]} | more


def test_a_request_within_the_limits_has_no_problems() -> None:
    args = _args([{"k": f"label {i}", "v": i} for i in range(50)])
    assert size_problems(args, LIMITS) == []
    ChartRequest.model_validate(args)


@pytest.mark.parametrize(
    ("args", "problem"),
    [
        (
            _args([{"k": "a" * 15, "v": 1}] * 500),
            "The arguments are over 10,000 characters. Chart aggregated data (GROUP BY in SQL "
            "first): at most 50 rows, labels of at most 20 characters.",
        ),
        (
            _args([{"k": "a", "v": 1}] * 51),
            "data: 51 rows; a chart takes at most 50. Aggregate with SQL first (GROUP BY), or "
            "keep the top rows (ORDER BY ... LIMIT).",
        ),
        (
            _args([{"k": "a", "v": 1}, {"k": "b", "v": 2, "c": 1, "d": 2, "e": 3}]),
            "data: the rows have more than 4 columns; keep only the columns the chart shows.",
        ),
        (
            _args([{"k": "a", "v": 1}, {"k": "b" * 21, "v": 2}]),
            "data: row 2, column 'k': a column name or text value has at most 20 characters; "
            "shorten the labels (e.g. SUBSTR in SQL).",
        ),
        (
            _args([{"k" * 21: "a", "v": 1}]),
            "data: row 1, column 'kkkkkkkkkkkkkkkkkkkk': a column name or text value has at "
            "most 20 characters; shorten the labels (e.g. SUBSTR in SQL).",
        ),
        (_args([{"k": "a", "v": 1}], x="x" * 21), "x: a column name has at most 20 characters."),
        (_args([{"k": "a", "v": 1}], y=["y" * 21]), "y: a column name has at most 20 characters."),
    ],
)
def test_each_limit_is_a_problem_the_model_can_act_on(args: dict[str, Any], problem: str) -> None:
    assert size_problems(args, LIMITS) == [problem]


def test_arguments_of_the_wrong_type_are_left_to_the_request_validation() -> None:
    assert size_problems({"data": "rows", "y": "v", "x": 3}, LIMITS) == []
    assert size_problems({"data": [1, "row", None]}, LIMITS) == []


def test_the_size_is_counted_only_until_past_the_limit() -> None:
    small = {"a": [1, "two", None, {"b": True}]}
    assert json_chars(small, 1000) >= len(json.dumps(small, separators=(",", ":"))) - 4
    huge = [{"label": "x" * 100}] * 1_000_000
    # Stops just past the limit, not after reading a hundred megabytes.
    assert 1000 < json_chars(huge, 1000) < 1300


def test_a_line_over_thousands_of_labels_shows_a_readable_number_of_them() -> None:
    axes = Figure().add_subplot()
    names = [f"label {i}" for i in range(3000)]
    _category_ticks(axes, list(range(3000)), names)
    ticks = axes.get_xticks()
    assert 0 < len(ticks) <= MAX_TICK_LABELS
    assert [t.get_text() for t in axes.get_xticklabels()][:2] == ["label 0", "label 100"]
    few = Figure().add_subplot()
    _category_ticks(few, [0, 1, 2], ["a", "b", "c"])
    assert [t.get_text() for t in few.get_xticklabels()] == ["a", "b", "c"]
