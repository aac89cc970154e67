"""Dates in a plan of the offline planner: which date field, and the periods asked for.

Pure module. Absolute periods become `>=`/`<` filters, relative ones a time window; two
periods compared become a window and a comparison; a period the data does not reach (by
the value index's date extents) is not answered.
"""

from __future__ import annotations

import datetime as dt
import itertools

from dataagent.agent.offline.dates import DatePhrase
from dataagent.agent.offline.draft import AMBIGUOUS, Draft
from dataagent.agent.offline.lexicon import TEMPORAL
from dataagent.agent.offline.scan import Item, Scan
from dataagent.semantic.plan import Filter, TimeWindow
from dataagent.semantic.windows import add_months, resolve_window

# --- the date field ------------------------------------------------------------------------------


def date_field_for(draft: Draft, s: Scan) -> str | None:
    named = [
        sense.name
        for item in s.items
        if item.kind == "term"
        for sense in item.senses
        if sense.kind == "field" and draft.lexicon.field_of(sense.name)[1].data_type in TEMPORAL
    ]
    if named:
        return named[0]
    candidates: list[str] = []
    for d in draft.model.datasets:
        candidates += [f"{d.name}.{f.name}" for f in draft.lexicon.date_fields(d)]
    if not candidates:
        return None
    homes = draft.homes()
    reach: dict[str, int] = {}
    for home in homes:
        for name, hops in draft.lexicon.distances(home).items():
            reach[name] = min(reach.get(name, 99), hops)
    reachable = [c for c in candidates if c.split(".")[0] in reach]
    if not reachable:
        return None
    best = min(reach[c.split(".")[0]] for c in reachable)
    nearest = [c for c in reachable if reach[c.split(".")[0]] == best]
    if len(nearest) > 1:
        draft.doubt(AMBIGUOUS, f"dates could be on {' or '.join(nearest)}; took {nearest[0]}")
    return nearest[0]


def apply_dates(draft: Draft, s: Scan, dates: list[Item], today: dt.date) -> None:
    if not dates:
        if draft.compare == "dates":
            draft.unknown("compared with")
        elif draft.compare is not None:
            _default_window(draft, s, today)
        return
    date_field = date_field_for(draft, s)
    if date_field is None:
        for item in dates:
            draft.unknown(item.text)
        return
    phrases = [item.date for item in dates if item.date is not None]
    relative = [p for p in phrases if p.window is not None]
    absolute = [p for p in phrases if p.window is None]
    for phrase in absolute:
        draft.notes += list(phrase.notes)
    if draft.compare == "dates":
        _compared_periods(draft, date_field, absolute, relative)
        return
    if len(relative) > 1 or (relative and absolute):
        draft.unknown(dates[1].text)
        return
    for phrase in relative:
        assert phrase.window is not None
        window = phrase.window
        draft.window = TimeWindow(
            field=date_field, period=window.period, grain=window.grain, count=window.count
        )
        draft.understood.append(phrase.label)
    if len(absolute) > 1:
        _several_periods(draft, date_field, absolute)
    elif absolute:
        phrase = absolute[0]
        if draft.compare is not None and phrase.grain is not None and phrase.start and phrase.end:
            # "Q4 2025 vs the previous quarter": the period as a window seen from its last day.
            draft.window = TimeWindow(field=date_field, period="last", grain=phrase.grain, count=1)
            draft.reference = phrase.end - dt.timedelta(days=1)
        else:
            _range(draft, date_field, phrase.start, phrase.end)
        draft.understood.append(phrase.label)
    if draft.compare is not None and draft.window is None:
        _default_window(draft, s, today)
    _check_covered(draft, date_field, today)


def _check_covered(draft: Draft, date_field: str, today: dt.date) -> None:
    """A period the data does not reach (orders of 2023 when they start in 2024) is not
    answered with an empty result: the planner says which dates the data holds."""
    extent = draft.index.extent(date_field) if draft.index is not None else None
    if extent is None:
        return
    first, last = extent
    start, end = dt.date.min, dt.date.max
    for f in draft.filters:
        if isinstance(f, Filter) and f.field == date_field and isinstance(f.value, str):
            day = dt.date.fromisoformat(f.value[:10])
            if f.op == ">=":
                start = max(start, day)
            elif f.op == "<":
                end = min(end, day)
    if draft.window is not None:
        dates = resolve_window(draft.window, draft.reference or today)
        start, end = max(start, dates.start), min(end, dates.end)
    if end <= first or start > last:
        draft.unknown(f"dates outside {first.isoformat()} to {last.isoformat()}")
        draft.notes.append(
            f"{date_field} holds dates from {first.isoformat()} to {last.isoformat()} only"
        )


def _range(draft: Draft, date_field: str, start: dt.date | None, end: dt.date | None) -> None:
    if start is not None:
        draft.filters.append(Filter(field=date_field, op=">=", value=start.isoformat()))
    if end is not None:
        draft.filters.append(Filter(field=date_field, op="<", value=end.isoformat()))


def _compared_periods(
    draft: Draft, date_field: str, absolute: list[DatePhrase], relative: list[DatePhrase]
) -> None:
    """'November 2025 compared with November 2024': a window on the first period and a
    comparison with the second, when the second is the one before or a year before."""
    grains = {p.grain for p in absolute}
    if relative or len(absolute) != 2 or len(grains) != 1 or None in grains:
        draft.unknown("compared with")
        return
    now, before = sorted(absolute, key=lambda p: p.start or dt.date.min, reverse=True)
    assert now.start and now.end and before.start and before.end
    if before.start == add_months(now.start, -12):
        draft.compare = "previous_year"
    elif before.end == now.start:
        draft.compare = "previous_period"
    else:
        draft.unknown("compared with")
        return
    grain = now.grain
    assert grain is not None
    draft.window = TimeWindow(field=date_field, period="last", grain=grain, count=1)
    draft.reference = now.end - dt.timedelta(days=1)
    draft.understood.append(f"{now.label} compared with {before.label}")


def _several_periods(draft: Draft, date_field: str, absolute: list[DatePhrase]) -> None:
    """'Revenue in 2024 and 2025': one row per period, over the periods when they follow
    one another (not over a gap between them)."""
    grains = {p.grain for p in absolute}
    ordered = sorted(absolute, key=lambda p: p.start or dt.date.min)
    adjacent = all(a.end == b.start for a, b in itertools.pairwise(ordered))
    if len(grains) != 1 or None in grains or not adjacent:
        draft.unknown(" and ".join(p.label for p in absolute))
        return
    grain = ordered[0].grain
    draft.add_dimension(date_field, grain)
    _range(draft, date_field, ordered[0].start, ordered[-1].end)
    draft.understood.append(" and ".join(p.label for p in ordered))


def _default_window(draft: Draft, s: Scan, today: dt.date) -> None:
    """A comparison with no period said: this period (its grain) against the one before."""
    date_field = date_field_for(draft, s)
    kind = draft.compare
    if date_field is None or kind is None:
        draft.unknown("compared with")
        return
    grain = draft.compare_grain or "year"
    draft.window = TimeWindow(field=date_field, period="last", grain=grain, count=1)
    draft.notes.append(f"compared this {grain} with the one before")
