"""How big a chart request may be: measured before any other work, whatever its size; and a
line over thousands of labels names a readable number of them on its axis."""

from __future__ import annotations

import json
from typing import Any

import pytest

from dataagent.charts import ChartLimits, ChartRequest, json_chars, size_problems, vega_lite
from dataagent.charts.spec import MAX_AXIS_LABELS, MAX_POINTS_MARKED

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
        (
            _args([{"k": 1, "v": 1}], chart_type="scatter", label="l" * 21),
            "label: a column name has at most 20 characters.",
        ),
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


def test_a_line_over_thousands_of_labels_names_a_readable_number_of_them() -> None:
    names = [f"label {i}" for i in range(3000)]
    request = ChartRequest(
        chart_type="line",
        title="t",
        data=[{"k": n, "v": i} for i, n in enumerate(names)],
        x="k",
        y=["v"],
    )
    spec = vega_lite(request)
    shown = spec["encoding"]["x"]["axis"]["values"]
    assert 0 < len(shown) <= MAX_AXIS_LABELS
    assert shown[:2] == ["label 0", "label 100"]
    assert spec["mark"]["point"] is False  # 3,000 points are a line, not dots
    assert len(spec["data"]["values"]) == 3000  # every point is still drawn

    few = vega_lite(
        ChartRequest(
            chart_type="line",
            title="t",
            data=[{"k": "a", "v": 1}, {"k": "b", "v": 2}],
            x="k",
            y=["v"],
        )
    )
    assert "values" not in few["encoding"]["x"]["axis"]
    assert few["mark"]["point"] is True
    assert MAX_POINTS_MARKED >= 2
