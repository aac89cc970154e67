"""What a chart's cells hold: numbers, dates, labels; and what kind of axis a column makes."""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Iterable
from typing import Literal

Cell = str | int | float | bool | None
XKind = Literal["temporal", "quantitative", "nominal"]

NULL_LABEL = "(null)"

_INTEGER = re.compile(r"[-+]?\d+")
_GROUPED = re.compile(r"\s*-?\d{1,3}(,\d{3})+(\.\d+)?\s*")
_YEAR_MONTH = re.compile(r"^(\d{4})-(\d{2})$")
# Whole dates only: "2024-01-15", "2024-01-15T10:30:00", "2024-01-15 10:30:00+02:00", "2024-01".
_DATE_START = re.compile(r"^\d{4}-\d{2}(-\d{2})?([T ].*)?$")


def as_number(value: object) -> float | int | None:
    """The number a cell holds (numeric text included), None for an empty cell.

    Raises ValueError for anything else: text that is not a number, or a boolean.
    Non-finite values ("NaN", "Infinity", as query results spell them) count as empty.
    """
    if value is None:
        return None
    if isinstance(value, bool):
        raise ValueError(f"{value!r} is a boolean, not a number")
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, str):
        text = value.strip().replace(",", "") if _looks_grouped(value) else value.strip()
        if text == "":
            return None
        if _INTEGER.fullmatch(text):
            return int(text)
        try:
            number = float(text)
        except ValueError:
            raise ValueError(f"{value!r} is not a number") from None
        return number if math.isfinite(number) else None
    raise ValueError(f"{value!r} is not a number")


def _looks_grouped(text: str) -> bool:
    """'1,234,567.5' (thousands separators) rather than a list of numbers."""
    return _GROUPED.fullmatch(text) is not None


def is_number(value: object) -> bool:
    """True when the cell holds a number (None is not one)."""
    try:
        return as_number(value) is not None
    except ValueError:
        return False


def as_datetime(value: object) -> dt.datetime | None:
    """The moment an ISO date or date-time text names (UTC, naive), None otherwise."""
    if not isinstance(value, str) or not _DATE_START.match(value.strip()):
        return None
    text = value.strip()
    month = _YEAR_MONTH.match(text)
    try:
        if month:
            return dt.datetime(int(month.group(1)), int(month.group(2)), 1)
        moment = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    if moment.tzinfo is not None:
        moment = moment.astimezone(dt.UTC).replace(tzinfo=None)
    return moment


def x_kind(values: Iterable[Cell]) -> XKind:
    """Temporal when every non-empty value is an ISO date, quantitative when every one is a
    number (not numeric text: a label like "007" stays a label), nominal otherwise."""
    present = [v for v in values if v is not None]
    if not present:
        return "nominal"
    if all(as_datetime(v) is not None for v in present):
        return "temporal"
    if all(isinstance(v, int | float) and not isinstance(v, bool) for v in present):
        return "quantitative"
    return "nominal"


def label(value: Cell) -> str:
    """A category's label: the value as text, "(null)" for an empty cell."""
    if value is None:
        return NULL_LABEL
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)
