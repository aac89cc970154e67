"""Charts inferred from a result's shape: which chart, which columns, and when none fits."""

from __future__ import annotations

from typing import Any

import pytest

from dataagent.charts import infer_chart

MONTHS = ["2024-01-01", "2024-02-01", "2024-03-01"]


def test_a_date_and_a_measure_make_a_line() -> None:
    chart = infer_chart(["month", "revenue"], [[m, i * 10] for i, m in enumerate(MONTHS)])
    assert chart is not None
    assert (chart.chart_type, chart.x, chart.y, chart.series) == (
        "line",
        "month",
        ["revenue"],
        None,
    )
    assert chart.title == "Revenue by month"
    assert chart.data[1] == {"month": "2024-02-01", "revenue": 10}


def test_a_year_number_is_a_time_axis_but_a_plain_number_is_a_measure() -> None:
    chart = infer_chart(["order_year", "orders"], [[2022, 5], [2023, 7], [2024, 9]])
    assert chart is not None
    assert (chart.chart_type, chart.x, chart.y) == ("line", "order_year", ["orders"])
    assert infer_chart(["price", "quantity"], [[1.5, 3], [2.5, 4]]) is None
    durations = infer_chart(["carrier", "days_to_ship"], [["A", 3], ["B", 5]])
    assert durations is not None
    assert (durations.chart_type, durations.x, durations.y) == ("bar", "carrier", ["days_to_ship"])


def test_a_date_a_label_and_a_measure_make_one_line_per_label() -> None:
    rows = [[m, region, 1] for m in MONTHS for region in ("North", "South")]
    chart = infer_chart(["month", "region", "sales"], rows)
    assert chart is not None
    assert (chart.chart_type, chart.x, chart.y, chart.series) == (
        "line",
        "month",
        ["sales"],
        "region",
    )
    assert chart.title == "Sales by month and region"


def test_too_many_labels_for_lines_make_no_chart() -> None:
    rows = [[MONTHS[i % 3], f"customer {i}", i] for i in range(30)]
    assert infer_chart(["month", "customer", "sales"], rows) is None


def test_a_label_and_a_measure_make_a_bar() -> None:
    rows = [["North", 120.5], ["South", 80], ["East", None], ["West", 10]]
    chart = infer_chart(["region", "revenue"], rows)
    assert chart is not None
    assert (chart.chart_type, chart.x, chart.y) == ("bar", "region", ["revenue"])


def test_like_sized_measures_share_a_bar_chart_and_unlike_ones_do_not() -> None:
    rows = [["North", 1200, 800, 3], ["South", 900, 600, 2]]
    chart = infer_chart(["region", "revenue", "cost", "orders"], rows)
    assert chart is not None
    assert chart.y == ["revenue", "cost"]
    assert chart.title == "Revenue and cost by region"


def test_identifiers_are_labels_not_measures() -> None:
    chart = infer_chart(["customer_id", "total"], [[101, 5.5], [102, 7.25], [103, 1]])
    assert chart is not None
    assert (chart.chart_type, chart.x, chart.y) == ("bar", "customer_id", ["total"])


@pytest.mark.parametrize(
    ("columns", "rows"),
    [
        (["segment", "share"], [["a", 10], ["b", 30], ["c", 60]]),  # named as a share
        (["segment", "customers"], [["a", 0.25], ["b", 0.75]]),  # sums to 1
        (["segment", "customers"], [["a", 45.5], ["b", 54.5]]),  # sums to 100
        (["segment", "pct_of_total"], [["a", "12.5"], ["b", "87.5"]]),  # numeric text
    ],
)
def test_shares_of_a_whole_make_a_pie(columns: list[str], rows: list[list[Any]]) -> None:
    chart = infer_chart(columns, rows)
    assert chart is not None
    assert chart.chart_type == "pie"


@pytest.mark.parametrize(
    ("columns", "rows"),
    [
        (["segment", "customers"], [["a", 10], ["b", 30]]),  # counts, not shares
        (["segment", "share"], [[f"s{i}", 10] for i in range(10)]),  # too many slices
        (["segment", "share"], [["a", 60], ["b", 50], ["a", -10]]),  # negative, repeated
    ],
)
def test_other_label_measures_stay_bars(columns: list[str], rows: list[list[Any]]) -> None:
    chart = infer_chart(columns, rows)
    assert chart is not None
    assert chart.chart_type == "bar"


def test_two_labels_and_a_measure_make_a_stacked_bar_stacking_the_shorter_label() -> None:
    rows = [[p, r, 1] for p in ("tea", "pie") for r in ("N", "S", "E", "W")]
    chart = infer_chart(["product", "region", "sales"], rows)
    assert chart is not None
    assert (chart.chart_type, chart.x, chart.y, chart.series) == (
        "stacked_bar",
        "region",
        ["sales"],
        "product",
    )


def test_rows_may_be_objects() -> None:
    rows = [{"region": "N", "n": 1}, {"region": "S", "n": 2}]
    chart = infer_chart(["region", "n"], rows)
    assert chart is not None
    assert chart.chart_type == "bar"


def test_a_title_can_be_given() -> None:
    chart = infer_chart(["region", "n"], [["N", 1], ["S", 2]], title="Orders")
    assert chart is not None
    assert chart.title == "Orders"


def test_two_measures_alone_make_a_scatter_of_the_second_against_the_first() -> None:
    rows = [[1.5, 3], [2.5, 4], [4.0, 9], [2.5, 5]]
    chart = infer_chart(["price", "quantity"], rows)
    assert chart is not None
    assert (chart.chart_type, chart.x, chart.y, chart.series, chart.label) == (
        "scatter",
        "price",
        ["quantity"],
        None,
        None,
    )
    assert chart.title == "Quantity against price"
    assert chart.data[3] == {"price": 2.5, "quantity": 5}


def test_a_label_beside_two_unlike_measures_names_the_points_of_a_scatter() -> None:
    rows = [["Oslo", 120_000, 40], ["Rome", 90_000, 31], ["Lima", 30_000, 12]]
    chart = infer_chart(["store", "revenue", "orders"], rows)
    assert chart is not None
    assert (chart.chart_type, chart.x, chart.y, chart.label) == (
        "scatter",
        "revenue",
        ["orders"],
        "store",
    )
    assert chart.data[0] == {"revenue": 120_000, "orders": 40, "store": "Oslo"}


@pytest.mark.parametrize(
    ("columns", "rows", "chart_type"),
    [
        # like-sized measures compare best side by side
        (["store", "revenue", "cost"], [["a", 1200, 800], ["b", 900, 700], ["c", 300, 90]], "bar"),
        # a label repeated: the rows are not points of one thing each
        (["store", "revenue", "orders"], [["a", 1200, 8], ["a", 900, 7], ["c", 300, 1]], "bar"),
        # a time axis wins: two measures over time are lines
        (
            ["month", "revenue", "orders"],
            [["2024-01-01", 1200, 8], ["2024-02-01", 900, 7], ["2024-03-01", 300, 1]],
            "line",
        ),
        # two labels: a stacked bar
        (
            ["region", "channel", "revenue", "orders"],
            [["N", "web", 1200, 8], ["N", "shop", 900, 7], ["S", "web", 300, 1]],
            "stacked_bar",
        ),
    ],
)
def test_two_measures_beside_other_columns_keep_their_chart(
    columns: list[str], rows: list[list[Any]], chart_type: str
) -> None:
    chart = infer_chart(columns, rows)
    assert chart is not None
    assert chart.chart_type == chart_type


@pytest.mark.parametrize(
    ("columns", "rows"),
    [
        (["price", "quantity"], [[1.5, 3], [2.5, 4]]),  # two points show no relation
        (["a", "b", "c"], [[1, 2, 3], [4, 5, 6], [7, 8, 9]]),  # three measures
        (["a", "b"], [[1, None], [2, None], [3, None]]),  # one measure with numbers
    ],
)
def test_numbers_that_make_no_scatter(columns: list[str], rows: list[list[Any]]) -> None:
    assert infer_chart(columns, rows) is None


@pytest.mark.parametrize(
    ("columns", "rows"),
    [
        (["region", "n"], [["N", 1]]),  # one row
        (["region", "n"], []),  # no rows
        (["region", "city"], [["N", "Oslo"], ["S", "Rome"]]),  # no measure
        (["n"], [[1], [2]]),  # a single column
        (["a", "b", "c", "n"], [["x", "y", "z", 1], ["u", "v", "w", 2]]),  # three labels
        (["region", "n"], [["N", None], ["S", None]]),  # a measure with no numbers
        (["region", "n"], [["N", 1], ["N", 2]]),  # one category
        (["n", "n"], [[1, 2], [3, 4]]),  # duplicate column names
    ],
)
def test_shapes_without_a_chart(columns: list[str], rows: list[list[Any]]) -> None:
    assert infer_chart(columns, rows) is None
