"""Date phrases of a question, read against a reference date.

Pure module. Absolute periods ("2025", "Q4 2025", "March 2025", "since March 2025",
"between January and March 2025") become a half-open range of dates; relative ones
("last 6 months", "last quarter", "this year", "year to date") become a QueryPlan time
window, which the compiler resolves against the plan's reference date.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from dataagent.semantic.plan import TimeGrain
from dataagent.semantic.windows import add_months

MONTHS = {
    **{
        name: i + 1
        for i, name in enumerate(
            (
                *("january", "february", "march", "april", "may", "june", "july"),
                *("august", "september", "october", "november", "december"),
            )
        )
    },
    **{
        name: i + 1
        for i, name in enumerate(
            ("jan", "feb", "mar", "apr", "", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
        )
        if name
    },
    "sept": 9,
}
NUMBER_WORDS = {
    **{w: i + 1 for i, w in enumerate(("one", "two", "three", "four", "five", "six", "seven"))},
    **{w: i + 8 for i, w in enumerate(("eight", "nine", "ten", "eleven", "twelve"))},
    "fifteen": 15,
    "twenty": 20,
    "thirty": 30,
    "a": 1,
}
ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "1st": 1, "2nd": 2, "3rd": 3}
GRAINS: dict[str, TimeGrain] = {
    **{g: g for g in ("day", "week", "month", "quarter", "year")},
    **{f"{g}s": g for g in ("day", "week", "month", "quarter", "year")},
}
GRAIN_ADVERBS: dict[str, TimeGrain] = {
    "daily": "day",
    "weekly": "week",
    "monthly": "month",
    "quarterly": "quarter",
    "yearly": "year",
    "annual": "year",
    "annually": "year",
}
_TO_DATE: dict[str, TimeGrain] = {"ytd": "year", "mtd": "month", "qtd": "quarter", "wtd": "week"}


@dataclass(frozen=True)
class Window:
    """A relative window, as `TimeWindow` takes it (without the field)."""

    period: str  # last | to_date | previous
    grain: TimeGrain
    count: int = 1


@dataclass(frozen=True)
class DatePhrase:
    """What some words of a question say about dates: a range or a window."""

    size: int
    label: str
    start: dt.date | None = None
    end: dt.date | None = None  # excluded
    window: Window | None = None
    grain: TimeGrain | None = None  # the length of an absolute period (year, quarter, month)
    notes: tuple[str, ...] = field(default_factory=tuple)


def _number(token: str) -> int | None:
    if token.isdigit():
        return int(token)
    return NUMBER_WORDS.get(token)


def _year(token: str) -> int | None:
    if len(token) == 4 and token.isdigit() and 1900 <= int(token) <= 2100:
        return int(token)
    return None


def _period(
    tokens: list[str], i: int, today: dt.date, *, after_in: bool
) -> tuple[int, dt.date, dt.date, TimeGrain, str, str | None] | None:
    """An absolute period starting at word `i`: (words, start, end, grain, label, note)."""
    if i >= len(tokens):
        return None
    t = tokens[i]
    year = _year(t)
    if year is not None:
        return 1, dt.date(year, 1, 1), dt.date(year + 1, 1, 1), "year", str(year), None
    quarter: int | None = None
    size = 1
    if len(t) == 2 and t[0] == "q" and t[1] in "1234":
        quarter = int(t[1])
    elif t in ORDINALS and i + 1 < len(tokens) and tokens[i + 1] == "quarter":
        quarter, size = ORDINALS[t], 2
    elif t == "the" and len(tokens) > i + 2 and tokens[i + 2] == "quarter":
        quarter, size = ORDINALS.get(tokens[i + 1]), 3
    if quarter is not None and quarter <= 4:
        year, more = _year_after(tokens, i + size)
        note = None
        if year is None:
            year = today.year if 3 * quarter - 2 <= today.month else today.year - 1
            note = f"'Q{quarter}' read as Q{quarter} {year}"
        start = dt.date(year, 3 * quarter - 2, 1)
        label = f"Q{quarter} {year}"
        return size + more, start, add_months(start, 3), "quarter", label, note
    month = MONTHS.get(t)
    if month is not None:
        year, more = _year_after(tokens, i + 1)
        if year is None and (t == "may" or t == "mar") and not after_in:
            return None  # "may" the verb, "mar" the word
        note = None
        if year is None:
            year = today.year if month <= today.month else today.year - 1
            note = f"'{t}' read as {dt.date(year, month, 1):%B %Y}"
        start = dt.date(year, month, 1)
        return 1 + more, start, add_months(start, 1), "month", f"{start:%B %Y}", note
    return None


def _year_after(tokens: list[str], i: int) -> tuple[int | None, int]:
    """A year at word `i` (or after `of`): (year, words used)."""
    if i < len(tokens) and _year(tokens[i]) is not None:
        return _year(tokens[i]), 1
    if i + 1 < len(tokens) and tokens[i] == "of" and _year(tokens[i + 1]) is not None:
        return _year(tokens[i + 1]), 2
    return None, 0


def _relative(tokens: list[str], i: int) -> tuple[int, Window, str] | None:
    t = tokens[i]
    nxt = tokens[i + 1] if i + 1 < len(tokens) else ""
    after = tokens[i + 2] if i + 2 < len(tokens) else ""
    if t in _TO_DATE:
        return 1, Window("to_date", _TO_DATE[t]), f"{_TO_DATE[t]} to date"
    if t in GRAINS and nxt == "to" and after == "date":
        return 3, Window("to_date", GRAINS[t]), f"{GRAINS[t]} to date"
    if t == "so" and nxt == "far" and after == "this" and i + 3 < len(tokens):
        grain = GRAINS.get(tokens[i + 3])
        if grain:
            return 4, Window("to_date", grain), f"{grain} to date"
    if t == "today":
        return 1, Window("last", "day"), "today"
    if t == "yesterday":
        return 1, Window("previous", "day"), "yesterday"
    if t in ("this", "current") and nxt in GRAINS:
        grain = GRAINS[nxt]
        return 2, Window("last", grain), f"this {grain}"
    if t in ("last", "past", "previous", "prior", "trailing", "recent"):
        count = _number(nxt)
        if count is not None and after in GRAINS and nxt != "a":
            grain = GRAINS[after]
            period = "previous" if t in ("previous", "prior") else "last"
            return 3, Window(period, grain, count), f"{t} {count} {after}"
        if nxt in GRAINS and not nxt.endswith("s"):
            grain = GRAINS[nxt]
            return 2, Window("previous", grain), f"last {grain}"
    return None


def date_phrase(tokens: list[str], i: int, today: dt.date) -> DatePhrase | None:
    """The date phrase starting at word `i` of a question (lower-case words), if any."""
    relative = _relative(tokens, i)
    if relative is not None:
        size, window, label = relative
        return DatePhrase(size, label, window=window)
    t = tokens[i]
    if t in ("since", "after", "before", "until", "till", "through", "from", "between"):
        first = _period(tokens, i + 1, today, after_in=True)
        if first is None:
            return None
        size, start, end, grain, label, note = first
        used = 1 + size
        notes: tuple[str, ...] = (note,) if note else ()
        if t in ("from", "between"):
            joiner = tokens[i + used] if i + used < len(tokens) else ""
            if joiner in ("to", "and", "through", "until", "till"):
                second = _period(tokens, i + used + 1, today, after_in=True)
                if second is not None:
                    size2, start2, end2, _, label2, note2 = second
                    if note and not note2:
                        # "between January and March 2025": the year said once, at the end.
                        start, notes = start.replace(year=start2.year), ()
                        label = f"{label.split()[0]} {start2.year}"
                    notes += (note2,) if note2 else ()
                    if end2 > start:
                        return DatePhrase(
                            used + 1 + size2, f"{label} to {label2}", start, end2, notes=notes
                        )
                return None
            if t == "from":
                return DatePhrase(used, f"since {label}", start, None, notes=notes)
            return None
        if t in ("since", "after"):
            begin = start if t == "since" else end
            return DatePhrase(used, f"{t} {label}", begin, None, notes=notes)
        if t == "before":
            return DatePhrase(used, f"before {label}", None, start, notes=notes)
        return DatePhrase(used, f"through {label}", None, end, notes=notes)
    after_in = i > 0 and tokens[i - 1] in ("in", "during", "for", "of", "on")
    period = _period(tokens, i, today, after_in=after_in)
    if period is None:
        return None
    size, start, end, grain, label, note = period
    return DatePhrase(size, label, start, end, grain=grain, notes=(note,) if note else ())
