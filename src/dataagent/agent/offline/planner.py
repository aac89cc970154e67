"""The offline planner: a question in plain English to a QueryPlan, with no model call.

Pure module. The question is read into items (`scan.py`): the model's metrics, fields and
datasets by name, label and synonym; values from the value index; dates; and the phrasing
of rankings, comparisons, shares and groupings. The items are assembled into a plan, which
must validate and compile against the model. Every word must be placed: a word it cannot
place, two readings it cannot choose between or a plan that does not compile lowers the
confidence, and below `CONFIDENCE_THRESHOLD` the planner abstains, saying what it
understood, what it did not, and the closest questions it can answer.
"""

from __future__ import annotations

import datetime as dt
import itertools
from dataclasses import dataclass, field

from pydantic import ValidationError

from dataagent.agent.offline.dates import DatePhrase
from dataagent.agent.offline.lexicon import NUMERIC, TEMPORAL, Lexicon, Sense, lexicon_of
from dataagent.agent.offline.scan import Item, Scan, scan
from dataagent.agent.offline.words import SAMPLE_ROWS, SUPERLATIVE_AGGREGATE
from dataagent.errors import DataAgentError
from dataagent.ontology.values import IndexedValue, ValueIndex, words
from dataagent.semantic.compiler import compile_plan
from dataagent.semantic.model import Dataset, DataType, Field_, Metric, SemanticModel
from dataagent.semantic.nouns import singular
from dataagent.semantic.plan import (
    AggregateFilter,
    Aggregation,
    Dimension,
    Filter,
    Measure,
    MetricRef,
    OrderBy,
    QueryPlan,
    TimeWindow,
    TopN,
)
from dataagent.semantic.suggestions import ADDITIVE, AVERAGED, suggest_questions
from dataagent.semantic.windows import add_months, resolve_window

CONFIDENCE_THRESHOLD = 0.7
# How much each doubt costs.
UNKNOWN_WORD = 0.45
AMBIGUOUS = 0.6
GUESS = 0.9
DEFAULT_TOP = 10
MAX_SUGGESTIONS = 3
SUGGESTION_POOL = 12
MAX_SAMPLE_COLUMNS = 12


@dataclass(frozen=True)
class OfflinePlan:
    """What the offline planner made of a question."""

    plan: QueryPlan | None  # None when it abstains
    confidence: float  # 0..1
    understood: list[str]  # what it understood, as short phrases
    not_understood: list[str]  # words or phrases it could not place
    suggestions: list[str]  # closest questions it can answer
    notes: list[str]  # assumptions made

    @property
    def answered(self) -> bool:
        """True when there is a plan and the planner is confident enough to run it."""
        return self.plan is not None and self.confidence >= CONFIDENCE_THRESHOLD


_ALIAS_WORDS: dict[str, str] = {
    "sum": "total",
    "avg": "average",
    "min": "minimum",
    "max": "maximum",
    "count": "count",
    "count_distinct": "distinct",
}


@dataclass
class _Value:
    """A measure or metric the plan outputs, and how rankings and conditions refer to it."""

    key: str  # the metric name or the measure's alias
    label: str
    dataset: str


@dataclass
class _Draft:
    """A plan being assembled, with what it cost in confidence."""

    lexicon: Lexicon
    question_words: set[str]
    confidence: float = 1.0
    understood: list[str] = field(default_factory=list)
    not_understood: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    metrics: list[MetricRef] = field(default_factory=list)
    measures: list[Measure] = field(default_factory=list)
    values: list[_Value] = field(default_factory=list)
    dimensions: list[Dimension] = field(default_factory=list)
    within: list[str] = field(default_factory=list)
    filters: list[Filter] = field(default_factory=list)
    having: list[AggregateFilter] = field(default_factory=list)
    window: TimeWindow | None = None
    compare: str | None = None
    top: TopN | None = None
    reference: dt.date | None = None
    subject_words: str = ""
    compare_grain: str | None = None
    index: ValueIndex | None = None
    limit: int | None = None
    sorts: list[tuple[str, str]] = field(default_factory=list)  # asked for: (output, direction)
    direction: str | None = None  # "in descending order", said of the listed values
    distinct: bool = False  # "the distinct values": no row per record
    row_key: str | None = None  # a key listed to keep one row per record, not to order by
    sample: bool = False  # some rows of a dataset, in no particular order
    breakdown: str | None = None  # a question it can answer instead ("compare with the others")

    @property
    def model(self) -> SemanticModel:
        return self.lexicon.model

    def doubt(self, factor: float, note: str | None = None) -> None:
        self.confidence *= factor
        if note:
            self.notes.append(note)

    def unknown(self, text: str) -> None:
        self.not_understood.append(text)
        self.confidence *= UNKNOWN_WORD

    # --- outputs -------------------------------------------------------------------------

    def add_metric(self, name: str, share: bool = False) -> _Value:
        existing = next((v for v in self.values if v.key == name), None)
        if existing is not None:
            if share:
                ref = next(r for r in self.metrics if r.name == name)
                ref.share_of_total = True
            return existing
        metric = self.model.metric(name)
        assert metric is not None
        self.metrics.append(MetricRef(name=name, share_of_total=share))
        parts = self.model.simple_parts(metric)
        value = _Value(name, _said(metric), parts[0].dataset or "" if parts else "")
        self.values.append(value)
        self.understood.append(value.label + (" (share of total)" if share else ""))
        return value

    def add_measure(
        self, target: str, aggregation: Aggregation, label: str, alias: str | None = None
    ) -> _Value:
        dataset, _, column = target.partition(".")
        word = _ALIAS_WORDS[aggregation]
        alias = alias or (f"number_of_{dataset}" if column == "*" else f"{word}_{column}")
        existing = next((v for v in self.values if v.key == alias), None)
        if existing is not None:
            return existing
        self.measures.append(Measure(field=target, aggregation=aggregation, alias=alias))
        value = _Value(alias, label, dataset)
        self.values.append(value)
        self.understood.append(label)
        return value

    def add_dimension(self, target: str, grain: str | None = None) -> str:
        for d in self.dimensions:
            if d.field == target and d.time_grain == grain:
                return d.alias or target
        alias = grain if grain else None
        taken = {d.alias for d in self.dimensions}
        if alias is not None and alias in taken:
            alias = f"{target.split('.')[-1]}_{grain}"
        self.dimensions.append(Dimension(field=target, time_grain=grain, alias=alias))
        dataset, f = self.lexicon.field_of(target)
        said = f"by {grain}" if grain else f"by {_field_said(dataset, f)}"
        self.understood.append(said)
        return alias or target

    def homes(self) -> list[str]:
        """The datasets the outputs come from: measures first, else dimensions."""
        found = [v.dataset for v in self.values if v.dataset]
        if not found:
            found = [d.field.split(".")[0] for d in self.dimensions]
        return list(dict.fromkeys(found))


def _said(metric: Metric) -> str:
    return (metric.label or metric.name.replace("_", " ")).lower()


def _field_said(dataset: Dataset, f: Field_) -> str:
    return (f.label or f"{singular(dataset.name.replace('_', ' '))} {f.name}").lower()


# --- choosing between readings -------------------------------------------------------------------


def _named_datasets(s: Scan) -> set[str]:
    """Datasets the question names outright (a dataset's own word, or a field said with it)."""
    named: set[str] = set()
    for item in s.items:
        if item.kind == "term":
            kinds = {sense.kind for sense in item.senses}
            datasets = {sense.dataset for sense in item.senses if sense.kind != "metric"}
            if "dataset" in kinds or len(datasets) == 1:
                named |= datasets
    return named


def _closest(draft: _Draft, candidates: list[str], named: set[str]) -> tuple[list[str], bool]:
    """The candidates (datasets or `dataset.field`s) nearest the outputs' datasets.

    Returns the best ones and whether the choice was clear: a dataset the question names
    wins, then the fewest hops from the outputs' datasets along many-to-one joins."""
    datasets = {c: c.split(".")[0] for c in candidates}
    by_name = [c for c in candidates if datasets[c] in named]
    if len(by_name) == 1:
        return by_name, True
    if named and not by_name and len(set(datasets.values())) > 1:
        return candidates, False  # "the id" when the datasets named have none
    pool = by_name or candidates
    homes = draft.homes()
    if not homes:
        return pool, len(pool) == 1
    reach: dict[str, int] = {}
    for home in homes:
        for name, hops in draft.lexicon.distances(home).items():
            reach[name] = min(reach.get(name, 99), hops)
    ranked = sorted(pool, key=lambda c: reach.get(datasets[c], 99))
    best = reach.get(datasets[ranked[0]], 99)
    nearest = [c for c in ranked if reach.get(datasets[c], 99) == best]
    return nearest, len(nearest) == 1 and best < 99


def _pick(draft: _Draft, senses: list[Sense], named: set[str], what: str) -> Sense:
    if len(senses) == 1:
        return senses[0]
    names = [s.name for s in senses]
    best, clear = _closest(draft, names, named)
    if not clear:
        draft.doubt(AMBIGUOUS, f"'{what}' could be {' or '.join(best)}; took {best[0]}")
    return next(s for s in senses if s.name == best[0])


# --- the date field ------------------------------------------------------------------------------


def _date_field(draft: _Draft, s: Scan) -> str | None:
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


# --- assembling ----------------------------------------------------------------------------------


def _term_fields(draft: _Draft, item: Item) -> list[Sense]:
    return [s for s in item.senses if s.kind == "field"]


def _is_numeric(draft: _Draft, sense: Sense) -> bool:
    if sense.kind != "field":
        return False
    _, f = draft.lexicon.field_of(sense.name)
    return f.data_type in NUMERIC and not f.is_primary_key and not f.name.lower().endswith("_id")


def _dimension_of(draft: _Draft, sense: Sense) -> str:
    """The field a dimension sense groups by: a field itself, a dataset's naming field."""
    if sense.kind == "field":
        return sense.name
    dataset = draft.model.dataset(sense.name)
    assert dataset is not None
    return f"{dataset.name}.{draft.lexicon.naming_field(dataset).name}"


def _as_grouping(
    draft: _Draft, item: Item, named: set[str], *, numeric: bool = True
) -> Sense | None:
    """A term read as something to group by (a dataset or a field), if it can be one."""
    senses = [
        s for s in item.senses if s.kind != "metric" and (numeric or not _is_numeric(draft, s))
    ]
    if not senses:
        return None
    datasets = [s for s in senses if s.kind == "dataset"]
    fields = [s for s in senses if s.kind == "field" and not _is_numeric(draft, s)]
    if datasets:
        # "airlines": the airlines dataset, not the flights' key column that points at it.
        fields = [f for f in fields if f.name not in draft.lexicon.foreign_keys]
    if datasets and fields:
        # "category" is the dataset and its name field: the same grouping.
        same = [f for f in fields if f.name == _dimension_of(draft, datasets[0])]
        if same:
            return datasets[0]
    if datasets and not fields:
        return _pick(draft, datasets, named, item.text)
    pool = fields or datasets or senses
    return _pick(draft, pool, named, item.text)


def _measure_of(
    draft: _Draft,
    item: Item,
    agg: Aggregation | None,
    named: set[str],
    s: Scan | None = None,
    after: Item | None = None,
) -> _Value | None:
    """A term read as a value to compute, with an aggregation word before it or not."""
    metrics = [s for s in item.senses if s.kind == "metric"]
    numeric = [s for s in item.senses if _is_numeric(draft, s)]
    datasets = [s for s in item.senses if s.kind == "dataset"]
    if agg in ("count", "count_distinct"):
        if datasets and (
            not metrics or _rows_rather_than_metric(draft, datasets[0], metrics[0], s)
        ):
            dataset = datasets[0].name
            found = draft.model.dataset(dataset)
            keys = [f.name for f in found.fields if f.is_primary_key] if found else []
            if agg == "count_distinct" and len(keys) == 1:
                # "how many different products were ordered": each product once.
                said = f"number of different {item.text.lower()}"
                alias = f"number_of_different_{dataset}"
                return draft.add_measure(f"{dataset}.{keys[0]}", "count_distinct", said, alias)
            return draft.add_measure(f"{dataset}.*", "count", f"number of {item.text.lower()}")
        if metrics:
            return draft.add_metric(metrics[0].name)
        fields = [s for s in item.senses if s.kind == "field"]
        if fields:
            sense = _pick(draft, fields, named, item.text)
            return draft.add_measure(sense.name, "count_distinct", f"distinct {item.text.lower()}")
        return None
    if agg is not None and numeric:
        # "the average population of cities": the dataset said next decides.
        owners = {x.name for x in (after.senses if after else []) if x.kind == "dataset"}
        numeric = [x for x in numeric if x.dataset in owners] or numeric
        sense = _pick(draft, numeric, named, item.text)
        return draft.add_measure(sense.name, agg, f"{_ALIAS_WORDS[agg]} {item.text.lower()}")
    if metrics:
        metric = draft.model.metric(metrics[0].name)
        assert metric is not None
        if agg is not None and agg != metric.aggregation and not (agg == "sum" and metric.is_ratio):
            draft.unknown(f"{_ALIAS_WORDS[agg]} (of {_said(metric)})")
        return draft.add_metric(metrics[0].name)
    if numeric:
        sense = _pick(draft, numeric, named, item.text)
        _, f = draft.lexicon.field_of(sense.name)
        parts = set(words(f.name))
        summable = bool(parts & ADDITIVE) and not parts & AVERAGED
        additive = f.data_type is DataType.INTEGER or summable
        draft.doubt(GUESS, f"'{item.text}' read as its total")
        if not additive:
            draft.doubt(AMBIGUOUS)
        return draft.add_measure(sense.name, "sum", f"total {item.text.lower()}")
    return None


def _rows_rather_than_metric(draft: _Draft, dataset: Sense, metric: Sense, s: Scan | None) -> bool:
    """'How many customers': the dataset's rows, unless the metric is what is meant.

    A metric that counts the same dataset's rows is the same thing; one that counts
    something else (customers who ordered) is meant only when the question names what
    the dataset cannot reach on its own (orders, a store's region, a date of orders)."""
    m = draft.model.metric(metric.name)
    assert m is not None
    if m.dataset == dataset.name:
        return False
    reach = draft.lexicon.distances(dataset.name)
    mentioned: set[str] = set()
    for item in s.items if s is not None else []:
        if item.kind == "term" and item.senses is not None:
            if any(sense.name == dataset.name for sense in item.senses):
                continue
            mentioned |= {sense.dataset for sense in item.senses if sense.kind != "metric"}
        if item.kind == "value" and item.match is not None:
            mentioned |= {v.dataset for v in item.match.values}
    if any(item.kind in ("date", "grain") for item in (s.items if s is not None else [])):
        dated = {
            name
            for name in reach
            if draft.model.dataset(name)
            and draft.lexicon.date_fields(
                draft.model.dataset(name)  # type: ignore[arg-type]
            )
        }
        if not dated:
            return False
    return all(name in reach for name in mentioned if name)


def _assemble(draft: _Draft, s: Scan, today: dt.date) -> None:
    named = _named_datasets(s)
    items = s.items
    listing = bool(items) and items[0].kind == "list"
    if listing and items[0].text.lower() in ("what", "show"):
        nxt = items[1] if len(items) > 1 else None
        listing = nxt is not None and nxt.kind == "term" and nxt.start == items[0].end
    grouping = False
    within_group = False
    agg: Aggregation | None = None
    share = False
    negate = False
    top: Item | None = None
    top_subject: str | None = None
    ranking: _Value | None = None
    others = any(item.kind == "others" for item in items)
    subjects: list[Item] = []
    values: list[tuple[IndexedValue, bool, Item]] = []
    comparisons: list[tuple[Item, int]] = []
    dates: list[Item] = []
    grains: list[tuple[Item, bool]] = []
    attribute = False
    number: Item | None = None
    changes: list[Item] = []
    sample = False
    agg_item: Item | None = None
    sorting: Item | None = None
    extra_aggs: list[Aggregation] = []
    dated = any(item.kind in ("date", "grain") for item in items)

    previous_end = 0
    for k, item in enumerate(items):
        kind = item.kind
        gap = item.start - previous_end
        previous_end = item.end
        if kind == "conj":
            continue
        if kind == "term" and gap > 1:
            grouping = False  # "for each singer, what is the total": the grouping ended
        if kind != "term":
            grouping = grouping and kind in ("grain", "agg")
            attribute = False
        if kind == "list":
            continue
        if kind == "group":
            grouping = True
            within_group = top is not None and top_subject is not None
            continue
        if kind == "attr":
            attribute = True
            continue
        if kind == "change":
            changes.append(item)
            continue
        if kind == "sample":
            sample = True
            continue
        if kind == "number":
            if number is not None:
                draft.unknown(number.text)
            number = item
            continue
        if kind == "agg":
            if item.agg == "count_distinct" and agg is None:
                listing = True  # "show all distinct template types": the values, listed
                draft.distinct = True
                continue
            if (
                agg is not None
                and agg_item is not None
                and item.agg
                not in (
                    "count",
                    "count_distinct",
                )
            ):
                extra_aggs.append(agg)  # "the average, minimum and maximum age"
            agg, agg_item = item.agg, item
            continue
        if kind == "sort":
            sorting = item
            continue
        if kind == "direction":
            if draft.sorts:
                draft.sorts[-1] = (draft.sorts[-1][0], item.direction)
            else:
                draft.direction = item.direction
            continue
        if kind == "share":
            share = True
            continue
        if kind == "neg":
            negate = True
            continue
        if kind == "others":
            continue
        if kind == "top":
            if top is not None and top.end == item.start:
                continue  # "the top 3 largest": one ranking
            top = item
            if top.n is None and number is not None:
                top.n, number = number.n, None  # "which 3 categories sold the most"
            if top_subject is None and subjects:
                grouping_sense = _as_grouping(draft, subjects[-1], named, numeric=False)
                if grouping_sense is not None:
                    # "which store has the highest revenue": the store is what is ranked.
                    subject = subjects.pop()
                    top_subject = draft.add_dimension(_dimension_of(draft, grouping_sense))
                    draft.subject_words = subject.text.lower()
            continue
        if kind == "cmp":
            comparisons.append((item, k))
            continue
        if kind == "date":
            dates.append(item)
            continue
        if kind == "compare":
            if item.compare in ("previous_year", "previous_period", "dates"):
                draft.compare = item.compare
                if item.compare == "dates":
                    continue
            else:
                draft.compare, draft.compare_grain = "previous_period", item.compare
            draft.understood.append(f"compared with {_compare_said(item.compare)}")
            continue
        if kind == "grain":
            grains.append((item, top is not None and top_subject is not None))
            grouping = item.grouped
            continue
        if kind == "value":
            assert item.match is not None
            candidates = list(item.match.values)
            labels = list(dict.fromkeys(v.label for v in candidates))
            best, clear = _closest(draft, labels, named)
            if not clear:
                draft.doubt(
                    AMBIGUOUS,
                    f"'{item.text}' is a value of {' and '.join(labels)}; took {best[0]}",
                )
            chosen = next(v for v in candidates if v.label == best[0])
            values.append((chosen, negate, item))
            negate = False
            continue
        # A term of the model.
        if sorting is not None:
            _sort_by(draft, item, sorting.direction, named)
            sorting = None
            continue
        flag = _flag(draft, item)
        if flag is not None:
            sense, truth = flag
            truth = truth != negate
            negate = False
            draft.filters.append(Filter(field=sense.name, op="=", value=truth))
            draft.understood.append(f"{sense.name} is {'true' if truth else 'false'}")
            continue
        if negate:
            # "stadiums without any concert": a plan has no NOT EXISTS.
            draft.unknown(f"not {item.text}")
            negate = False
            continue
        if attribute:
            fields = [sense for sense in item.senses if sense.kind == "field"]
            if fields:
                draft.add_dimension(_pick(draft, fields, named, item.text).name)
                continue
        if grouping and _averaged_per_row(draft, item):
            continue  # "average quantity per order line": the lines are what is averaged
        if grouping:
            metrics = [sense for sense in item.senses if sense.kind == "metric"]
            numeric = [sense for sense in item.senses if _is_numeric(draft, sense)]
            grouping_sense = (
                _as_grouping(draft, item, named)
                if not (metrics and len(metrics) == len(item.senses))
                else None
            )
            wanted = top is not None and ranking is None
            if wanted and numeric and not metrics and agg is None:
                # "the top 10 museums by total spent": ranked by a number field.
                word = top.text.split()[0].lower() if top is not None else ""
                ranking = _ranking_measure(draft, numeric[0], item, top_subject, word)
                continue
            if grouping_sense is None or agg is not None or (metrics and wanted):
                value = _measure_of(draft, item, agg, named, s, _next_term(items, k))
                if value is None and agg is not None and agg_item is not None:
                    value = _named_by_aggregate(draft, item, agg_item)
                agg = None
                if value is not None:
                    ranking = ranking or (value if top is not None else None)
                    continue
                draft.unknown(item.text)
                continue
            alias = draft.add_dimension(_dimension_of(draft, grouping_sense))
            if within_group or (top is not None and top_subject is not None):
                draft.within.append(alias)
            continue
        if agg is not None:
            for extra in extra_aggs:
                _measure_of(draft, item, extra, named, s, _next_term(items, k))
            extra_aggs = []
            value = _measure_of(draft, item, agg, named, s, _next_term(items, k))
            if value is None and agg_item is not None:
                value = _named_by_aggregate(draft, item, agg_item)
            agg = None
            if value is None:
                draft.unknown(item.text)
            else:
                if top is not None:
                    ranking = ranking or value
            continue
        if top is not None and top_subject is None:
            grouping_sense = _as_grouping(draft, item, named, numeric=False)
            if grouping_sense is not None and not (
                any(sense.kind == "metric" for sense in item.senses) and top.n is None
            ):
                top_subject = draft.add_dimension(_dimension_of(draft, grouping_sense))
                draft.subject_words = item.text.lower()
                continue
        if top is not None and ranking is None:
            numeric = [sense for sense in item.senses if _is_numeric(draft, sense)]
            if numeric and not any(sense.kind == "metric" for sense in item.senses):
                sense = _pick(draft, numeric, named, item.text)
                word = top.text.split()[0].lower()
                if top_subject is None and top.n is None and word in SUPERLATIVE_AGGREGATE:
                    # "the highest list price": an aggregate, not a ranking.
                    aggregation = SUPERLATIVE_AGGREGATE[word]
                    draft.add_measure(sense.name, aggregation, f"{word} {item.text.lower()}")
                    top = None
                    continue
                ranking = _ranking_measure(draft, sense, item, top_subject, word)
                continue
            datasets = [sense for sense in item.senses if sense.kind == "dataset"]
            if datasets and not any(sense.kind == "metric" for sense in item.senses):
                # "the artists with the most albums": ranked by how many.
                sense = _pick(draft, datasets, named, item.text)
                said = f"number of {item.text.lower()}"
                ranking = draft.add_measure(f"{sense.name}.*", "count", said)
                continue
            value = _measure_of(draft, item, None, named)
            if value is not None:
                ranking = value
                continue
        if share and any(sense.kind == "metric" for sense in item.senses):
            metric = next(sense for sense in item.senses if sense.kind == "metric")
            draft.add_metric(metric.name, share=True)
            share = False
            continue
        metrics = [sense for sense in item.senses if sense.kind == "metric"]
        numeric = [sense for sense in item.senses if _is_numeric(draft, sense)]
        temporal = [
            sense
            for sense in item.senses
            if sense.kind == "field" and draft.lexicon.field_of(sense.name)[1].data_type in TEMPORAL
        ]
        if temporal and not metrics and (dated or (s.tokens and s.tokens[0] == "when")):
            if not dated:
                # "when did each store open": the date is what is asked.
                draft.add_dimension(_pick(draft, temporal, named, item.text).name)
            continue  # the date field a date phrase is on ("orders placed in 2025")
        has_dataset = any(sense.kind == "dataset" for sense in item.senses)
        if sample and has_dataset:
            subjects.append(item)  # "show a few orders": the rows, not the metric
            continue
        if metrics and has_dataset and _counted_in(draft, item):
            continue  # "customers who placed an order": the orders the metric counts in
        if metrics and has_dataset and _qualifies_value(items, k, item):
            subjects.append(item)  # "online orders": the orders the value is about
            continue
        if metrics and has_dataset and k + 1 < len(items) and items[k + 1].kind == "cmp":
            subjects.append(item)  # "customers with more than 5 orders"
            continue
        if metrics and not (listing and has_dataset and not draft.values):
            value = _measure_of(draft, item, None, named)
            if value is not None:
                if top is not None:
                    ranking = ranking or value
                continue
        if numeric and _comparison_follows(items, k):
            continue
        subjects.append(item)

    if sorting is not None:
        draft.direction = sorting.direction  # "ordered descending by value"
    if number is not None:
        draft.unknown(number.text)
    if changes and draft.compare is None:
        for item in changes:
            draft.unknown(item.text)
    for item, within in grains:
        assert item.grain is not None
        named_field = _field_named(draft, item.grain)
        date_field = None if named_field else _date_field(draft, s)
        if date_field is None:
            if named_field is None:
                draft.unknown(item.text)
            else:
                alias = draft.add_dimension(named_field)  # "per year" on a Year column
                if within:
                    draft.within.append(alias)
            continue
        alias = draft.add_dimension(date_field, item.grain)
        if within:
            draft.within.append(alias)

    if sample:
        _sample(draft, subjects, named)
    _apply_values(draft, values, subjects, others)
    _apply_comparisons(draft, items, comparisons, named)
    _apply_subjects(draft, subjects, named, listing or top is not None)
    _apply_dates(draft, s, dates, today)
    if top is not None:
        _apply_top(draft, top, ranking, top_subject)
    if share and not any(r.share_of_total for r in draft.metrics):
        draft.unknown("share of")
    if any(r.share_of_total for r in draft.metrics) and not draft.dimensions:
        # "what share of orders were online": a share of the whole, which a plan that
        # keeps only the online orders cannot give (it would say 100%).
        draft.unknown("share of all")
    if others:
        _others(draft)


def _flag(draft: _Draft, item: Item) -> tuple[Sense, bool] | None:
    """A true-or-false field said as a word ("active products", "inactive"): the field and
    the value it names."""
    flags = [
        sense
        for sense in item.senses
        if sense.kind == "field"
        and draft.lexicon.field_of(sense.name)[1].data_type is DataType.BOOLEAN
    ]
    if len(flags) != 1 or len(item.senses) != 1:
        return None
    return flags[0], not flags[0].negated


def _field_named(draft: _Draft, grain: str) -> str | None:
    """A field of the outputs' datasets named as a grain (a `Year` column), if just one."""
    homes = draft.homes()
    reach: set[str] = set()
    for home in homes:
        reach |= set(draft.lexicon.distances(home))
    found = [
        f"{d.name}.{f.name}"
        for d in draft.model.datasets
        if d.name in reach
        for f in d.fields
        if words(f.name) == [grain]
    ]
    return found[0] if len(found) == 1 else None


def _named_by_aggregate(draft: _Draft, item: Item, agg: Item) -> _Value | None:
    """'The total of invoices' where invoices have a number field named Total."""
    said = words(agg.text)
    for sense in item.senses:
        dataset = draft.model.dataset(sense.dataset) if sense.kind == "dataset" else None
        for f in dataset.fields if dataset is not None else []:
            if words(f.name) == said and f.data_type in NUMERIC:
                return draft.add_measure(f"{dataset.name}.{f.name}", "sum", agg.text.lower())  # type: ignore[union-attr]
    return None


def _next_term(items: list[Item], k: int) -> Item | None:
    """The term right after item `k` (a filler word between them allowed)."""
    nxt = items[k + 1] if k + 1 < len(items) else None
    if nxt is not None and nxt.kind == "term" and nxt.start - items[k].end <= 1:
        return nxt
    return None


def _ranking_measure(
    draft: _Draft, sense: Sense, item: Item, subject: str | None, word: str
) -> _Value:
    """A number field to rank by: itself when it belongs to what is ranked (a product's list
    price) or the word asks for the single highest ("the highest bonus"), else its total
    (the units of a product's order lines)."""
    ranked = next((d.field for d in draft.dimensions if subject in (d.alias, d.field)), "")
    if ranked.split(".")[0] == sense.dataset:
        return draft.add_measure(sense.name, "max", item.text.lower())
    single = SUPERLATIVE_AGGREGATE.get(word)
    if single is not None:
        return draft.add_measure(sense.name, single, f"{word} {item.text.lower()}")
    draft.doubt(GUESS, f"'{item.text}' read as its total")
    return draft.add_measure(sense.name, "sum", f"total {item.text.lower()}")


def _averaged_per_row(draft: _Draft, item: Item) -> bool:
    """True for 'per <row of the averaged dataset>' after an average."""
    datasets = {sense.name for sense in item.senses if sense.kind == "dataset"}
    return any(m.aggregation == "avg" and m.field.split(".")[0] in datasets for m in draft.measures)


def _counted_in(draft: _Draft, item: Item) -> bool:
    """True when a dataset's word names where a count metric already asked for counts."""
    datasets = {sense.name for sense in item.senses if sense.kind == "dataset"}
    for ref in draft.metrics:
        metric = draft.model.metric(ref.name)
        if metric is None or metric.aggregation not in ("count", "count_distinct"):
            continue
        if metric.dataset in datasets and metric.name not in _keys(item):
            return True
    return False


def _sort_by(draft: _Draft, item: Item, direction: str, named: set[str]) -> None:
    """'In descending order of age': an order on a value or on a field (shown as a column)."""
    value = next((v for v in draft.values if v.key in _keys(item)), None)
    if value is not None:
        draft.sorts.append((value.key, direction))
        return
    metrics = [x for x in item.senses if x.kind == "metric"]
    fields = [x for x in item.senses if x.kind == "field"]
    if fields:
        sense = _pick(draft, fields, named, item.text)
        draft.sorts.append((draft.add_dimension(sense.name), direction))
    elif metrics:
        draft.sorts.append((draft.add_metric(metrics[0].name).key, direction))
    else:
        draft.unknown(f"ordered by {item.text}")


def _sample(draft: _Draft, subjects: list[Item], named: set[str]) -> None:
    """'Show a few orders': the first rows of one dataset, with its columns."""
    datasets = [x for item in subjects for x in item.senses if x.kind == "dataset"]
    if draft.values or len({x.name for x in datasets}) != 1:
        draft.unknown("a few")
        return
    dataset = draft.model.dataset(datasets[0].name)
    assert dataset is not None
    subjects[:] = [item for item in subjects if datasets[0] not in item.senses]
    shown = [f for f in dataset.fields if f.data_type not in (DataType.JSON, DataType.BINARY)]
    for f in shown[:MAX_SAMPLE_COLUMNS]:
        draft.add_dimension(f"{dataset.name}.{f.name}")
    draft.understood[-len(shown[:MAX_SAMPLE_COLUMNS]) :] = [f"a few {dataset.name}"]
    draft.limit = SAMPLE_ROWS
    draft.sample = True


def _others(draft: _Draft) -> None:
    """'Compare the West with the others': a plan cannot group the others into one row, so
    the planner offers the breakdown it can run, and does not answer with it."""
    grouped = [d for d in draft.dimensions if not d.time_grain]
    if not grouped or not draft.values:
        draft.unknown("the others")
        return
    _, f = draft.lexicon.field_of(grouped[-1].field)
    draft.breakdown = f"Show {draft.values[0].label} per {(f.label or f.name).lower()}."
    draft.doubt(AMBIGUOUS, "'the others' cannot be one row of a plan; a breakdown shows each")
    draft.not_understood.append("the others (as one group)")


def _qualifies_value(items: list[Item], k: int, item: Item) -> bool:
    """True when a dataset's word is next to a value of that dataset ("online orders")."""
    datasets = {sense.name for sense in item.senses if sense.kind == "dataset"}
    for other in (items[k - 1] if k > 0 else None, items[k + 1] if k + 1 < len(items) else None):
        if other is None or other.kind != "value" or other.match is None:
            continue
        if {v.dataset for v in other.match.values} & datasets:
            return True
    return False


def _comparison_follows(items: list[Item], k: int) -> bool:
    return any(item.kind == "cmp" for item in items[k + 1 : k + 3])


def _compare_said(kind: str | None) -> str:
    if kind == "previous_year":
        return "the year before"
    if kind == "previous_period":
        return "the period before"
    return f"the previous {kind}"


def _apply_values(
    draft: _Draft,
    values: list[tuple[IndexedValue, bool, Item]],
    subjects: list[Item],
    others: bool,
) -> None:
    by_field: dict[tuple[str, bool], list[str]] = {}
    for value, negated, _ in values:
        by_field.setdefault((value.label, negated), []).append(value.value)
    for (target, negated), said in by_field.items():
        # "stores in Houston", "online orders", "the West region": the words naming the
        # value's dataset or field qualify the value, nothing more.
        dataset, column = target.split(".")
        for item in list(subjects):
            if any(
                sense.name in (dataset, target)
                or (sense.kind == "field" and sense.name.split(".")[1] == column)
                for sense in item.senses
            ):
                plural = singular(item.text.lower()) != item.text.lower()
                summed = any(m.aggregation == "sum" for m in draft.measures)
                if len(said) > 1 and plural and not negated and not summed:
                    draft.add_dimension(target)  # "the Electronics and Home departments"
                first = item is subjects[0]
                if (
                    first
                    and not (draft.values or others)
                    and any(sense.kind == "dataset" for sense in item.senses)
                ):
                    continue  # "list the stores in the West": the stores are what is listed
                subjects.remove(item)
        if others:
            draft.add_dimension(target)
            draft.notes.append(
                f"{', '.join(said)} shown beside every other {target.split('.')[1]} "
                "(a plan cannot group 'the others' into one row)"
            )
            continue
        if len(said) == 1:
            op = "!=" if negated else "="
            draft.filters.append(Filter(field=target, op=op, value=said[0]))
        else:
            op = "not_in" if negated else "in"
            draft.filters.append(Filter(field=target, op=op, value=list(said)))
        draft.understood.append(f"{target} {'is not' if negated else '='} {' or '.join(said)}")


def _apply_subjects(draft: _Draft, subjects: list[Item], named: set[str], listing: bool) -> None:
    homes = set(draft.homes())
    listed: set[str] = set()
    reach = draft.lexicon.distances
    for item in subjects:
        sense = _as_grouping(draft, item, named)
        if sense is None:
            draft.unknown(item.text)
            continue
        if draft.values and sense.kind == "dataset" and sense.name in homes:
            continue  # "revenue of order lines": where the value comes from
        if sense.kind == "dataset" and (
            sense.name in listed or any(d in reach(sense.name) for d in listed)
        ):
            continue  # "the names of singers that have songs": whose, not a column
        if listing or not draft.values:
            draft.add_dimension(_dimension_of(draft, sense))
            listed.add(sense.dataset)
            continue
        reach = draft.lexicon.distances
        if draft.having and any(
            sense.dataset in reach(h) or h in reach(sense.dataset) for h in homes
        ):
            draft.add_dimension(_dimension_of(draft, sense))  # "regions with a return rate above"
            continue
        draft.unknown(item.text)


def _apply_comparisons(
    draft: _Draft, items: list[Item], comparisons: list[tuple[Item, int]], named: set[str]
) -> None:
    for item, k in comparisons:
        target = _comparison_target(items, k)
        if target is None:
            draft.unknown(item.text)
            continue
        number = item.number
        assert item.op is not None and number is not None
        if item.percent:
            number = [n / 100 for n in number] if isinstance(number, list) else number / 100
        aggregated = {
            m.alias for m in draft.measures if m.field in _keys(target) and m.alias is not None
        }
        metric_or_measure = next(
            (
                v
                for v in draft.values
                if v.label == target.text.lower() or v.key in _keys(target) | aggregated
            ),
            None,
        )
        numeric = [s for s in target.senses if _is_numeric(draft, s)]
        if metric_or_measure is not None and (not numeric or _aggregated(draft, target)):
            op = item.op
            draft.having.append(AggregateFilter(by=metric_or_measure.key, op=op, value=number))
            draft.understood.append(f"{metric_or_measure.label} {op} {_number_said(number)}")
            continue
        metrics = [s for s in target.senses if s.kind == "metric"]
        if not numeric and metrics:
            value = draft.add_metric(metrics[0].name)
            draft.having.append(AggregateFilter(by=value.key, op=item.op, value=number))
            draft.understood.append(f"{value.label} {item.op} {_number_said(number)}")
            continue
        datasets = [s for s in target.senses if s.kind == "dataset"]
        if not numeric and datasets:
            value = draft.add_measure(f"{datasets[0].name}.*", "count", f"number of {target.text}")
            draft.having.append(AggregateFilter(by=value.key, op=item.op, value=number))
            draft.understood.append(f"{value.label} {item.op} {_number_said(number)}")
            continue
        if not numeric:
            draft.unknown(item.text)
            continue
        sense = _pick(draft, numeric, named, target.text)
        op = item.op
        draft.filters.append(Filter(field=sense.name, op=op, value=number))
        draft.understood.append(f"{sense.name} {op} {_number_said(number)}")


def _keys(item: Item) -> set[str]:
    return {s.name for s in item.senses}


def _aggregated(draft: _Draft, target: Item) -> bool:
    return any(m.field in _keys(target) for m in draft.measures)


def _number_said(number: float | list[float]) -> str:
    if isinstance(number, list):
        return " and ".join(_number_said(n) for n in number)
    return f"{number:g}"


def _comparison_target(items: list[Item], k: int) -> Item | None:
    """The term a comparison is about: right after it ("more than 5 orders"), else the
    nearest before it ("unit price over 100")."""
    nxt = items[k + 1] if k + 1 < len(items) else None
    if nxt is not None and nxt.kind == "term" and nxt.start - items[k].end <= 1:
        return nxt  # "more than 5 orders", "more than $700,000 in revenue"
    for item in reversed(items[:k]):
        if item.kind == "term":
            return item
        if item.kind in ("cmp", "value", "date"):
            break
    return None


def _apply_dates(draft: _Draft, s: Scan, dates: list[Item], today: dt.date) -> None:
    if not dates:
        if draft.compare == "dates":
            draft.unknown("compared with")
        elif draft.compare is not None:
            _default_window(draft, s, today)
        return
    date_field = _date_field(draft, s)
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


def _check_covered(draft: _Draft, date_field: str, today: dt.date) -> None:
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


def _range(draft: _Draft, date_field: str, start: dt.date | None, end: dt.date | None) -> None:
    if start is not None:
        draft.filters.append(Filter(field=date_field, op=">=", value=start.isoformat()))
    if end is not None:
        draft.filters.append(Filter(field=date_field, op="<", value=end.isoformat()))


def _compared_periods(
    draft: _Draft, date_field: str, absolute: list[DatePhrase], relative: list[DatePhrase]
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


def _several_periods(draft: _Draft, date_field: str, absolute: list[DatePhrase]) -> None:
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


def _default_window(draft: _Draft, s: Scan, today: dt.date) -> None:
    """A comparison with no period said: this period (its grain) against the one before."""
    date_field = _date_field(draft, s)
    kind = draft.compare
    if date_field is None or kind is None:
        draft.unknown("compared with")
        return
    grain = draft.compare_grain or "year"
    draft.window = TimeWindow(field=date_field, period="last", grain=grain, count=1)
    draft.notes.append(f"compared this {grain} with the one before")


def _apply_top(draft: _Draft, top: Item, ranking: _Value | None, subject: str | None) -> None:
    if ranking is None:
        ranking = draft.values[0] if len(draft.values) == 1 else None
    if ranking is None:
        draft.unknown(f"{top.text} (by what?)")
        return
    if subject is None and not draft.dimensions:
        # "the highest unit price": an aggregate, not a ranking.
        word = top.text.split()[0].lower()
        agg = SUPERLATIVE_AGGREGATE.get(word)
        measure = next((m for m in draft.measures if m.alias == ranking.key), None)
        if agg is not None and measure is not None and top.n is None:
            draft.measures[draft.measures.index(measure)] = Measure(
                field=measure.field,
                aggregation=agg,
                alias=f"{_ALIAS_WORDS[agg]}_{measure.field.split('.')[1]}",
            )
            draft.values = [v for v in draft.values if v.key != ranking.key]
            return
        draft.unknown(f"{top.text} (of what?)")
        return
    n = top.n if top.n is not None else (1 if _singular_top(draft, top) else DEFAULT_TOP)
    draft.top = TopN(
        n=n, by=ranking.key, within=list(dict.fromkeys(draft.within)), direction=top.direction
    )
    said = "top" if top.direction == "desc" else "bottom"
    draft.understood.append(f"{said} {n} by {ranking.label}")


def _singular_top(draft: _Draft, top: Item) -> bool:
    """'The top store' is one; 'the top stores' are ten (when no number is said)."""
    if top.text.split()[0].lower() not in ("top", "bottom", "best", "worst"):
        return True
    said = draft.subject_words
    return not said or singular(said) == said


# --- the plan ------------------------------------------------------------------------------------


def _one_row_each(draft: _Draft) -> None:
    """A list of a dataset's rows keeps one row per record: "the names of the teachers"
    lists two teachers of the same name twice. The dataset's key is added as a column
    unless every listed field is a category (few values, as "which regions are there")."""
    if draft.values or draft.sample or draft.distinct or draft.top is not None:
        return
    if not draft.dimensions:
        return
    grouped = [d for d in draft.dimensions if not d.time_grain]
    owners = {d.field.split(".")[0] for d in grouped}
    if len(owners) != 1 or len(grouped) != len(draft.dimensions):
        return
    dataset = draft.model.dataset(owners.pop())
    assert dataset is not None
    keys = [f for f in dataset.fields if f.is_primary_key]
    if len(keys) != 1 or any(d.field == f"{dataset.name}.{keys[0].name}" for d in grouped):
        return
    if all(_categorical(draft, dataset, d.field.split(".")[1]) for d in grouped):
        return
    draft.row_key = f"{dataset.name}.{keys[0].name}"
    draft.dimensions.append(Dimension(field=draft.row_key))


def _categorical(draft: _Draft, dataset: Dataset, name: str) -> bool:
    f = dataset.field(name)
    if f is None:
        return False
    # A category repeats: at most half as many values as rows.
    if draft.index is not None and draft.index.of_field(dataset.name, name):
        count = len(draft.index.of_field(dataset.name, name))
        return dataset.row_count is None or 2 * count <= dataset.row_count
    if f.distinct_count is None:
        return False
    return dataset.row_count is None or 2 * f.distinct_count <= dataset.row_count


def _bridged(draft: _Draft) -> None:
    """A value grouped or filtered by a dataset it meets only through a third, many to many
    (a shop's employees through its hirings): what is counted is not said."""
    distinct = {m.alias for m in draft.measures if m.aggregation == "count_distinct"}
    homes = [v.dataset for v in draft.values if v.dataset and v.key not in distinct]
    others = {d.field.split(".")[0] for d in draft.dimensions}
    others |= {f.field.split(".")[0] for f in draft.filters if isinstance(f, Filter)}
    for home in homes:
        for other in others:
            reach = draft.lexicon.distances
            if other not in reach(home) and home not in reach(other):
                draft.doubt(AMBIGUOUS, f"{home} and {other} meet only many to many")
                return


def _degenerate(draft: _Draft) -> None:
    """Conditions a plan would answer with nonsense: a HAVING with nothing grouped ("how
    many countries have more than 2 makers" counts countries per group first), a count of
    the rows of each record of the same dataset (always 1)."""
    if draft.having and not draft.dimensions:
        draft.unknown("with more than (a count of groups)")
    keys = {
        f"{d.name}.{f.name}" for d in draft.model.datasets for f in d.fields if f.is_primary_key
    }
    grouped = {d.field for d in draft.dimensions}
    for m in draft.measures:
        dataset = m.field.split(".")[0]
        if (
            m.field.endswith(".*")
            and any(g in keys and g.split(".")[0] == dataset for g in grouped)
            and draft.having
        ):
            draft.unknown(f"more than ... {dataset} per {dataset}")


def _negations(draft: _Draft) -> None:
    """'Students who do not have a cat': a negation through a one-to-many join is NOT
    EXISTS, which no plan says; a filter there would keep students with a dog."""
    used = set(draft.homes()) | {d.field.split(".")[0] for d in draft.dimensions}
    for f in draft.filters:
        if not isinstance(f, Filter) or f.op not in ("!=", "not_in"):
            continue
        owner = f.field.split(".")[0]
        if any(owner not in draft.lexicon.distances(d) for d in used):
            draft.unknown(f"not {f.value}")


def _parallel_joins(draft: _Draft) -> None:
    """Two datasets joined by two relationships (a friend's two people): which one the
    question means is not said."""
    used = set(draft.homes())
    used |= {d.field.split(".")[0] for d in draft.dimensions}
    used |= {f.field.split(".")[0] for f in draft.filters if isinstance(f, Filter)}
    for pair in draft.lexicon.parallel:
        if pair <= used or (len(pair) == 1 and pair <= used):
            draft.doubt(AMBIGUOUS, f"{' and '.join(sorted(pair))} join in more than one way")


def _order(draft: _Draft) -> list[OrderBy]:
    if draft.sorts:
        order = [OrderBy(by=by, direction=d) for by, d in draft.sorts]
        if draft.row_key is not None:
            order.append(OrderBy(by=draft.row_key))  # ties in the order the records have
        return order
    if draft.direction is not None:
        first = draft.values[0].key if draft.values else None
        if first is None and draft.dimensions:
            first = draft.dimensions[0].alias or draft.dimensions[0].field
        if first is not None:
            return [OrderBy(by=first, direction=draft.direction)]
    if draft.top is not None:
        return [OrderBy(by=draft.top.by, direction=draft.top.direction)]
    time = [d for d in draft.dimensions if d.time_grain]
    if time:
        return [OrderBy(by=d.alias or d.field, direction="asc") for d in time]
    if draft.values and draft.dimensions:
        return [OrderBy(by=draft.values[0].key, direction="desc")]
    listed = [d for d in draft.dimensions if d.field != draft.row_key]
    return [OrderBy(by=d.alias or d.field, direction="asc") for d in listed]


def _build(draft: _Draft, today: dt.date) -> QueryPlan:
    reference = draft.reference or today
    return QueryPlan(
        metrics=draft.metrics,
        measures=draft.measures,
        dimensions=draft.dimensions,
        filters=list(draft.filters),
        having=draft.having,
        time_window=draft.window,
        reference_date=reference if draft.window is not None else None,
        compare=draft.compare,
        top=draft.top,
        order=[] if draft.sample else _order(draft),
        limit=draft.limit,
    )


def _plan(
    question: str, model: SemanticModel, values: ValueIndex | None, today: dt.date
) -> OfflinePlan:
    lexicon = lexicon_of(model)
    index = values if values is not None else ValueIndex.from_model(model)
    s = scan(question, lexicon, index, today)
    draft = _Draft(lexicon, set(s.tokens), index=index)
    for word in s.unknown:
        draft.unknown(word)
    _assemble(draft, s, today)
    _one_row_each(draft)
    _parallel_joins(draft)
    _bridged(draft)
    _degenerate(draft)
    _negations(draft)
    plan: QueryPlan | None = None
    if not (draft.metrics or draft.measures or draft.dimensions):
        draft.confidence = 0.0
    else:
        try:
            plan = _build(draft, today)
            compile_plan(plan, model, model.dialect, today=today)
        except (DataAgentError, ValidationError, ValueError) as exc:
            draft.notes.append(f"the plan does not hold: {exc}")
            draft.confidence = 0.0
            plan = None
    return OfflinePlan(
        plan=plan,
        confidence=round(draft.confidence, 3),
        understood=list(dict.fromkeys(draft.understood)),
        not_understood=draft.not_understood,
        suggestions=[draft.breakdown] if draft.breakdown else [],
        notes=draft.notes,
    )


def plan_question(
    question: str,
    model: SemanticModel,
    values: ValueIndex | None = None,
    *,
    today: dt.date,
) -> OfflinePlan:
    """A QueryPlan for `question` over `model`, or an abstention with suggestions.

    `values` is the ontology's value index (without one, the model's sample values of
    few-valued text fields are used); `today` is the reference date of relative dates.
    """
    result = _plan(question, model, values, today)
    if result.answered:
        return result
    return OfflinePlan(
        plan=result.plan,
        confidence=result.confidence,
        understood=result.understood,
        not_understood=result.not_understood,
        suggestions=_suggestions(question, model, values, today, result.suggestions),
        notes=result.notes,
    )


def _suggestions(
    question: str,
    model: SemanticModel,
    values: ValueIndex | None,
    today: dt.date,
    first: list[str],
) -> list[str]:
    """Up to three questions the planner answers: `first`, then the model's suggested
    questions closest to `question` (most words in common)."""
    asked = set(words(question))
    pool = first + [s.prompt for s in suggest_questions(model, limit=SUGGESTION_POOL)]
    ranked = first + sorted(pool[len(first) :], key=lambda p: -len(asked & set(words(p))))
    found = []
    for prompt in ranked:
        if _plan(prompt, model, values, today).answered:
            found.append(prompt)
        if len(found) == MAX_SUGGESTIONS:
            break
    return found


def describe(offline_plan: OfflinePlan) -> str:
    """The abstention in plain English: what was understood, what was not, what to ask
    instead, and how to configure a model for questions like this one."""
    lines = ["I could not answer this question reliably without a language model."]
    if offline_plan.understood:
        lines.append(f"I understood: {', '.join(offline_plan.understood)}.")
    if offline_plan.not_understood:
        quoted = ", ".join(f"'{w}'" for w in offline_plan.not_understood)
        lines.append(f"I did not understand: {quoted}.")
    elif offline_plan.notes:
        lines.append(f"It was not clear: {'; '.join(offline_plan.notes)}.")
    if offline_plan.suggestions:
        lines.append("Questions I can answer:")
        lines += [f"- {s}" for s in offline_plan.suggestions]
    lines.append(
        "To answer any question, configure a model: set OPENAI_API_KEY (or OPENAI_BASE_URL "
        "for an OpenAI-compatible server such as Ollama), ANTHROPIC_API_KEY, or "
        "AZURE_OPENAI_API_KEY with AZURE_OPENAI_ENDPOINT, and restart (see docs/llm.md)."
    )
    return "\n".join(lines)
