"""Vega-Lite v5 specs for chart requests, for interactive display in the page."""

from __future__ import annotations

from typing import Any

from dataagent.charts.request import ChartRequest, ChartType
from dataagent.charts.shape import MAX_CATEGORIES, ChartData, prepare
from dataagent.charts.values import label

__all__ = ["SCHEMA_URL", "ChartRequest", "ChartType", "vega_lite", "vega_lite_of"]

SCHEMA_URL = "https://vega.github.io/schema/vega-lite/v5.json"
HEIGHT = 300
# Longer x labels than this are drawn slanted so they do not overlap.
SLANT_LABELS_OVER = 10
# ... and so are the labels of more categories than this.
SLANT_OVER_LABELS = 12
# A label axis names at most this many of its categories (every n-th): drawing every one of
# thousands of labels took half a minute per chart and shows none of them legibly.
MAX_AXIS_LABELS = 30
# A line marks its points only up to this many of them.
MAX_POINTS_MARKED = 40


def vega_lite(request: ChartRequest, max_categories: int = MAX_CATEGORIES) -> dict[str, Any]:
    """The Vega-Lite v5 spec of a chart request (values inline, long tails in "Other")."""
    return vega_lite_of(prepare(request, max_categories))


def vega_lite_of(data: ChartData) -> dict[str, Any]:
    """The Vega-Lite v5 spec of a prepared chart."""
    spec: dict[str, Any] = {
        "$schema": SCHEMA_URL,
        "title": data.title,
        "width": "container",
        "height": HEIGHT,
    }
    if data.chart_type == "scatter":
        return spec | _scatter(data)
    fields = _Fields(data)
    spec["data"] = {"values": _values(data, fields)}
    if data.chart_type == "pie":
        spec["mark"] = {"type": "arc", "tooltip": True}
        spec["view"] = {"stroke": None}
        spec["encoding"] = {
            "theta": {"field": _ref(fields.value), "type": "quantitative", "stack": True},
            "color": {
                "field": _ref(fields.x),
                "type": "nominal",
                "sort": None,
                "title": data.x,
            },
        }
        return spec

    encoding: dict[str, Any] = {
        "x": _x_encoding(data, fields),
        "y": {"field": _ref(fields.value), "type": "quantitative", "title": data.value_title},
    }
    if fields.series is not None:
        encoding["color"] = {
            "field": _ref(fields.series),
            "type": "nominal",
            "sort": None,
            "title": data.series_column,
        }
    if data.chart_type == "line":
        marked = len(data.categories) <= MAX_POINTS_MARKED
        spec["mark"] = {"type": "line", "point": marked, "tooltip": True}
    else:
        spec["mark"] = {"type": "bar", "tooltip": True}
        if data.chart_type == "stacked_bar":
            encoding["y"]["stack"] = "zero"
        elif fields.series is not None:
            # Grouped, not stacked: bars of one category side by side.
            encoding["xOffset"] = {"field": _ref(fields.series), "sort": None}
            encoding["y"]["stack"] = None
    spec["encoding"] = encoding
    return spec


class _Fields:
    """The field names of the inline values: the x column, the value and the series.

    One y column keeps its name; several are folded into a series field and a value
    field, named so they do not collide with the x column.
    """

    def __init__(self, data: ChartData) -> None:
        self.x = data.x
        if data.series_column is not None:
            self.series: str | None = data.series_column
            self.value = data.value_title
        elif len(data.series) > 1:
            self.series = _fresh("series", {self.x})
            self.value = _fresh("value", {self.x, self.series})
        else:
            self.series = None
            self.value = data.series[0].name


def _scatter(data: ChartData) -> dict[str, Any]:
    """A scatter chart's mark, values and encoding: a point per row, both axes numbers
    (neither forced to start at zero), the point's label first in its tooltip."""
    (series,) = data.series
    x = {"field": _ref(data.x), "type": "quantitative", "title": data.x}
    y = {"field": _ref(series.name), "type": "quantitative", "title": series.name}
    values: list[dict[str, Any]] = [
        {data.x: x_value, series.name: y_value}
        for x_value, y_value in zip(data.categories, series.values, strict=True)
    ]
    tooltip = [x, y]
    if data.label_column is not None and data.labels is not None:
        for row, name in zip(values, data.labels, strict=True):
            row[data.label_column] = name
        tooltip = [
            {"field": _ref(data.label_column), "type": "nominal", "title": data.label_column},
            *tooltip,
        ]
    return {
        "data": {"values": values},
        "mark": {"type": "point", "filled": True},
        "encoding": {
            "x": x | {"scale": {"zero": False}},
            "y": y | {"scale": {"zero": False}},
            "tooltip": tooltip,
        },
    }


def _values(data: ChartData, fields: _Fields) -> list[dict[str, Any]]:
    values: list[dict[str, Any]] = []
    for i, category in enumerate(data.categories):
        for series in data.series:
            value = series.values[i]
            if value is None and data.chart_type == "pie":
                continue
            row: dict[str, Any] = {fields.x: category}
            if fields.series is not None:
                row[fields.series] = series.name
            row[fields.value] = value
            values.append(row)
    return values


def _x_encoding(data: ChartData, fields: _Fields) -> dict[str, Any]:
    x_type = _x_type(data.chart_type, data)
    encoding: dict[str, Any] = {"field": _ref(fields.x), "type": x_type, "title": data.x}
    if x_type != "temporal" and x_type != "quantitative":
        encoding["sort"] = None  # the values are already in the order to show
        step = -(-len(data.categories) // MAX_AXIS_LABELS)
        shown = data.categories[::step]
        slanted = len(shown) > SLANT_OVER_LABELS or any(
            len(label(c)) > SLANT_LABELS_OVER for c in shown
        )
        # Level labels when they fit (Vega-Lite would stand every one on its end).
        axis: dict[str, Any] = (
            {"labelAngle": -40, "labelLimit": 160} if slanted else {"labelAngle": 0}
        )
        if step > 1:
            axis["values"] = list(shown)
        encoding["axis"] = axis
    return encoding


def _x_type(chart_type: ChartType, data: ChartData) -> str:
    # A line runs along a real time or number axis; bars sit on ordered slots.
    if data.x_kind == "nominal":
        return "ordinal" if chart_type == "line" else "nominal"
    if chart_type == "line":
        return data.x_kind
    return "ordinal"


def _ref(field: str) -> str:
    """A field reference: dots and brackets in a column name are not paths."""
    return field.replace("\\", "\\\\").replace(".", "\\.").replace("[", "\\[").replace("]", "\\]")


def _fresh(name: str, taken: set[str]) -> str:
    candidate, n = name, 1
    while candidate in taken:
        n += 1
        candidate = f"{name}_{n}"
    return candidate
