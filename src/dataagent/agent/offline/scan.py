"""A question read word by word into items: terms of the model, values, dates and phrasing.

Pure module. At each word the longest reading wins: a phrase of the offline planner's own
phrasing (dates, rankings, comparisons...), then a phrase of the model's vocabulary, then
a value of the value index; filler words are skipped and every other word is kept as
not understood.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from dataagent.agent.offline import words as w
from dataagent.agent.offline.dates import (
    GRAIN_ADVERBS,
    GRAINS,
    MONTHS,
    NUMBER_WORDS,
    DatePhrase,
    date_phrase,
)
from dataagent.agent.offline.lexicon import Lexicon, Sense
from dataagent.ontology.values import ValueIndex, ValueMatch, question_words
from dataagent.semantic.plan import Aggregation, TimeGrain


@dataclass
class Item:
    """Some words of the question and what they say."""

    kind: str  # term value agg group grain date compare top cmp share neg others conj list
    start: int
    end: int
    text: str
    senses: list[Sense] = field(default_factory=list)
    match: ValueMatch | None = None
    agg: Aggregation | None = None
    grain: TimeGrain | None = None
    date: DatePhrase | None = None
    compare: str | None = None  # previous_year | previous_period | a grain (month over month)
    n: int | None = None
    direction: str = "desc"
    op: str | None = None
    number: float | list[float] | None = None
    percent: bool = False
    grouped: bool = False  # a grain said with a grouping word ("by month", not "monthly")


@dataclass
class Scan:
    """The items of a question and the words it could not place."""

    tokens: list[str]
    items: list[Item]
    unknown: list[str]


def _phrase(tokens: list[str], i: int, table: frozenset[tuple[str, ...]]) -> int:
    """The length of the longest phrase of `table` at word `i` (0 when none)."""
    best = 0
    for phrase in table:
        if tuple(tokens[i : i + len(phrase)]) == phrase:
            best = max(best, len(phrase))
    return best


def number_at(tokens: list[str], i: int) -> tuple[int, float, bool] | None:
    """A number at word `i`: (words used, value, said as a percent)."""
    if i >= len(tokens):
        return None
    t = tokens[i]
    text = t.replace(",", "")
    try:
        value = float(text)
    except ValueError:
        if t in NUMBER_WORDS and t != "a":
            value = float(NUMBER_WORDS[t])
        else:
            return None
    used = 1
    nxt = tokens[i + 1] if i + 1 < len(tokens) else ""
    if nxt in w.MULTIPLIERS:
        value *= w.MULTIPLIERS[nxt]
        used += 1
    percent = False
    if i + used < len(tokens) and tokens[i + used] == "percent":
        percent, used = True, used + 1
    return used, value, percent


def _compare(tokens: list[str], i: int) -> tuple[int, str] | None:
    for phrase, kind in w.OVER.items():
        if tuple(tokens[i : i + len(phrase)]) == phrase:
            return len(phrase), kind
    lead = _phrase(tokens, i, w.COMPARE_LEADS)
    if not lead:
        return None
    j = i + lead
    year = _phrase(tokens, j, w.PREVIOUS_YEAR)
    if year:
        return lead + year, "previous_year"
    period = _phrase(tokens, j, w.PREVIOUS_PERIOD)
    if period:
        return lead + period, "previous_period"
    skip = 1 if j < len(tokens) and tokens[j] == "the" else 0
    ahead = [*tokens[j + skip : j + skip + 3], "", "", ""][:3]
    counted = number_at(ahead, 1) is not None and ahead[2] in GRAINS
    if counted and ahead[0] in ("previous", "prior", "preceding"):
        return lead + skip + 3, "previous_period"  # "the previous 6 months"
    before = number_at(ahead, 0) is not None and ahead[1] in GRAINS
    if before and ahead[2] in ("before", "prior", "earlier"):
        return lead + skip + 3, "previous_period"  # "the 6 months before"
    if _period_start(tokens, j + skip):
        return lead, "dates"  # "compared with November 2024": which dates the planner decides
    if j + skip + 1 < len(tokens) and tokens[j + skip] in ("last", "previous", "prior"):
        grain = GRAINS.get(tokens[j + skip + 1])
        if grain is not None and not tokens[j + skip + 1].endswith("s"):
            return lead + skip + 2, grain
    return None


def _period_start(tokens: list[str], i: int) -> bool:
    """Whether an absolute period ("2024", "Q4 2024", "November 2024") starts at word `i`."""
    if i >= len(tokens):
        return False
    t = tokens[i]
    year = len(t) == 4 and t.isdigit()
    quarter = len(t) == 2 and t[0] == "q" and t[1] in "1234"
    return year or quarter or t in MONTHS


def _top(tokens: list[str], i: int) -> tuple[int, int | None, str] | None:
    t = tokens[i]
    if t in w.TOP_EARLIEST or t in w.TOP_LATEST:
        if i + 1 < len(tokens) and tokens[i + 1] in ("and", "or", "name", "names"):
            return None  # "the first and last name"
        return 1, None, "asc" if t in w.TOP_EARLIEST else "desc"
    if t not in w.TOP_DESC and t not in w.TOP_ASC:
        return None
    direction = "desc" if t in w.TOP_DESC else "asc"
    found = number_at(tokens, i + 1)
    if found is not None and not found[2] and found[1] == int(found[1]) and found[1] >= 1:
        return 1 + found[0], int(found[1]), direction
    return 1, None, direction


def _comparison(tokens: list[str], i: int) -> tuple[int, str, float | list[float], bool] | None:
    best: tuple[int, str] | None = None
    for phrase, op in w.COMPARISONS.items():
        if tuple(tokens[i : i + len(phrase)]) == phrase and (best is None or len(phrase) > best[0]):
            best = (len(phrase), op)
    if best is not None:
        size, op = best
        j = i + size
        if j < len(tokens) and tokens[j] in ("than",):
            j += 1
        first = number_at(tokens, j)
        if first is None:
            return None
        used, value, percent = first
        if op == "between":
            k = j + used
            if k < len(tokens) and tokens[k] in ("and", "to"):
                second = number_at(tokens, k + 1)
                if second is not None:
                    return k + 1 + second[0] - i, op, [value, second[1]], percent or second[2]
            return None
        return j + used - i, op, value, percent
    found = number_at(tokens, i)
    if found is not None:
        used, value, percent = found
        for phrase, op in w.TRAILING_COMPARISONS.items():
            j = i + used
            if tuple(tokens[j : j + len(phrase)]) == phrase:
                return used + len(phrase), op, value, percent
    return None


def scan(question: str, lexicon: Lexicon, values: ValueIndex | None, today: dt.date) -> Scan:
    """Read `question` into items (see the module's docstring)."""
    pairs = question_words(question)
    tokens = [t for t, _ in pairs]
    matches = {m.start: m for m in (values.lookup(question) if values is not None else [])}
    items: list[Item] = []
    unknown: list[str] = []
    i = 0

    def text(start: int, end: int) -> str:
        return " ".join(written for _, written in pairs[start:end])

    while i < len(tokens):
        t = tokens[i]
        candidates: list[Item] = []
        found = _compare(tokens, i)
        if found is not None:
            size, kind = found
            candidates.append(Item("compare", i, i + size, text(i, i + size), compare=kind))
        size = _phrase(tokens, i, w.OTHERS)
        if size:
            candidates.append(Item("others", i, i + size, text(i, i + size)))
        date = date_phrase(tokens, i, today)
        if date is not None:
            candidates.append(Item("date", i, i + date.size, text(i, i + date.size), date=date))
        top = _top(tokens, i)
        if top is not None:
            size, n, direction = top
            candidates.append(Item("top", i, i + size, text(i, i + size), n=n, direction=direction))
        comparison = _comparison(tokens, i)
        if comparison is not None:
            size, op, number, percent = comparison
            item = Item("cmp", i, i + size, text(i, i + size), op=op, number=number)
            item.percent = percent
            candidates.append(item)
        size = _phrase(tokens, i, w.SHARE)
        if size and not (items and items[-1].kind == "agg"):  # "the average share of"
            candidates.append(Item("share", i, i + size, text(i, i + size)))
        size = _phrase(tokens, i, w.NEGATION)
        if size:
            candidates.append(Item("neg", i, i + size, text(i, i + size)))
        size = _phrase(tokens, i, w.GROUPING)
        if size:
            grain = GRAINS.get(tokens[i + size]) if i + size < len(tokens) else None
            if grain is not None:
                item = Item("grain", i, i + size + 1, text(i, i + size + 1), grain=grain)
                item.grouped = True
                candidates.append(item)
            else:
                candidates.append(Item("group", i, i + size, text(i, i + size)))
        for table, kind in ((w.SORTS, "sort"), (w.DIRECTIONS, "direction")):
            for phrase, direction in table.items():
                if tuple(tokens[i : i + len(phrase)]) == phrase:
                    item = Item(kind, i, i + len(phrase), text(i, i + len(phrase)))
                    item.direction = direction
                    candidates.append(item)
        size = _phrase(tokens, i, w.ATTRIBUTES)
        if size:
            candidates.append(Item("attr", i, i + size, text(i, i + size)))
        if t in w.SIGNS:
            op = w.SIGNS[t]
            candidates.append(Item("cmp", i, i + 1, text(i, i + 1), op=op, number=0.0))
        if t in w.SAMPLE:
            candidates.append(Item("sample", i, i + 1, text(i, i + 1)))
        if t in w.CHANGE_WORDS:
            candidates.append(Item("change", i, i + 1, text(i, i + 1)))
        if t in GRAIN_ADVERBS:
            candidates.append(Item("grain", i, i + 1, text(i, i + 1), grain=GRAIN_ADVERBS[t]))
        size = _phrase(tokens, i, frozenset(w.AGGREGATIONS))
        lexical = lexicon.match(tokens, i)
        if lexical is not None and items and items[-1].kind == "agg":
            size = 0  # "total total": the second is a field named Total
        if size:
            agg = w.AGGREGATIONS[tuple(tokens[i : i + size])]
            candidates.append(Item("agg", i, i + size, text(i, i + size), agg=agg))
        if lexical is not None:
            size, senses = lexical
            candidates.append(Item("term", i, i + size, text(i, i + size), senses=list(senses)))
        match = matches.get(i)
        if match is not None:
            candidates.append(Item("value", i, match.end, match.text, match=match))
        if candidates:
            # Longest first; on a tie the order above (phrasing, then model words, then values).
            best = max(candidates, key=lambda c: c.end - c.start)
            items.append(best)
            i = best.end
            continue
        counted = number_at(tokens, i)
        if t in ("and", "or"):
            items.append(Item("conj", i, i + 1, t))
        elif counted is not None and counted[0] == 1 and counted[1] == int(counted[1]):
            items.append(Item("number", i, i + 1, pairs[i][1], n=int(counted[1])))
        elif t in w.LIST and not items:
            items.append(Item("list", i, i + 1, t))
        elif t in w.VALUE_WORDS:
            items.append(Item("value_word", i, i + 1, pairs[i][1]))
        elif t not in w.STOP:
            unknown.append(pairs[i][1])
        i += 1
    return Scan(tokens, items, unknown)
