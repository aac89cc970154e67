"""Suggested questions for a semantic model: what the welcome screen offers to ask.

Pure and deterministic, drawn from what the model knows: its metrics first (those a person
wrote or kept, each by a dimension it can be grouped by, or per month), then measures
(numeric fields that are not keys), dimensions (text fields with few values), time fields,
and many-to-one relationships (a parent to rank or group by). The same model always gives the same
suggestions, spread over its datasets and over the kinds of question, in plain English
with no SQL, each answerable by the agent with one query.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from dataagent.semantic.expressions import ExpressionError, metric_uses
from dataagent.semantic.generation import humanise, in_words
from dataagent.semantic.model import (
    Cardinality,
    Dataset,
    DataType,
    Field_,
    Metric,
    SemanticModel,
)
from dataagent.semantic.nouns import plural, singular

TOP_N = 10

NUMERIC = (DataType.INTEGER, DataType.DECIMAL, DataType.FLOAT)
TEMPORAL = (DataType.DATE, DataType.TIMESTAMP)

# Words in a field's name that make it a key, a code or a position, not something to add up.
NOT_MEASURE = frozenset(
    {
        *("id", "key", "code", "no", "num", "number", "uuid", "guid", "pk", "fk", "ref"),
        *("year", "month", "day", "week", "quarter", "hour", "minute", "second"),
        *("zip", "zipcode", "postal", "postcode", "lat", "latitude", "lon", "lng", "longitude"),
        *("phone", "version", "seq", "sequence", "position", "sort", "rank", "index", "ordinal"),
    }
)
# Measures that make sense added up; the rest are averaged (prices, rates, sizes, scores).
ADDITIVE = frozenset(
    {
        *("quantity", "qty", "amount", "revenue", "sales", "total", "units", "volume"),
        *("spend", "spent", "paid", "profit", "income", "cost", "costs", "value", "count"),
    }
)
AVERAGED = frozenset(
    {
        *("unit", "price", "rate", "ratio", "percent", "percentage", "pct", "share", "score"),
        *("rating", "discount", "avg", "average", "mean", "age", "size", "weight", "height"),
        *("width", "length", "feet", "margin", "temperature", "duration"),
    }
)
# Text fields that name or describe one row: never a dimension to group by.
NOT_DIMENSION = frozenset(
    {
        *("name", "email", "mail", "description", "desc", "comment", "comments", "note"),
        *("notes", "address", "street", "url", "uri", "link", "phone", "password", "hash"),
        *("token", "sku", "text", "body", "summary", "message", "id", "uuid", "key"),
    }
)
# Words of a good dimension, best first (a field with none needs sampled values to qualify).
DIMENSION_WORDS: tuple[str, ...] = (
    *("category", "segment", "type", "kind", "status", "channel", "region", "department"),
    *("class", "tier", "level", "group", "brand", "genre", "industry", "sector", "plan"),
    *("priority", "stage", "method", "mode", "source", "platform", "role", "team"),
    *("division", "gender", "language", "currency", "country", "state", "city"),
)
MAX_DIMENSION_VALUES = 20
# Words of a field that names a row (a parent worth ranking: "top 10 customers").
NAMING = frozenset({"name", "title", "label", "email", "username"})
# Time fields that do not date the row itself.
SIDE_DATES = frozenset({"updated", "modified", "deleted", "birth", "dob", "expires", "expiry"})
TIME_WORDS = frozenset({"date", "time", "day", "timestamp", "datetime", "month", "year", "week"})
TABLE_PREFIXES = frozenset({"dim", "fact", "fct", "tbl", "stg", "vw"})
# Too few rows for a trend to say anything (when the row count is known).
MIN_TREND_ROWS = 100
# The model knows no date ranges: months suit most data from a few months to a few years.
GRAIN = "month"


@dataclass(frozen=True)
class Suggestion:
    """A question to offer: a short title, a line saying what it shows, the prompt to send."""

    title: str
    description: str
    prompt: str


# --- words ------------------------------------------------------------------------------------


def _words(identifier: str) -> list[str]:
    """Lower-case words of an identifier; acronyms keep their capitals (`SKU`, `ID`)."""
    return in_words(humanise(identifier)).split()


def _tokens(identifier: str) -> set[str]:
    return {word.lower() for word in _words(identifier)}


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def _entity(dataset: Dataset) -> str:
    """What one row is called, as a plural phrase: `order_items` -> `order items`."""
    words = _words(dataset.name)
    if len(words) > 1 and words[0].lower() in TABLE_PREFIXES:
        words = words[1:]
    return plural(" ".join(words))


def _phrase(f: Field_) -> str:
    """How to say a field: its label (or its name) in lower case, acronyms kept."""
    return in_words(f.label or humanise(f.name))


def _time_phrase(f: Field_) -> str:
    """A field dating rows, said as a date: `created_at` -> `created date`."""
    words = _phrase(f).split()
    if len(words) > 1 and words[-1] in ("at", "on"):
        words = words[:-1]
    if not TIME_WORDS & {w.lower() for w in words}:
        words.append("date")
    return " ".join(words)


# --- what each dataset offers -------------------------------------------------------------------


@dataclass(frozen=True)
class _Measure:
    column: Field_
    additive: bool

    @property
    def phrase(self) -> str:
        return _phrase(self.column)

    @property
    def aggregate(self) -> str:
        return "total" if self.additive else "average"

    def said(self) -> str:
        """The aggregate and the measure ("total quantity"), said once ("total", not
        "total total", for a field named Total)."""
        phrase = self.phrase
        if phrase.split()[0].lower() == self.aggregate:
            return phrase
        return f"{self.aggregate} {phrase}"


@dataclass
class _Profile:
    """One dataset as the suggestions see it."""

    dataset: Dataset
    entity: str
    measures: list[_Measure]
    dimensions: list[Field_]
    times: list[Field_]
    named: bool
    parents: list[_Profile] = field(default_factory=list)
    children: int = 0

    @property
    def one(self) -> str:
        return singular(self.entity)

    @property
    def trendable(self) -> bool:
        rows = self.dataset.row_count
        return rows is None or rows >= MIN_TREND_ROWS

    def time(self) -> Field_ | None:
        """The field dating this dataset's rows: its own, or a parent's (one join away)."""
        for owner in (self, *self.parents):
            if owner.times:
                return owner.times[0]
        return None

    @property
    def score(self) -> int:
        """How much there is to ask of this dataset: facts with measures and time first."""
        return (
            3 * any(m.additive for m in self.measures)
            + bool(self.measures)
            + 2 * (self.trendable and self.time() is not None)
            + 2 * len(self.parents)
            + self.children
            + bool(self.dimensions)
        )


def _key_fields(model: SemanticModel) -> dict[str, set[str]]:
    keys: dict[str, set[str]] = {d.name: set(d.primary_key) for d in model.datasets}
    for r in model.relationships:
        keys[r.from_dataset].update(r.from_columns)
        keys[r.to_dataset].update(r.to_columns)
    return keys


def _measures(dataset: Dataset, keys: set[str]) -> list[_Measure]:
    found = []
    for f in dataset.fields:
        tokens = _tokens(f.name)
        if f.data_type not in NUMERIC or f.is_primary_key or f.name in keys:
            continue
        if tokens & NOT_MEASURE:
            continue
        found.append(_Measure(f, additive=bool(tokens & ADDITIVE) and not tokens & AVERAGED))
    # Sums of money first, then other sums, then averages; otherwise in field order.
    return sorted(found, key=lambda m: (not m.additive, m.column.data_type is DataType.INTEGER))


def _dimension_rank(f: Field_, dataset: Dataset, keys: set[str]) -> tuple[int, int] | None:
    if f.data_type is not DataType.VARCHAR or f.is_primary_key or f.name in keys:
        return None
    tokens = _tokens(f.name)
    if tokens & NOT_DIMENSION:
        return None
    count = f.distinct_count
    if count is not None and (count < 2 or count > MAX_DIMENSION_VALUES):
        return None
    if count is not None and dataset.row_count is not None and count >= dataset.row_count:
        return None  # a different value on every row: nothing to group
    ranks = [DIMENSION_WORDS.index(t) for t in tokens if t in DIMENSION_WORDS]
    if ranks:
        return min(ranks), 0 if count is not None else 1
    if count is not None:
        return len(DIMENSION_WORDS), 0  # few sampled values: a dimension, whatever its name
    return None


def _dimensions(dataset: Dataset, keys: set[str]) -> list[Field_]:
    ranked = []
    for position, f in enumerate(dataset.fields):
        rank = _dimension_rank(f, dataset, keys)
        if rank is not None:
            ranked.append((rank, position, f))
    return [f for _, _, f in sorted(ranked, key=lambda item: (item[0], item[1]))]


def _times(dataset: Dataset) -> list[Field_]:
    return [
        f for f in dataset.fields if f.data_type in TEMPORAL and not _tokens(f.name) & SIDE_DATES
    ]


def _profiles(model: SemanticModel) -> list[_Profile]:
    keys = _key_fields(model)
    profiles = {
        d.name: _Profile(
            dataset=d,
            entity=_entity(d),
            measures=_measures(d, keys[d.name]),
            dimensions=_dimensions(d, keys[d.name]),
            times=_times(d),
            named=any(_tokens(f.name) & NAMING for f in d.fields),
        )
        for d in model.datasets
    }
    # Two datasets joined by two relationships (flights from and to airports): which one a
    # question means is not said, so neither is offered as a parent.
    joins = Counter(frozenset((r.from_dataset, r.to_dataset)) for r in model.relationships)
    for r in model.relationships:
        if joins[frozenset((r.from_dataset, r.to_dataset))] > 1:
            continue
        if r.cardinality is Cardinality.MANY_TO_ONE:
            child, parent = r.from_dataset, r.to_dataset
        elif r.cardinality is Cardinality.ONE_TO_MANY:
            child, parent = r.to_dataset, r.from_dataset
        else:
            continue
        if child == parent or profiles[parent] in profiles[child].parents:
            continue
        profiles[child].parents.append(profiles[parent])
        profiles[parent].children += 1
    for profile in profiles.values():
        # Parents with a name to show first ("top 10 products", not "top 10 orders").
        profile.parents.sort(key=lambda p: (not p.named, p.dataset.name))
    return sorted(profiles.values(), key=lambda p: (-p.score, p.dataset.name))


# --- the questions ------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Candidate:
    kind: str  # top | trend | related | breakdown
    suggestion: Suggestion


def _top(p: _Profile) -> list[_Candidate]:
    if not p.parents:
        return []
    parent = p.parents[0]
    additive = [m for m in p.measures if m.additive]
    if additive:
        m = additive[0]
        return [
            _Candidate(
                "top",
                Suggestion(
                    f"Top {parent.entity} by {m.phrase}",
                    f"The {TOP_N} {parent.entity} with the highest {m.said()} of {p.entity}.",
                    f"Show the top {TOP_N} {parent.entity} by {m.said()} of {p.entity}.",
                ),
            )
        ]
    return [
        _Candidate(
            "top",
            Suggestion(
                f"Top {parent.entity} by {p.entity}",
                f"The {TOP_N} {parent.entity} with the most {p.entity}.",
                f"Which {TOP_N} {parent.entity} have the most {p.entity}?",
            ),
        )
    ]


def _trends(p: _Profile) -> list[_Candidate]:
    time_field = p.time()
    if time_field is None or not p.trendable:
        return []
    when, grain = _time_phrase(time_field), GRAIN
    found = []
    if not any(m.additive for m in p.measures):
        found.append(
            _Candidate(
                "trend",
                Suggestion(
                    f"{_capital(p.entity)} per {grain}",
                    f"How the number of {p.entity} changes from {grain} to {grain}.",
                    f"How many {p.entity} were there each {grain}, by {when}?",
                ),
            )
        )
    # Sums over time read naturally; an average price per month of a catalogue does not.
    for m in [m for m in p.measures if m.additive][:2]:
        found.append(
            _Candidate(
                "trend",
                Suggestion(
                    f"{_capital(m.aggregate)} {m.phrase} per {grain}",
                    f"The {m.said()} of {p.entity} for each {grain}.",
                    f"What was the {m.said()} of {p.entity} each {grain}, by {when}?",
                ),
            )
        )
    return found


def _related(p: _Profile) -> list[_Candidate]:
    averaged = [m for m in p.measures if not m.additive]
    named = [parent for parent in p.parents if parent.named]
    if not averaged or not named:
        return []
    m, parent = averaged[0], named[0]
    return [
        _Candidate(
            "related",
            Suggestion(
                f"Average {m.phrase} by {parent.one}",
                f"The average {m.phrase} of {p.entity} for each {parent.one}.",
                f"What is the average {m.phrase} of {p.entity} per {parent.one}?",
            ),
        )
    ]


def _breakdowns(p: _Profile) -> list[_Candidate]:
    found = []
    for i, dimension in enumerate(p.dimensions[:2]):
        d = _phrase(dimension)
        if p.measures:
            m = p.measures[i % len(p.measures)]
            found.append(
                _Candidate(
                    "breakdown",
                    Suggestion(
                        f"{_capital(m.aggregate)} {m.phrase} by {d}",
                        f"The {m.said()} of {p.entity} for each {d}.",
                        f"What is the {m.said()} of {p.entity} per {d}?",
                    ),
                )
            )
        if i == 0 or not p.measures:
            found.append(
                _Candidate(
                    "breakdown",
                    Suggestion(
                        f"{_capital(p.entity)} by {d}",
                        f"The number of {p.entity} in each {d}.",
                        f"How many {p.entity} are there per {d}?",
                    ),
                )
            )
    return found


def _overview(p: _Profile) -> Suggestion:
    return Suggestion(
        f"Explore {p.entity}",
        f"A first look at the {p.entity} data: a few of its rows.",
        f"Show a few {p.entity}.",
    )


def _candidates(p: _Profile) -> list[_Candidate]:
    trends = _trends(p)
    return [*_top(p), *trends[:1], *_related(p), *_breakdowns(p), *trends[1:]]


# --- questions about metrics ----------------------------------------------------------------------

# How far along many-to-one relationships a metric's dimension may be (order items -> orders
# -> customers is two).
METRIC_REACH = 2


def _metric_phrase(metric: Metric) -> str:
    """How to say a metric: its label (or its name) in lower case, acronyms kept."""
    return in_words(metric.label or humanise(metric.name))


def _used_fields(model: SemanticModel, parts: list[Metric]) -> set[tuple[str, str]]:
    """The fields a metric's parts aggregate or filter on: grouping by them says little."""
    used: set[tuple[str, str]] = set()
    for part in parts:
        try:
            used |= {(u.dataset.name, u.field.name) for u in metric_uses(model, part)}
        except ExpressionError:  # checked at load; a hand-made model may not be
            continue
    return used


def _reachable(home: _Profile) -> list[_Profile]:
    """The home dataset, then its parents, then theirs (breadth first, each once)."""
    found, frontier = [home], [home]
    seen = {home.dataset.name}
    for _ in range(METRIC_REACH):
        step = []
        for parent in (p for owner in frontier for p in owner.parents):
            if parent.dataset.name not in seen:
                seen.add(parent.dataset.name)
                step.append(parent)
        found += step
        frontier = step
    return found


def _metric_candidates(
    model: SemanticModel, metric: Metric, profiles: dict[str, _Profile], taken: set[str]
) -> list[tuple[_Candidate, str | None]]:
    """A breakdown by the nearest good dimension not taken yet (with that dimension), and a
    monthly trend."""
    parts = model.simple_parts(metric)
    home = profiles.get(parts[0].dataset or "") if parts else None
    if home is None:
        return []
    used = _used_fields(model, parts)
    said = _metric_phrase(metric)
    title = _capital(said)
    dimensions = [
        _phrase(f)
        for p in _reachable(home)
        for f in p.dimensions
        if (p.dataset.name, f.name) not in used
    ]
    found: list[tuple[_Candidate, str | None]] = []
    if dimensions:
        d = next((d for d in dimensions if d not in taken), dimensions[0])
        breakdown = Suggestion(f"{title} by {d}", f"{title} for each {d}.", f"Show {said} per {d}.")
        found.append((_Candidate("breakdown", breakdown), d))
    time_field = home.time()
    if time_field is not None and home.trendable:
        when, grain = _time_phrase(time_field), GRAIN
        trend = Suggestion(
            f"{title} per {grain}",
            f"{title} for each {grain}.",
            f"Show {said} for each {grain}, by {when}.",
        )
        found.append((_Candidate("trend", trend), None))
    return found


def _metric_suggestions(model: SemanticModel, profiles: list[_Profile]) -> list[Suggestion]:
    """One question per metric a person wrote or kept, in the model's order, alternating
    breakdowns and trends and spreading the dimensions.

    Generated metrics (row counts, totals of money columns) ask what the dataset-based
    questions already ask, so a generated model is suggested what it was before metrics.
    """
    by_name = {p.dataset.name: p for p in profiles}
    kinds: Counter[str] = Counter()
    taken: set[str] = set()
    found = []
    for metric in (m for m in model.metrics if not m.generated):
        candidates = _metric_candidates(model, metric, by_name, taken)
        if not candidates:
            continue
        pick, dimension = min(candidates, key=lambda c: kinds[c[0].kind])
        kinds[pick.kind] += 1
        if dimension is not None:
            taken.add(dimension)
        found.append(pick.suggestion)
    return found


def suggest_questions(model: SemanticModel, limit: int = 4) -> list[Suggestion]:
    """Up to `limit` questions about the model, spread over datasets and kinds of question.

    The model's metrics come first, one question each. Then datasets with the most to ask;
    each round takes one question from each dataset, preferring the kind asked least so
    far. Only when that runs out are datasets offered to explore ("show a few rows and
    explain them").
    """
    profiles = _profiles(model)
    queues = [_candidates(p) for p in profiles]
    kinds: Counter[str] = Counter()
    chosen: list[Suggestion] = []
    titles: set[str] = set()

    def take(suggestion: Suggestion) -> None:
        chosen.append(suggestion)
        titles.add(suggestion.title.lower())

    for suggestion in _metric_suggestions(model, profiles):
        if len(chosen) < limit and suggestion.title.lower() not in titles:
            take(suggestion)

    while len(chosen) < limit and any(queues):
        for queue in queues:
            queue[:] = [c for c in queue if c.suggestion.title.lower() not in titles]
            if len(chosen) >= limit or not queue:
                continue
            pick = queue.pop(min(range(len(queue)), key=lambda i: (kinds[queue[i].kind], i)))
            kinds[pick.kind] += 1
            take(pick.suggestion)
    for p in profiles:
        overview = _overview(p)
        if len(chosen) < limit and overview.title.lower() not in titles:
            take(overview)
    return chosen
