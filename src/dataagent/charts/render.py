"""PNG images of chart requests, drawn with matplotlib's object API.

Each call makes its own `Figure` on an Agg canvas and never touches pyplot's global
figure registry, so calls may run in worker threads side by side (services call this
through `asyncio.to_thread`).
"""

from __future__ import annotations

import functools
import io
import math
from typing import Any

from matplotlib import font_manager
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.dates import AutoDateLocator, ConciseDateFormatter
from matplotlib.figure import Figure
from matplotlib.ft2font import FT2Font
from matplotlib.ticker import FuncFormatter

from dataagent.charts.request import ChartRequest
from dataagent.charts.shape import MAX_CATEGORIES, ChartData, prepare
from dataagent.charts.values import as_datetime, label

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
# Colour-blind-safe first (Okabe-Ito), then matplotlib's tab20 for long series lists.
PALETTE = (
    "#0072B2",
    "#E69F00",
    "#009E73",
    "#D55E00",
    "#CC79A7",
    "#56B4E9",
    "#F0E442",
    "#AA4499",
    "#8c564b",
    "#7f7f7f",
    "#bcbd22",
    "#17becf",
    "#aec7e8",
    "#ffbb78",
    "#98df8a",
    "#ff9896",
)
LABEL_CHARS = 28
SLANT_OVER_CHARS = 8
# Category labels drawn along x at most: a line over thousands of labels shows every n-th
# (drawing each one took seconds per hundred).
MAX_TICK_LABELS = 30


def render_png(
    request: ChartRequest,
    dpi: int = 100,
    width_in: float = 8,
    height_in: float = 4.5,
    max_categories: int = MAX_CATEGORIES,
) -> bytes:
    """The chart as PNG bytes (the same input gives the same bytes)."""
    data = prepare(request, max_categories)
    figure = Figure(figsize=(width_in, height_in), dpi=dpi, layout="constrained")
    FigureCanvasAgg(figure)
    axes = figure.add_subplot()
    axes.set_title(_text(data.title), fontsize=13, loc="left")
    if data.chart_type == "pie":
        _pie(axes, data)
    else:
        if data.chart_type == "line":
            _lines(axes, data)
        else:
            _bars(axes, data, stacked=data.chart_type == "stacked_bar")
        axes.yaxis.set_major_formatter(FuncFormatter(_tick))
        axes.set_ylabel(_text(data.value_title, 40))
        axes.set_xlabel(_text(data.x, 40))
        axes.grid(axis="y", alpha=0.3)
        axes.set_axisbelow(True)
        for side in ("top", "right"):
            axes.spines[side].set_visible(False)
        if data.has_legend:
            axes.legend(
                title=_text(data.series_column) if data.series_column else None,
                loc="upper left",
                bbox_to_anchor=(1.01, 1.0),
                frameon=False,
                fontsize="small",
            )
    buffer = io.BytesIO()
    # No creation time or version in the file, so the bytes depend only on the chart.
    figure.savefig(buffer, format="png", dpi=dpi, metadata={"Software": None})
    return buffer.getvalue()


def _bars(axes: Axes, data: ChartData, *, stacked: bool) -> None:
    positions = list(range(len(data.categories)))
    count = len(data.series)
    width = 0.8 if stacked or count == 1 else 0.8 / count
    up = [0.0] * len(positions)
    down = [0.0] * len(positions)
    for n, series in enumerate(data.series):
        heights = [float(v) if v is not None else 0.0 for v in series.values]
        colour = PALETTE[n % len(PALETTE)]
        if stacked:
            # Positive parts stack upwards from zero, negative parts downwards.
            bottoms = [up[i] if h >= 0 else down[i] for i, h in enumerate(heights)]
            axes.bar(
                positions, heights, width, bottom=bottoms, label=_legend(series.name), color=colour
            )
            for i, h in enumerate(heights):
                if h >= 0:
                    up[i] += h
                else:
                    down[i] += h
        else:
            offset = (n - (count - 1) / 2) * width
            axes.bar(
                [p + offset for p in positions],
                heights,
                width,
                label=_legend(series.name),
                color=colour,
            )
    axes.axhline(0, color="#444444", linewidth=0.8)
    _category_ticks(axes, positions, [label(c) for c in data.categories])


def _lines(axes: Axes, data: ChartData) -> None:
    xs: list[Any]
    if data.x_kind == "temporal":
        xs = [as_datetime(c) for c in data.categories]
    elif data.x_kind == "quantitative":
        xs = [float(c) for c in data.categories]  # type: ignore[arg-type]
    else:
        xs = list(range(len(data.categories)))
    marker = "o" if len(xs) <= 40 else None
    for n, series in enumerate(data.series):
        ys = [float(v) if v is not None else math.nan for v in series.values]
        axes.plot(
            xs,
            ys,
            marker=marker,
            markersize=4,
            linewidth=2,
            label=_legend(series.name),
            color=PALETTE[n % len(PALETTE)],
        )
    if data.x_kind == "nominal":
        _category_ticks(axes, xs, [label(c) for c in data.categories])
    elif data.x_kind == "temporal":
        locator = AutoDateLocator()
        axes.xaxis.set_major_locator(locator)
        axes.xaxis.set_major_formatter(ConciseDateFormatter(locator))


def _pie(axes: Axes, data: ChartData) -> None:
    (series,) = data.series
    slices = [
        (label(c), float(v)) for c, v in zip(data.categories, series.values, strict=True) if v
    ]
    labels = [_text(name, LABEL_CHARS) for name, _ in slices]
    values = [value for _, value in slices]
    colours = [PALETTE[n % len(PALETTE)] for n in range(len(values))]
    inline = len(values) <= 6
    wedges, *_ = axes.pie(
        values,
        labels=labels if inline else None,
        colors=colours,
        autopct=lambda share: f"{share:.1f}%" if share >= 3 else "",
        startangle=90,
        counterclock=False,
        wedgeprops={"linewidth": 1, "edgecolor": "white"},
        textprops={"fontsize": "small"},
    )
    axes.set_aspect("equal")
    if not inline:
        axes.legend(
            wedges,
            labels,
            title=_text(data.x, 40),
            loc="upper left",
            bbox_to_anchor=(1.01, 1.0),
            frameon=False,
            fontsize="small",
        )


def _category_ticks(axes: Axes, positions: list[Any], names: list[str]) -> None:
    step = -(-len(names) // MAX_TICK_LABELS)
    positions, names = positions[::step], names[::step]
    shown = [_text(name, LABEL_CHARS) for name in names]
    slanted = len(shown) > 12 or any(len(name) > SLANT_OVER_CHARS for name in shown)
    axes.set_xticks(positions)
    axes.set_xticklabels(
        shown,
        rotation=35 if slanted else 0,
        horizontalalignment="right" if slanted else "center",
        rotation_mode="anchor" if slanted else "default",
        fontsize="small",
    )


def _tick(value: float, _position: int) -> str:
    """Axis numbers with thousands separators: 1,250,000 and 0.25."""
    if value == 0:
        return "0"
    if abs(value) >= 1000 or float(value).is_integer():
        return f"{value:,.0f}"
    return f"{value:,.2f}".rstrip("0").rstrip(".")


def _text(text: str, limit: int = 200) -> str:
    """Text matplotlib draws as given: shortened, `$` not read as the start of math, and
    characters the font lacks shown as a box rather than warned about one by one."""
    text = text if len(text) <= limit else text[: limit - 1] + "…"
    glyphs = _glyphs()
    missing = "□" if ord("□") in glyphs else "?"
    text = "".join(c if ord(c) in glyphs or c in "\n\t" else missing for c in text)
    return text.replace("$", r"\$")


def _legend(name: str) -> str:
    # A legend leaves out labels that start with "_"; a series may well be named so.
    return _text(" " + name if name.startswith("_") else name, LABEL_CHARS)


@functools.cache
def _glyphs() -> frozenset[int]:
    """The characters the default font can draw."""
    path = font_manager.findfont(font_manager.FontProperties())
    return frozenset(FT2Font(path).get_charmap())
