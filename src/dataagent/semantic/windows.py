"""Relative time windows ("last 6 months", "year to date", "previous quarter") as dates.

Pure module. A window is resolved against a reference date into a half-open range
[start, end) of calendar dates, so the compiler filters with two plain comparisons and
no dialect's date arithmetic. Periods start where the time grains do: weeks on Monday,
quarters in January, April, July and October.
"""

from __future__ import annotations

import calendar
import datetime as dt
from dataclasses import dataclass

from dataagent.semantic.plan import TimeGrain, TimeWindow

_MONTHS = {"month": 1, "quarter": 3, "year": 12}


@dataclass(frozen=True)
class DateRange:
    """Dates from `start` (included) to `end` (excluded)."""

    start: dt.date
    end: dt.date

    def describe(self) -> str:
        """`2025-07-01 to 2025-12-31` (the last included day)."""
        return f"{self.start.isoformat()} to {(self.end - dt.timedelta(days=1)).isoformat()}"


def add_months(day: dt.date, months: int) -> dt.date:
    """`day` moved by whole months; the 31st becomes the month's last day where needed."""
    index = day.year * 12 + day.month - 1 + months
    year, month = divmod(index, 12)
    last = calendar.monthrange(year, month + 1)[1]
    return dt.date(year, month + 1, min(day.day, last))


def shift(day: dt.date, grain: TimeGrain, count: int) -> dt.date:
    """`day` moved by `count` periods of `grain` (negative moves back)."""
    if grain == "day":
        return day + dt.timedelta(days=count)
    if grain == "week":
        return day + dt.timedelta(weeks=count)
    return add_months(day, _MONTHS[grain] * count)


def period_start(day: dt.date, grain: TimeGrain) -> dt.date:
    """The first day of the period of `grain` that holds `day`."""
    if grain == "day":
        return day
    if grain == "week":
        return day - dt.timedelta(days=day.weekday())
    if grain == "month":
        return day.replace(day=1)
    if grain == "quarter":
        return dt.date(day.year, 3 * ((day.month - 1) // 3) + 1, 1)
    return dt.date(day.year, 1, 1)


def resolve_window(window: TimeWindow, reference: dt.date) -> DateRange:
    """The dates a window covers, seen from `reference`."""
    current = period_start(reference, window.grain)
    if window.period == "last":
        start = shift(current, window.grain, 1 - window.count)
        return DateRange(start, shift(current, window.grain, 1))
    if window.period == "to_date":
        return DateRange(current, reference + dt.timedelta(days=1))
    return DateRange(shift(current, window.grain, -window.count), current)


def previous_range(window: TimeWindow, dates: DateRange, compare: str) -> DateRange:
    """The range a comparison looks at: the period before (same length), or a year before."""
    if compare == "previous_year":
        return DateRange(add_months(dates.start, -12), add_months(dates.end, -12))
    if window.period == "to_date":
        # The same stretch of the period before: 1 Jan-12 Mar against 1 Jan-12 Mar a year back.
        last_day = shift(dates.end - dt.timedelta(days=1), window.grain, -1)
        return DateRange(shift(dates.start, window.grain, -1), last_day + dt.timedelta(days=1))
    return DateRange(shift(dates.start, window.grain, -window.count), dates.start)
