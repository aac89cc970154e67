"""Chart requests: validation, the drawable shape ("Other" included) and Vega-Lite specs."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from dataagent.charts import ChartRequest, describe, prepare, vega_lite
from dataagent.charts.spec import SCHEMA_URL
from dataagent.charts.values import as_datetime, as_number, x_kind

REGIONS = [
    {"region": "North", "revenue": 1200, "cost": 800},
    {"region": "South", "revenue": 900.5, "cost": 700},
    {"region": "East", "revenue": 300, "cost": None},
]


def request(**fields: Any) -> ChartRequest:
    """A bar chart of revenue by region unless the fields say otherwise."""
    base: dict[str, Any] = {
        "chart_type": "bar",
        "title": "Revenue by region",
        "data": REGIONS,
        "x": "region",
        "y": ["revenue"],
    }
    return ChartRequest.model_validate(base | fields)


def error_of(**fields: Any) -> str:
    with pytest.raises(ValidationError) as caught:
        request(**fields)
    return str(caught.value)


# --- values -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "number"),
    [
        (3, 3),
        (2.5, 2.5),
        ("42", 42),
        (" -7.25 ", -7.25),
        ("1,234,567.5", 1234567.5),
        ("NaN", None),
        ("Infinity", None),
        (float("nan"), None),
        (None, None),
        ("", None),
    ],
)
def test_numbers_in_cells(value: object, number: object) -> None:
    assert as_number(value) == number


@pytest.mark.parametrize("value", ["North", True, "1,2", "12abc", [1]])
def test_cells_that_are_not_numbers(value: object) -> None:
    with pytest.raises(ValueError):
        as_number(value)


def test_dates_and_x_kinds() -> None:
    assert as_datetime("2024-03") is not None
    assert as_datetime("2024-03-05T10:00:00+02:00").hour == 8  # type: ignore[union-attr]
    assert as_datetime("2024-13-01") is None
    assert as_datetime("North") is None
    assert as_datetime(2024) is None
    assert x_kind(["2024-01-01", None, "2024-02-01 00:00:00"]) == "temporal"
    assert x_kind([1, 2.5, None]) == "quantitative"
    assert x_kind(["1", "2"]) == "nominal"  # numeric text is a label, e.g. a code "007"
    assert x_kind(["2024-01-01", "soon"]) == "nominal"
    assert x_kind([None, None]) == "nominal"


# --- validation -----------------------------------------------------------------------


def test_a_valid_request_reads_numeric_text_and_a_single_y_name() -> None:
    chart = request(
        y="revenue", data=[{"region": "N", "revenue": "1,500"}, {"region": "S", "revenue": 2}]
    )
    assert chart.y == ["revenue"]
    assert chart.data[0]["revenue"] == 1500


def test_unknown_columns_are_named_with_the_columns_there_are() -> None:
    message = error_of(y=["Revenue"])
    assert "Unknown column 'Revenue' in y" in message
    assert "'region', 'revenue', 'cost'" in message
    assert "Did you mean 'revenue'?" in message
    assert "Unknown column 'area' in x" in error_of(x="area")
    assert "Unknown column 'kind' in series" in error_of(chart_type="stacked_bar", series="kind")


def test_y_must_hold_numbers() -> None:
    message = error_of(x="revenue", y=["region"])
    assert "The y column 'region' must hold numbers, but row 1 has 'North'" in message
    assert "holds no numbers" in error_of(
        data=[{"region": "N", "revenue": None}, {"region": "S", "revenue": None}]
    )
    assert "must hold numbers" in error_of(data=[{"region": "N", "revenue": True}])


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"y": ["revenue", "revenue"]}, "named twice"),
        ({"y": ["region", "revenue"]}, "both x and y"),
        ({"chart_type": "line", "series": "region"}, "both x and series"),
        ({"y": ["revenue", "cost"], "series": "region", "x": "cost"}, "both x and y"),
        ({"chart_type": "pie", "y": ["revenue", "cost"]}, "exactly one y column"),
        ({"chart_type": "stacked_bar"}, "needs series"),
        ({"chart_type": "pie", "data": [{"region": "N", "revenue": -1}]}, "negative values"),
        ({"chart_type": "pie", "data": [{"region": "N", "revenue": 0}]}, "positive value"),
        ({"chart_type": "area"}, "chart_type"),
        ({"title": ""}, "title"),
        ({"title": "x" * 201}, "at most 200"),
        ({"data": []}, "at least 1"),
        ({"data": [{"region": "N", "revenue": 1}] * 5001}, "at most 5000"),
        ({"y": [f"c{i}" for i in range(11)]}, "at most 10"),
        ({"data": [{"region": ["N"], "revenue": 1}]}, "not a list"),
        ({"data": [{"region": {"n": 1}, "revenue": 1}]}, "not a object"),
        ({"title": "a\x00b"}, "NUL"),
        ({"data": [{"region": "N\x00", "revenue": 1}]}, "NUL"),
        ({"colour": "red"}, "Extra inputs"),
        ({"chart_type": "scatter"}, "x column 'region' must hold numbers"),
        ({"chart_type": "scatter", "x": "cost", "y": ["revenue", "cost"]}, "both x and y"),
        ({"chart_type": "scatter", "x": "cost", "y": ["revenue"], "series": "region"}, "label"),
        (
            {"chart_type": "scatter", "x": "cost", "y": ["revenue"], "label": "revenue"},
            "both label and y",
        ),
        ({"chart_type": "scatter", "x": "cost", "label": "cost"}, "both label and x"),
        ({"label": "cost"}, "Only a scatter chart takes a label"),
        ({"chart_type": "scatter", "x": "cost", "label": "Region"}, "Did you mean 'region'"),
    ],
)
def test_requests_refused(fields: dict[str, Any], expected: str) -> None:
    assert expected in error_of(**fields)


def test_series_and_several_y_columns_do_not_mix() -> None:
    rows = [{"m": "2024-01", "kind": "a", "v": 1, "w": 2}]
    with pytest.raises(ValidationError, match="either series"):
        ChartRequest(chart_type="line", title="t", data=rows, x="m", y=["v", "w"], series="kind")


# --- shape ------------------------------------------------------------------------------


def test_rows_with_the_same_category_are_summed_in_first_seen_order() -> None:
    data = [
        {"city": "Rome", "sales": 1},
        {"city": "Oslo", "sales": 2},
        {"city": "Rome", "sales": 3},
        {"city": None, "sales": 4},
        {"city": "Oslo", "sales": None},
    ]
    shape = prepare(request(data=data, x="city", y=["sales"]))
    assert shape.categories == ("Rome", "Oslo", "(null)")
    assert shape.series[0].values == (4, 2, 4)


def test_many_categories_fold_into_other() -> None:
    data = [{"shop": f"s{i:02}", "sales": i} for i in range(40)]
    shape = prepare(request(data=data, x="shop", y=["sales"]))
    assert len(shape.categories) == 15
    assert shape.categories[-1] == "Other"
    # The 14 largest (s26..s39) keep their original order; the other 26 are summed.
    assert shape.categories[:14] == tuple(f"s{i:02}" for i in range(26, 40))
    assert shape.series[0].values[-1] == sum(range(26))
    assert shape.other_categories == 26
    assert 'the 26 smallest categories are summed into "Other"' in describe(shape)


def test_other_ranks_by_size_including_negative_values_and_keeps_its_name_free() -> None:
    data = [{"k": "Other", "v": 100}, {"k": "big loss", "v": -90}]
    data += [{"k": f"c{i}", "v": 1} for i in range(20)]
    shape = prepare(request(data=data, x="k", y=["v"]), max_categories=5)
    assert shape.categories == ("Other", "big loss", "c0", "c1", "Other (rest)")
    assert shape.series[0].values == (100, -90, 1, 1, 18)


def test_wide_rows_fold_every_y_column_into_other() -> None:
    data = [{"k": f"c{i}", "a": i, "b": None if i == 0 else 1} for i in range(6)]
    shape = prepare(request(data=data, x="k", y=["a", "b"]), max_categories=3)
    assert shape.categories == ("c4", "c5", "Other")
    assert [s.name for s in shape.series] == ["a", "b"]
    assert shape.series[0].values == (4, 5, 0 + 1 + 2 + 3)
    assert shape.series[1].values == (1, 1, 3)


def test_lines_are_never_truncated_and_their_dates_are_sorted() -> None:
    data = [{"day": f"2024-01-{d:02}", "n": d} for d in range(31, 0, -1)]
    shape = prepare(request(chart_type="line", data=data, x="day", y=["n"]))
    assert len(shape.categories) == 31
    assert shape.categories[0] == "2024-01-01"
    assert shape.x_kind == "temporal"
    assert describe(shape) == "Line chart of 31 points (n by day), from 2024-01-01 to 2024-01-31."


def test_empty_dates_are_dropped_and_equal_instants_merge() -> None:
    data = [
        {"t": "2024-01-02", "n": 1},
        {"t": None, "n": 5},
        {"t": "2024-01-01T00:00:00", "n": 2},
        {"t": "2024-01-01", "n": 3},
    ]
    shape = prepare(request(chart_type="line", data=data, x="t", y=["n"]))
    assert shape.categories == ("2024-01-01T00:00:00", "2024-01-02")
    assert shape.series[0].values == (5, 1)


def test_many_series_fold_into_other() -> None:
    data = [{"m": "2024-01", "p": f"p{i}", "v": i} for i in range(20)]
    data += [{"m": "2024-02", "p": f"p{i}", "v": i} for i in range(20)]
    shape = prepare(request(chart_type="line", data=data, x="m", y=["v"], series="p"))
    assert len(shape.series) == 15
    assert shape.series[-1].name == "Other"
    assert shape.series[-1].values == (sum(range(6)), sum(range(6)))
    assert shape.other_series == 6


def test_a_pie_goes_from_largest_to_smallest_with_other_last() -> None:
    data = [{"k": f"c{i}", "v": i + 1} for i in range(20)]
    shape = prepare(request(chart_type="pie", data=data, x="k", y=["v"]))
    assert shape.categories[:3] == ("c19", "c18", "c17")
    assert shape.categories[-1] == "Other"
    assert describe(shape).startswith("Pie chart of 15 slices (v by k)")


def test_descriptions() -> None:
    assert describe(prepare(request())) == "Bar chart of 3 categories (revenue by region)."
    wide = describe(prepare(request(y=["revenue", "cost"])))
    assert wide == "Grouped bar chart of 3 categories × 2 series (revenue, cost by region)."
    stacked = request(
        chart_type="stacked_bar",
        data=[{"r": "N", "p": "a", "v": 1}, {"r": "N", "p": "b", "v": 2}],
        x="r",
        y=["v"],
        series="p",
    )
    assert describe(prepare(stacked)) == (
        "Stacked bar chart of 1 category × 2 series (v by r and p)."
    )


# --- Vega-Lite ----------------------------------------------------------------------------


def test_a_bar_spec() -> None:
    spec = vega_lite(request())
    assert spec["$schema"] == SCHEMA_URL
    assert spec["title"] == "Revenue by region"
    assert spec["mark"] == {"type": "bar", "tooltip": True}
    assert spec["data"]["values"] == [
        {"region": "North", "revenue": 1200},
        {"region": "South", "revenue": 900.5},
        {"region": "East", "revenue": 300},
    ]
    assert spec["encoding"]["x"] == {
        "field": "region",
        "type": "nominal",
        "title": "region",
        "sort": None,
        "axis": {"labelAngle": 0},  # short labels lie level
    }
    assert spec["encoding"]["y"] == {"field": "revenue", "type": "quantitative", "title": "revenue"}
    assert "color" not in spec["encoding"]


def test_several_y_columns_are_folded_into_series_and_grouped() -> None:
    spec = vega_lite(request(y=["revenue", "cost"]))
    values = spec["data"]["values"]
    assert values[:2] == [
        {"region": "North", "series": "revenue", "value": 1200},
        {"region": "North", "series": "cost", "value": 800},
    ]
    assert {"region": "East", "series": "cost", "value": None} in values
    encoding = spec["encoding"]
    assert encoding["y"]["field"] == "value"
    assert encoding["y"]["stack"] is None
    assert encoding["color"]["field"] == "series"
    assert encoding["xOffset"] == {"field": "series", "sort": None}


def test_folded_fields_do_not_collide_with_the_x_column() -> None:
    data = [{"series": "a", "x1": 1, "x2": 2}]
    spec = vega_lite(request(data=data, x="series", y=["x1", "x2"]))
    assert spec["data"]["values"][0] == {"series": "a", "series_2": "x1", "value": 1}
    assert spec["encoding"]["color"]["field"] == "series_2"


def test_a_stacked_bar_spec_in_long_format() -> None:
    data = [
        {"region": "N", "product": "tea", "sales": 3},
        {"region": "N", "product": "pie", "sales": 1},
        {"region": "S", "product": "tea", "sales": 2},
    ]
    spec = vega_lite(request(chart_type="stacked_bar", data=data, y=["sales"], series="product"))
    assert spec["mark"]["type"] == "bar"
    assert spec["encoding"]["y"]["stack"] == "zero"
    assert spec["encoding"]["color"] == {
        "field": "product",
        "type": "nominal",
        "sort": None,
        "title": "product",
    }
    assert "xOffset" not in spec["encoding"]
    assert {"region": "S", "product": "pie", "sales": None} in spec["data"]["values"]


def test_a_line_spec_over_dates_is_temporal() -> None:
    data = [{"month": "2024-02-01", "n": 2}, {"month": "2024-01-01", "n": 1}]
    spec = vega_lite(request(chart_type="line", data=data, x="month", y=["n"]))
    assert spec["mark"] == {"type": "line", "point": True, "tooltip": True}
    assert spec["encoding"]["x"] == {"field": "month", "type": "temporal", "title": "month"}
    assert [v["month"] for v in spec["data"]["values"]] == ["2024-01-01", "2024-02-01"]


def test_x_types_per_chart() -> None:
    years = [{"year": 2024, "n": 2}, {"year": 2023, "n": 1}]
    line = vega_lite(request(chart_type="line", data=years, x="year", y=["n"]))
    assert line["encoding"]["x"]["type"] == "quantitative"
    bars = vega_lite(request(data=years, x="year", y=["n"]))
    assert bars["encoding"]["x"]["type"] == "ordinal"
    assert [v["year"] for v in bars["data"]["values"]] == [2023, 2024]
    dates = [{"d": "2024-01-01", "n": 1}, {"d": "2024-01-02", "n": 2}]
    assert vega_lite(request(data=dates, x="d", y=["n"]))["encoding"]["x"]["type"] == "ordinal"
    quarters = [{"q": "2024-Q1", "n": 1}, {"q": "2024-Q2", "n": 2}]
    line = vega_lite(request(chart_type="line", data=quarters, x="q", y=["n"]))
    assert line["encoding"]["x"]["type"] == "ordinal"


def test_a_pie_spec_is_an_arc_with_theta() -> None:
    data = [
        {"segment": "a", "share": 60},
        {"segment": "b", "share": 40},
        {"segment": "c", "share": None},
    ]
    spec = vega_lite(request(chart_type="pie", data=data, x="segment", y=["share"]))
    assert spec["mark"] == {"type": "arc", "tooltip": True}
    assert spec["encoding"]["theta"] == {"field": "share", "type": "quantitative", "stack": True}
    assert spec["encoding"]["color"]["field"] == "segment"
    assert spec["data"]["values"] == [{"segment": "a", "share": 60}, {"segment": "b", "share": 40}]


def test_long_labels_slant_and_dotted_names_are_escaped() -> None:
    data = [{"t.name": "a rather long category name", "v[0]": 1}]
    spec = vega_lite(request(data=data, x="t.name", y=["v[0]"]))
    assert spec["encoding"]["x"]["field"] == "t\\.name"
    assert spec["encoding"]["y"]["field"] == "v\\[0\\]"
    assert spec["encoding"]["x"]["axis"]["labelAngle"] == -40
    assert spec["data"]["values"] == [{"t.name": "a rather long category name", "v[0]": 1}]


def test_the_spec_shows_other_too() -> None:
    data = [{"shop": f"s{i:02}", "sales": i} for i in range(40)]
    spec = vega_lite(request(data=data, x="shop", y=["sales"]))
    assert len(spec["data"]["values"]) == 15
    assert spec["data"]["values"][-1] == {"shop": "Other", "sales": sum(range(26))}


# --- scatter ------------------------------------------------------------------------------

POINTS = [
    {"store": "Oslo", "revenue": 1200, "orders": 40},
    {"store": "Rome", "revenue": "900.5", "orders": 31},
    {"store": "Lima", "revenue": 1200, "orders": 12},
    {"store": "Pune", "revenue": None, "orders": 7},
    {"store": None, "revenue": 300, "orders": None},
]


def scatter(**fields: Any) -> ChartRequest:
    base = {"chart_type": "scatter", "data": POINTS, "x": "revenue", "y": "orders"}
    return request(**(base | fields))


def test_a_scatter_request_reads_numbers_on_both_axes() -> None:
    chart = scatter(label="store")
    assert (chart.x, chart.y, chart.label, chart.series) == ("revenue", ["orders"], "store", None)
    assert [row["revenue"] for row in chart.data] == [1200, 900.5, 1200, None, 300]
    assert "holds no numbers" in error_of(
        chart_type="scatter",
        data=[{"a": None, "b": 1}, {"a": "", "b": 2}],
        x="a",
        y=["b"],
    )


def test_a_scatter_shape_keeps_every_point_with_both_numbers_in_row_order() -> None:
    shape = prepare(scatter(label="store"), max_categories=2)
    assert shape.categories == (1200, 900.5, 1200)  # the same x twice: two points, not summed
    assert [s.values for s in shape.series] == [(40, 31, 12)]
    assert shape.labels == ("Oslo", "Rome", "Lima")
    assert (shape.x_kind, shape.label_column, shape.other_categories) == (
        "quantitative",
        "store",
        0,
    )
    assert describe(shape) == "Scatter chart of 3 points (orders against revenue, each a store)."
    assert describe(prepare(scatter())) == "Scatter chart of 3 points (orders against revenue)."
    many = [{"a": i % 3, "b": i} for i in range(40)]
    assert len(prepare(scatter(data=many, x="a", y=["b"])).categories) == 40


def test_a_scatter_spec_is_points_on_two_quantitative_axes_with_the_label_in_the_tooltip() -> None:
    spec = vega_lite(scatter(label="store", title="Orders against revenue"))
    assert spec["$schema"] == SCHEMA_URL and spec["title"] == "Orders against revenue"
    assert spec["mark"] == {"type": "point", "filled": True}
    assert spec["data"]["values"] == [
        {"revenue": 1200, "orders": 40, "store": "Oslo"},
        {"revenue": 900.5, "orders": 31, "store": "Rome"},
        {"revenue": 1200, "orders": 12, "store": "Lima"},
    ]
    encoding = spec["encoding"]
    assert encoding["x"] == {
        "field": "revenue",
        "type": "quantitative",
        "title": "revenue",
        "scale": {"zero": False},
    }
    assert encoding["y"]["type"] == "quantitative" and encoding["y"]["field"] == "orders"
    assert [t["field"] for t in encoding["tooltip"]] == ["store", "revenue", "orders"]
    assert encoding["tooltip"][0]["type"] == "nominal"
    assert "color" not in encoding


def test_a_scatter_spec_without_a_label_and_with_dotted_names() -> None:
    data = [{"a.b": 1, "c[0]": 2}, {"a.b": 3, "c[0]": 4}]
    spec = vega_lite(scatter(data=data, x="a.b", y=["c[0]"]))
    assert spec["data"]["values"] == data
    assert [t["field"] for t in spec["encoding"]["tooltip"]] == ["a\\.b", "c\\[0\\]"]
