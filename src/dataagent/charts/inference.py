"""A sensible chart for a query result, guessed from its shape (or None when none fits).

Each column gets a role: a time (ISO dates, or whole numbers in a column named like a
year, month, …), a measure (numbers), or a label (text, booleans, identifiers). Then:

- a time and measures → a line chart (one label column with a few values → one line each);
- a label and measures → a bar chart; a pie instead when one measure splits a whole
  (a share/percent column, or values summing to 100 or to 1) across 2–6 labels;
- two labels and a measure → a stacked bar chart (the label with fewer values stacks);
- two measures and no time, from at least 3 rows → a scatter chart of the second against
  the first: either the two measures alone, or a label naming each point (each label once)
  beside two measures of unlike sizes (like-sized ones stay a grouped bar chart);
- anything else (one row, no measure, two numbers from two rows, three labels, …) → None.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import ValidationError

from dataagent.charts.request import MAX_ROWS, ChartRequest, ChartType
from dataagent.charts.values import as_datetime, as_number, is_number, label

Role = Literal["time", "measure", "label"]

PIE_MAX_SLICES = 6
MAX_SERIES = 10
MAX_MEASURES = 4
# A scatter chart of fewer points shows no relation.
MIN_SCATTER_POINTS = 3
# Measures drawn together must be of a like size: revenue beside a row count is unreadable.
LIKE_SIZE_RATIO = 10

# The name ends in the time word: "order_year" is a time, "days_to_ship" and "total_days"
# are measures.
_TIME_WORDS = re.compile(r"(^|_)(year|yr|quarter|qtr|month|week|day|date|hour)$", re.I)
_SHARE_WORDS = re.compile(r"share|percent|pct|ratio|proportion|fraction|%", re.I)
_IDENTIFIER = re.compile(r"(^id$|_id$|[a-z]Id$|^id_|(^|_)(code|key|zip|postcode)$)", re.I)


@dataclass(frozen=True)
class _Column:
    name: str
    role: Role
    values: list[Any]

    @property
    def distinct(self) -> int:
        return len({label(v) for v in self.values})


def infer_chart(
    columns: Sequence[str],
    rows: Sequence[Sequence[Any]] | Sequence[Mapping[str, Any]],
    title: str | None = None,
) -> ChartRequest | None:
    """A chart for these rows, or None when no chart would help (see the module's rules).

    `rows` are lists in `columns` order (as a QueryResult holds them) or objects.
    """
    if len(rows) < 2 or len(rows) > MAX_ROWS or len(set(columns)) != len(columns):
        return None
    table = [_as_dict(columns, row) for row in rows]
    profiled = [_profile(name, [row.get(name) for row in table]) for name in columns]
    present = [c for c in profiled if any(v is not None for v in c.values)]
    times = [c for c in present if c.role == "time" and c.distinct >= 2]
    labels = [c for c in present if c.role == "label" or (c.role == "time" and c not in times)]
    measures = [c for c in present if c.role == "measure"]
    if not measures:
        return None

    chart: tuple[ChartType, str, list[str], str | None] | None = None
    point_label: str | None = None
    if not times and _scatters(labels, measures, len(table)):
        chart = ("scatter", measures[0].name, [measures[1].name], None)
        point_label = labels[0].name if labels else None
    elif times:
        x = times[0]
        if not labels and len(times) == 1:
            chart = ("line", x.name, _like_sized(measures), None)
        elif len(labels) == 1 and len(times) == 1 and labels[0].distinct <= MAX_SERIES:
            chart = ("line", x.name, [measures[0].name], labels[0].name)
    elif len(labels) == 1 and labels[0].distinct >= 2:
        x = labels[0]
        y = _like_sized(measures)
        kind: ChartType = "pie" if len(y) == 1 and _splits_a_whole(x, measures[0]) else "bar"
        chart = (kind, x.name, y, None)
    elif len(labels) == 2:
        first, second = labels
        if second.distinct > first.distinct and first.distinct <= MAX_SERIES:
            first, second = second, first
        if first.distinct >= 2 and 2 <= second.distinct <= MAX_SERIES:
            chart = ("stacked_bar", first.name, [measures[0].name], second.name)
    if chart is None:
        return None

    kind, x_name, y, series = chart
    used = [x_name, *y, *([series] if series else []), *([point_label] if point_label else [])]
    data = [{name: row.get(name) for name in used} for row in table]
    try:
        return ChartRequest(
            chart_type=kind,
            title=(title or _title(x_name, y, series, against=kind == "scatter"))[:200],
            data=data,
            x=x_name,
            y=y,
            series=series,
            label=point_label,
        )
    except ValidationError:
        return None


def _scatters(labels: list[_Column], measures: list[_Column], rows: int) -> bool:
    """Two measures that a scatter chart shows best: alone, or beside one label naming each
    row once when their sizes are unlike (like-sized measures read better as grouped bars)."""
    if len(measures) != 2 or rows < MIN_SCATTER_POINTS:
        return False
    if not labels:
        return True
    return len(labels) == 1 and labels[0].distinct == rows and len(_like_sized(measures)) == 1


def _as_dict(columns: Sequence[str], row: Sequence[Any] | Mapping[str, Any]) -> dict[str, Any]:
    if isinstance(row, Mapping):
        return dict(row)
    return dict(zip(columns, row, strict=False))


def _profile(name: str, values: list[Any]) -> _Column:
    present = [v for v in values if v is not None]
    if not present:
        return _Column(name, "label", values)
    if all(isinstance(v, str) and as_datetime(v) is not None for v in present):
        return _Column(name, "time", values)
    numeric = all(is_number(v) for v in present)
    if numeric and _TIME_WORDS.search(name) and all(_whole(v) for v in present):
        return _Column(name, "time", values)
    if numeric and not _IDENTIFIER.search(name):
        return _Column(name, "measure", values)
    return _Column(name, "label", values)


def _whole(value: Any) -> bool:
    number = as_number(value)
    return number is not None and float(number).is_integer()


def _like_sized(measures: list[_Column]) -> list[str]:
    """The first measure, with the next ones of a like size (at most MAX_MEASURES)."""
    sizes = [_size(m) for m in measures]
    chosen = [measures[0].name]
    for measure, size in zip(measures[1:], sizes[1:], strict=True):
        if len(chosen) == MAX_MEASURES:
            break
        low, high = sorted((size, sizes[0]))
        if low > 0 and high / low <= LIKE_SIZE_RATIO:
            chosen.append(measure.name)
    return chosen


def _size(measure: _Column) -> float:
    numbers = [abs(float(n)) for n in map(_number, measure.values) if n is not None]
    return max(numbers, default=0.0)


def _number(value: Any) -> float | None:
    try:
        number = as_number(value)
    except ValueError:
        return None
    return None if number is None else float(number)


def _splits_a_whole(labels: _Column, measure: _Column) -> bool:
    """A few distinct labels, each once, whose non-negative values are shares of a whole."""
    if not 2 <= labels.distinct <= PIE_MAX_SLICES or labels.distinct != len(labels.values):
        return False
    numbers = [_number(v) for v in measure.values]
    if any(n is None or n < 0 for n in numbers):
        return False
    total = sum(n for n in numbers if n is not None)
    sums_to_whole = abs(total - 100) <= 0.5 or abs(total - 1) <= 0.005
    return sums_to_whole or _SHARE_WORDS.search(measure.name) is not None


def _title(x: str, y: list[str], series: str | None, *, against: bool = False) -> str:
    names = [_words(name) for name in y]
    what = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    title = f"{what} {'against' if against else 'by'} {_words(x)}"
    if series:
        title += f" and {_words(series)}"
    return title[:1].upper() + title[1:]


def _words(name: str) -> str:
    return re.sub(r"[_\s]+", " ", name).strip() or name
