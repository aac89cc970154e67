"""A request made drawable: categories in order, one row of values per series, long tails
summed into "Other" (a scatter chart: its points, one per row, as they come). The Vega-Lite
spec and the PNG are both drawn from this one shape."""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from dataclasses import dataclass
from typing import Any

from dataagent.charts.request import ChartRequest, ChartType
from dataagent.charts.values import Cell, XKind, as_datetime, label, x_kind

MAX_CATEGORIES = 15
OTHER = "Other"

Number = int | float


@dataclass(frozen=True)
class Series:
    """One series: its name and a value (or None) per category."""

    name: str
    values: tuple[Number | None, ...]


@dataclass(frozen=True)
class ChartData:
    """What to draw: categories along x, and one value per category for each series.

    A scatter chart's "categories" are its points' x values, one per point (repeats
    included), with its one series holding their y values, and `labels` naming each point
    when the request has a label column (`label_column`).
    """

    chart_type: ChartType
    title: str
    x: str
    x_kind: XKind
    categories: tuple[Cell, ...]
    series: tuple[Series, ...]
    # The column the series come from (long format), or None (one y column, or several).
    series_column: str | None
    value_title: str
    other_categories: int = 0
    other_series: int = 0
    label_column: str | None = None
    labels: tuple[str, ...] | None = None

    @property
    def has_legend(self) -> bool:
        """True when there is more than one series to tell apart (or a series column)."""
        return len(self.series) > 1 or self.series_column is not None


def prepare(request: ChartRequest, max_categories: int = MAX_CATEGORIES) -> ChartData:
    """Aggregate, order and truncate the request's rows into a ChartData.

    Rows with the same x (and series) are summed. Dates and numbers along x are sorted;
    labels keep the order they first appear in. Past `max_categories`, a bar, stacked bar
    or pie keeps its largest categories and sums the rest into "Other"; past the same
    number of series, the smallest series are summed into "Other" too.
    """
    if max_categories < 2:
        raise ValueError("max_categories must be at least 2")
    if request.chart_type == "scatter":
        return _points(request)
    kind = x_kind(row.get(request.x) for row in request.data)
    table = _Table()
    for row in request.data:
        x_value = row.get(request.x)
        key = _key(x_value, kind)
        if key is None:
            continue  # an empty date or number has no place along a sorted axis
        category = label(x_value) if kind == "nominal" else x_value
        table.add_category(key, category)
        if request.series is not None:
            table.add(key, label(row.get(request.series)), row.get(request.y[0]))
        else:
            for column in request.y:
                table.add(key, column, row.get(column))
    keys = table.ordered_keys(kind)
    series_names = list(table.series)
    values = {name: [table.value(key, name) for key in keys] for name in series_names}
    categories: list[Cell] = [table.categories[key] for key in keys]

    other_categories = 0
    truncates = request.chart_type in ("bar", "stacked_bar", "pie") and kind == "nominal"
    if truncates and len(categories) > max_categories:
        weights = [
            sum(abs(values[name][i] or 0) for name in series_names) for i in range(len(keys))
        ]
        keep = _largest(weights, max_categories - 1)
        other_categories = len(categories) - len(keep)
        other_label = _other_label([str(c) for i, c in enumerate(categories) if i in keep])
        categories = [c for i, c in enumerate(categories) if i in keep] + [other_label]
        values = {
            name: [v for i, v in enumerate(row) if i in keep]
            + [_sum(v for i, v in enumerate(row) if i not in keep)]
            for name, row in values.items()
        }
    if request.chart_type == "pie":
        categories, values = _largest_first(categories, values, other_categories > 0)

    other_series = 0
    if len(series_names) > max_categories:
        weights = [sum(abs(v or 0) for v in values[name]) for name in series_names]
        keep = _largest(weights, max_categories - 1)
        rest = [name for i, name in enumerate(series_names) if i not in keep]
        other_series = len(rest)
        kept = [name for i, name in enumerate(series_names) if i in keep]
        other_name = _other_label(kept)
        folded = [_sum(values[name][i] for name in rest) for i in range(len(categories))]
        values = {name: values[name] for name in kept} | {other_name: folded}
        series_names = [*kept, other_name]

    return ChartData(
        chart_type=request.chart_type,
        title=request.title,
        x=request.x,
        x_kind=kind,
        categories=tuple(categories),
        series=tuple(Series(name, tuple(values[name])) for name in series_names),
        series_column=request.series,
        value_title=request.y[0] if len(request.y) == 1 else ", ".join(request.y),
        other_categories=other_categories,
        other_series=other_series,
    )


def _points(request: ChartRequest) -> ChartData:
    """A scatter chart's points: one per row with both numbers, in the rows' order, neither
    summed nor cut (a point is a row, not a category)."""
    (y,) = request.y
    kept = [
        row for row in request.data if row.get(request.x) is not None and row.get(y) is not None
    ]
    return ChartData(
        chart_type="scatter",
        title=request.title,
        x=request.x,
        x_kind="quantitative",
        categories=tuple(row[request.x] for row in kept),
        series=(Series(y, tuple(row[y] for row in kept)),),
        series_column=None,
        value_title=y,
        label_column=request.label,
        labels=None
        if request.label is None
        else tuple(label(row.get(request.label)) for row in kept),
    )


def describe(data: ChartData) -> str:
    """One sentence saying what the chart shows, for the model and the reader."""
    if data.chart_type == "scatter":
        count = len(data.categories)
        what = f"Scatter chart of {count} {'point' if count == 1 else 'points'} "
        what += f"({data.value_title} against {data.x}"
        return what + (f", each a {data.label_column})." if data.label_column else ").")
    kind = {
        "bar": "Grouped bar chart" if data.has_legend else "Bar chart",
        "stacked_bar": "Stacked bar chart",
        "line": "Line chart",
        "pie": "Pie chart",
    }[data.chart_type]
    count = len(data.categories)
    if data.chart_type == "pie":
        noun = "slice" if count == 1 else "slices"
    elif data.chart_type == "line":
        noun = "point" if count == 1 else "points"
    else:
        noun = "category" if count == 1 else "categories"
    what = f"{kind} of {count} {noun}"
    if data.has_legend:
        what += f" × {len(data.series)} series"
    what += f" ({data.value_title} by {data.x}"
    what += f" and {data.series_column})" if data.series_column else ")"
    if data.chart_type == "line" and data.x_kind != "nominal" and count > 1:
        what += f", from {label(data.categories[0])} to {label(data.categories[-1])}"
    if data.other_categories:
        what += f'; the {data.other_categories} smallest categories are summed into "Other"'
    if data.other_series:
        what += f'; the {data.other_series} smallest series are summed into "Other"'
    return what + "."


class _Table:
    """Values summed per (category key, series name), remembering first-seen order."""

    def __init__(self) -> None:
        self.categories: dict[Hashable, Cell] = {}
        self.series: dict[str, None] = {}
        self._cells: dict[tuple[Hashable, str], Number | None] = {}

    def add_category(self, key: Hashable, category: Cell) -> None:
        self.categories.setdefault(key, category)

    def add(self, key: Hashable, name: str, value: Cell) -> None:
        self.series.setdefault(name, None)
        number = value if isinstance(value, int | float) and not isinstance(value, bool) else None
        cell = (key, name)
        if cell not in self._cells or self._cells[cell] is None:
            self._cells[cell] = number
        elif number is not None:
            self._cells[cell] = (self._cells[cell] or 0) + number

    def value(self, key: Hashable, name: str) -> Number | None:
        return self._cells.get((key, name))

    def ordered_keys(self, kind: XKind) -> list[Hashable]:
        keys: list[Any] = list(self.categories)
        if kind != "nominal":
            keys.sort()  # datetimes or numbers, all of one kind
        return keys


def _key(value: Cell, kind: XKind) -> Hashable | None:
    if kind == "temporal":
        return as_datetime(value)
    if kind == "quantitative":
        return value
    return label(value)


def _largest(weights: list[float], n: int) -> set[int]:
    """The indexes of the n largest weights (ties go to the earlier one)."""
    ranked = sorted(range(len(weights)), key=lambda i: (-weights[i], i))
    return set(ranked[:n])


def _sum(values: Iterable[Number | None]) -> Number | None:
    present = [v for v in values if v is not None]
    return sum(present) if present else None


def _other_label(kept: list[str]) -> str:
    return OTHER if OTHER not in kept else f"{OTHER} (rest)"


def _largest_first(
    categories: list[Cell], values: dict[str, list[Number | None]], keep_last: bool
) -> tuple[list[Cell], dict[str, list[Number | None]]]:
    """A pie's slices from largest to smallest ("Other", when there is one, stays last)."""
    (name,) = values
    row = values[name]
    head = len(categories) - 1 if keep_last else len(categories)
    order = sorted(range(head), key=lambda i: (-(row[i] or 0), i))
    order += list(range(head, len(categories)))
    return [categories[i] for i in order], {name: [row[i] for i in order]}
