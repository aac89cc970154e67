"""A chart request: what to draw from which rows, validated with messages a model can act on."""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from dataagent.charts.values import Cell, as_number

ChartType = Literal["bar", "line", "pie", "stacked_bar", "scatter"]
CHART_TYPES: tuple[ChartType, ...] = ("bar", "line", "pie", "stacked_bar", "scatter")

MAX_ROWS = 5_000
MAX_Y_COLUMNS = 10
MAX_TITLE_CHARS = 200


@dataclass(frozen=True)
class ChartLimits:
    """How big a chart may be: its arguments, checked by `size_problems` before any other
    work, and its Vega-Lite spec, checked before it is drawn or kept."""

    argument_chars: int = 1_000_000
    rows: int = MAX_ROWS
    columns: int = 20
    text_chars: int = 200
    spec_chars: int = 2_000_000


def size_problems(arguments: dict[str, Any], limits: ChartLimits) -> list[str]:
    """What makes a chart's arguments too big to draw (none: an empty list).

    Cheap whatever the size of `arguments`: the total is counted only up to its limit, and
    each check stops at the first row that breaks it. What is not the right type is left to
    `ChartRequest`'s own validation.
    """
    if json_chars(arguments, limits.argument_chars) > limits.argument_chars:
        return [
            f"The arguments are over {limits.argument_chars:,} characters. Chart aggregated "
            f"data (GROUP BY in SQL first): at most {limits.rows:,} rows, labels of at most "
            f"{limits.text_chars} characters."
        ]
    problems = []
    for role in ("x", "series", "label"):
        name = arguments.get(role)
        if isinstance(name, str) and len(name) > limits.text_chars:
            problems.append(f"{role}: a column name has at most {limits.text_chars} characters.")
    y = arguments.get("y")
    if isinstance(y, list) and any(isinstance(n, str) and len(n) > limits.text_chars for n in y):
        problems.append(f"y: a column name has at most {limits.text_chars} characters.")
    rows = arguments.get("data")
    if not isinstance(rows, list):
        return problems
    if len(rows) > limits.rows:
        problems.append(
            f"data: {len(rows):,} rows; a chart takes at most {limits.rows:,}. Aggregate with "
            "SQL first (GROUP BY), or keep the top rows (ORDER BY ... LIMIT)."
        )
    columns: set[str] = set()
    for number, row in enumerate(rows, start=1):
        if not isinstance(row, dict):
            continue
        columns.update(row)
        if len(columns) > limits.columns:
            problems.append(
                f"data: the rows have more than {limits.columns} columns; keep only the "
                "columns the chart shows."
            )
            break
        long = next(
            (
                column
                for column, value in row.items()
                if len(column) > limits.text_chars
                or (isinstance(value, str) and len(value) > limits.text_chars)
            ),
            None,
        )
        if long is not None:
            problems.append(
                f"data: row {number}, column {long[: limits.text_chars]!r}: a column name or "
                f"text value has at most {limits.text_chars} characters; shorten the labels "
                "(e.g. SUBSTR in SQL)."
            )
            break
    return problems


def json_chars(value: Any, limit: int) -> int:
    """About how many characters `value` takes as JSON, counted only until past `limit`."""
    stack = [value]
    total = 0
    while stack and total <= limit:
        item = stack.pop()
        if isinstance(item, str):
            total += len(item) + 2
        elif isinstance(item, dict):
            total += 2
            for key, inner in item.items():
                total += len(str(key)) + 4
                stack.append(inner)
                if total > limit:
                    break
        elif isinstance(item, list | tuple):
            total += 2
            for inner in item:
                total += 1
                stack.append(inner)
                if total > limit:
                    break
        else:
            total += len(str(item))
    return total


class ChartRequest(BaseModel):
    """One chart: its type, title, the rows to draw and which columns go where.

    `data` holds rows as objects (column name → value). `x` names the category or time
    column; `y` the numeric columns (several y columns are drawn as several series);
    `series` optionally names a column whose values split the rows into series (long
    format: one row per x and series), for stacked bars and multi-line charts. A scatter
    chart draws one point per row, x and its one y column both numeric; `label` optionally
    names the column that says what each point is (shown in its tooltip). Numeric text in
    y columns (and a scatter's x) ("1,234.5") is read as a number.
    """

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    chart_type: ChartType = Field(
        description="bar (categories), line (trends over time or an ordered axis), "
        "pie (shares of a whole, one y column, a few categories), "
        "stacked_bar (parts of each category: needs `series` or several y columns), "
        "scatter (one point per row: how two measures relate; x and one y column both "
        "numeric, optional `label`)."
    )
    title: str = Field(min_length=1, max_length=MAX_TITLE_CHARS, description="The chart's title.")
    data: list[dict[str, Any]] = Field(
        min_length=1,
        max_length=MAX_ROWS,
        description="The rows to draw, each an object of column name → value "
        '(text, number, boolean or null), e.g. [{"region": "North", "revenue": 1200}].',
    )
    x: str = Field(
        min_length=1,
        description="The column for the x axis (categories or dates; a number for scatter).",
    )
    y: list[str] = Field(
        min_length=1,
        max_length=MAX_Y_COLUMNS,
        description='The numeric column(s) to plot, e.g. ["revenue"] or ["revenue", "cost"].',
    )
    series: str | None = Field(
        None,
        description="Optional column whose values split rows into series (long format), "
        'e.g. "product" for revenue by region and product.',
    )
    label: str | None = Field(
        None,
        description="Scatter only: optional column naming each point (shown in its "
        'tooltip), e.g. "customer" for revenue against orders per customer.',
    )

    @field_validator("y", mode="before")
    @classmethod
    def _one_column_is_a_list(cls, value: Any) -> Any:
        # Models often pass a single column name; it means a list of one.
        return [value] if isinstance(value, str) else value

    @field_validator("series", "label", mode="before")
    @classmethod
    def _blank_series_is_none(cls, value: Any) -> Any:
        return None if isinstance(value, str) and not value.strip() else value

    @model_validator(mode="after")
    def _check(self) -> ChartRequest:
        _refuse_nul(self.title)
        columns = _columns(self.data)
        for row_number, row in enumerate(self.data, start=1):
            for column, value in row.items():
                _refuse_nul(column)
                if isinstance(value, list | dict):
                    what = "list" if isinstance(value, list) else "object"
                    raise ValueError(
                        f"Row {row_number}, column {column!r}: a value must be text, a number, "
                        f"a boolean or null, not a {what}."
                    )
                if isinstance(value, str):
                    _refuse_nul(value)
                elif value is not None and not isinstance(value, int | float | bool):
                    raise ValueError(
                        f"Row {row_number}, column {column!r}: {value!r} is not a value."
                    )
        _known(self.x, "x", columns)
        for column in self.y:
            _known(column, "y", columns)
        if self.series is not None:
            _known(self.series, "series", columns)
        if self.label is not None:
            _known(self.label, "label", columns)
        self._check_roles()
        self._check_type_fits()
        self.data = [self._numbers_in_y(row, n) for n, row in enumerate(self.data, start=1)]
        if self.chart_type == "scatter":
            self._check_scatter_x()
        for column in self.y:
            if all(row.get(column) is None for row in self.data):
                raise ValueError(f"The y column {column!r} holds no numbers (every value is null).")
        if self.chart_type == "pie":
            self._check_pie()
        return self

    def _check_roles(self) -> None:
        if len(set(self.y)) != len(self.y):
            raise ValueError("A column is named twice in y.")
        if self.x in self.y:
            raise ValueError(f"The column {self.x!r} cannot be both x and y.")
        if self.series is not None:
            if self.series == self.x:
                raise ValueError(f"The column {self.x!r} cannot be both x and series.")
            if self.series in self.y:
                raise ValueError(f"The column {self.series!r} cannot be both series and y.")
            if len(self.y) > 1:
                raise ValueError(
                    "Use either series (long format: one y column, a column naming the series) "
                    "or several y columns (wide format: one series per column), not both."
                )
        if self.label is not None and (self.label == self.x or self.label in self.y):
            role = "x" if self.label == self.x else "y"
            raise ValueError(f"The column {self.label!r} cannot be both label and {role}.")

    def _check_type_fits(self) -> None:
        if self.chart_type == "pie":
            if len(self.y) != 1:
                raise ValueError("A pie chart takes exactly one y column.")
            if self.series is not None:
                raise ValueError("A pie chart cannot have series; use stacked_bar instead.")
        if self.chart_type == "scatter":
            if len(self.y) != 1:
                raise ValueError("A scatter chart takes exactly one y column.")
            if self.series is not None:
                raise ValueError(
                    "A scatter chart cannot have series; name each point with label instead."
                )
        elif self.label is not None:
            raise ValueError("Only a scatter chart takes a label column; use x or series.")
        if self.chart_type == "stacked_bar" and self.series is None and len(self.y) < 2:
            raise ValueError(
                "A stacked bar chart needs series (a column splitting each bar) or several "
                "y columns; for one y column use a bar chart."
            )

    def _numbers_in_y(self, row: dict[str, Any], row_number: int) -> dict[str, Cell]:
        numbers = dict(row)
        for column in self.y:
            try:
                numbers[column] = as_number(row.get(column))
            except ValueError as error:
                raise ValueError(
                    f"The y column {column!r} must hold numbers, but row {row_number} has "
                    f"{row.get(column)!r} ({error}). Put numeric columns in y and the label "
                    "column in x or series."
                ) from None
        return numbers

    def _check_scatter_x(self) -> None:
        for row_number, row in enumerate(self.data, start=1):
            try:
                row[self.x] = as_number(row.get(self.x))
            except ValueError as error:
                raise ValueError(
                    f"A scatter chart's x column {self.x!r} must hold numbers, but row "
                    f"{row_number} has {row.get(self.x)!r} ({error}). For categories use a "
                    "bar chart; to name each point use label."
                ) from None
        if all(row.get(self.x) is None for row in self.data):
            raise ValueError(f"The x column {self.x!r} holds no numbers (every value is null).")

    def _check_pie(self) -> None:
        column = self.y[0]
        values = [row[column] for row in self.data if row[column] is not None]
        if any(v < 0 for v in values):
            raise ValueError(
                f"A pie chart shows shares of a whole, but {column!r} has negative values; "
                "use a bar chart."
            )
        if not any(v > 0 for v in values):
            raise ValueError(f"A pie chart needs a positive value in {column!r}.")

    @property
    def columns(self) -> list[str]:
        """Every column the rows hold, in order of first appearance."""
        return _columns(self.data)


def _columns(rows: list[dict[str, Any]]) -> list[str]:
    seen: dict[str, None] = {}
    for row in rows:
        for column in row:
            seen.setdefault(column, None)
    return list(seen)


def _known(column: str, role: str, columns: list[str]) -> None:
    if column in columns:
        return
    close = [c for c in columns if c.lower() == column.lower()]
    close = close or difflib.get_close_matches(column, columns, n=1, cutoff=0.6)
    hint = f" Did you mean {close[0]!r}?" if close else ""
    listed = ", ".join(repr(c) for c in columns)
    raise ValueError(
        f"Unknown column {column!r} in {role}: the data has the columns {listed}.{hint}"
    )


def _refuse_nul(text: str) -> None:
    if "\x00" in text:
        raise ValueError("Text cannot contain the NUL character (\\u0000).")
