"""Charts: specs inferred from result shape, Vega-Lite for the page, PNG for the answer.

A pure room: no web framework, no ORM. `ChartRequest` says what to draw; `vega_lite` makes
its spec and `render.render_png` draws that same spec as a PNG (import it from its module:
it loads vl-convert's engine); `infer_chart` proposes one from a query result's columns and
rows. `ChartLimits` and
`size_problems` bound what a request may ask for before any of that work is done.
"""

from dataagent.charts.inference import infer_chart
from dataagent.charts.request import (
    CHART_TYPES,
    ChartLimits,
    ChartRequest,
    ChartType,
    json_chars,
    size_problems,
)
from dataagent.charts.shape import MAX_CATEGORIES, ChartData, describe, prepare
from dataagent.charts.spec import vega_lite

__all__ = [
    "CHART_TYPES",
    "MAX_CATEGORIES",
    "ChartData",
    "ChartLimits",
    "ChartRequest",
    "ChartType",
    "describe",
    "infer_chart",
    "json_chars",
    "prepare",
    "size_problems",
    "vega_lite",
]
