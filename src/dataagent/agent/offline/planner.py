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
from dataclasses import dataclass

from pydantic import ValidationError

from dataagent.agent.offline.checks import (
    bridged,
    degenerate,
    negations,
    one_row_each,
    parallel_joins,
)
from dataagent.agent.offline.draft import (
    ALIAS_WORDS,
    AMBIGUOUS,
    GUESS,
    Draft,
    Output,
    closest,
    metric_said,
    named_datasets,
    pick,
)
from dataagent.agent.offline.lexicon import NUMERIC, TEMPORAL, Sense, lexicon_of
from dataagent.agent.offline.periods import apply_dates, date_field_for
from dataagent.agent.offline.scan import Item, Scan, scan
from dataagent.agent.offline.words import (
    SAMPLE_ROWS,
    SUPERLATIVE_AGGREGATE,
    TOP_EARLIEST,
    TOP_LATEST,
)
from dataagent.errors import DataAgentError
from dataagent.ontology.values import IndexedValue, ValueIndex, words
from dataagent.semantic.compiler import compile_plan
from dataagent.semantic.model import DataType, SemanticModel
from dataagent.semantic.nouns import singular
from dataagent.semantic.plan import (
    AggregateFilter,
    Aggregation,
    Dimension,
    DimensionGroup,
    Filter,
    Measure,
    OrderBy,
    QueryPlan,
    TopN,
)
from dataagent.semantic.suggestions import ADDITIVE, AVERAGED, suggest_questions

CONFIDENCE_THRESHOLD = 0.7
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


# --- assembling ----------------------------------------------------------------------------------


def _is_numeric(draft: Draft, sense: Sense) -> bool:
    if sense.kind != "field":
        return False
    _, f = draft.lexicon.field_of(sense.name)
    return f.data_type in NUMERIC and not f.is_primary_key and not f.name.lower().endswith("_id")


def _dimension_of(draft: Draft, sense: Sense) -> str:
    """The field a dimension sense groups by: a field itself, a dataset's naming field."""
    if sense.kind == "field":
        return sense.name
    dataset = draft.model.dataset(sense.name)
    assert dataset is not None
    return f"{dataset.name}.{draft.lexicon.naming_field(dataset).name}"


def _as_grouping(
    draft: Draft, item: Item, named: set[str], *, numeric: bool = True
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
        return pick(draft, datasets, named, item.text)
    pool = fields or datasets or senses
    return pick(draft, pool, named, item.text)


def _measure_of(
    draft: Draft,
    item: Item,
    agg: Aggregation | None,
    named: set[str],
    s: Scan | None = None,
    after: Item | None = None,
) -> Output | None:
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
            sense = pick(draft, fields, named, item.text)
            return draft.add_measure(sense.name, "count_distinct", f"distinct {item.text.lower()}")
        return None
    if agg is not None and numeric:
        # "the average population of cities": the dataset said next decides.
        owners = {x.name for x in (after.senses if after else []) if x.kind == "dataset"}
        numeric = [x for x in numeric if x.dataset in owners] or numeric
        sense = pick(draft, numeric, named, item.text)
        return draft.add_measure(sense.name, agg, f"{ALIAS_WORDS[agg]} {item.text.lower()}")
    if metrics:
        metric = draft.model.metric(metrics[0].name)
        assert metric is not None
        counts = metric.aggregation in ("count", "count_distinct")
        rows = agg is None and counts and datasets and s is not None
        if rows and _rows_rather_than_metric(draft, datasets[0], metrics[0], s):
            # "customers by segment": the customers, as "how many customers" counts them.
            said = f"number of {item.text.lower()}"
            return draft.add_measure(f"{datasets[0].name}.*", "count", said)
        if agg is not None and agg != metric.aggregation and not (agg == "sum" and metric.is_ratio):
            draft.unknown(f"{ALIAS_WORDS[agg]} (of {metric_said(metric)})")
        return draft.add_metric(metrics[0].name)
    if numeric:
        sense = pick(draft, numeric, named, item.text)
        _, f = draft.lexicon.field_of(sense.name)
        parts = set(words(f.name))
        summable = bool(parts & ADDITIVE) and not parts & AVERAGED
        additive = f.data_type is DataType.INTEGER or summable
        draft.doubt(GUESS, f"'{item.text}' read as its total")
        if not additive:
            draft.doubt(AMBIGUOUS)
        return draft.add_measure(sense.name, "sum", f"total {item.text.lower()}")
    return None


def _rows_rather_than_metric(draft: Draft, dataset: Sense, metric: Sense, s: Scan | None) -> bool:
    """'How many customers': the dataset's rows, unless the metric is what is meant.

    A metric that counts the same dataset's rows is the same thing; one that counts
    something else (customers who ordered) is meant only when the question names what
    the dataset cannot reach on its own (orders, a store's region, a date of orders)."""
    m = draft.model.metric(metric.name)
    assert m is not None
    if m.dataset == dataset.name:
        return False
    reach = draft.lexicon.distances(dataset.name)
    items = s.items if s is not None else []
    for item in items:
        # Each word said must be reachable in one of its senses ("cities": the customers').
        if item.kind == "term" and not any(sense.name == dataset.name for sense in item.senses):
            owners = {sense.dataset for sense in item.senses if sense.kind != "metric"}
            if owners and not owners & set(reach):
                return False
        values = item.match.values if item.kind == "value" and item.match else ()
        if values and not {v.dataset for v in values} & set(reach):
            return False
    if any(item.kind in ("date", "grain") for item in items):
        found = (draft.model.dataset(name) for name in reach)
        if not any(d is not None and draft.lexicon.date_fields(d) for d in found):
            return False  # "customers per month": of the metric's dates
    return True


def _assemble(draft: Draft, s: Scan, today: dt.date) -> None:
    named = named_datasets(s)
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
    ranking: Output | None = None
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
    attributes: list[str] = []  # columns asked for "with their ...", after what is listed
    value_words: list[Item] = []
    last_group: tuple[Item, Sense] | None = None
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
            counting = item.agg in ("count", "count_distinct")
            if agg is not None and agg_item is not None and not counting:
                extra_aggs.append(agg)  # "the average, minimum and maximum age"
            elif agg not in (None, "count", "count_distinct") and agg_item is not None:
                draft.unknown(f"{agg_item.text} {item.text}")  # "the average number of": of counts
            agg, agg_item = item.agg, item
            continue
        if kind == "sort":
            sorting = item
            continue
        if kind == "value_word":
            value_words.append(item)
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
            best, clear = closest(draft, labels, named)
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
                attributes.append(pick(draft, fields, named, item.text).name)
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
            if last_group is not None and last_group[0].end == item.start:
                # "by product category": the category of the product, one grouping.
                before = last_group[1]
                parent = grouping_sense.dataset != before.name
                if (
                    before.kind == "dataset"
                    and parent
                    and grouping_sense.dataset in (draft.lexicon.distances(before.name))
                ):
                    field_before = _dimension_of(draft, before)
                    draft.dimensions = [d for d in draft.dimensions if d.field != field_before]
                    draft.within = [w for w in draft.within if w != field_before]
            alias = draft.add_dimension(_dimension_of(draft, grouping_sense))
            last_group = (item, grouping_sense)
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
        by_date = top is not None and top.text.split()[0].lower() in TOP_EARLIEST | TOP_LATEST
        if top is not None and top_subject is None and not by_date:
            grouping_sense = _as_grouping(draft, item, named, numeric=False)
            if grouping_sense is not None and not (
                any(sense.kind == "metric" for sense in item.senses) and top.n is None
            ):
                top_subject = draft.add_dimension(_dimension_of(draft, grouping_sense))
                draft.subject_words = item.text.lower()
                continue
        if top is not None and ranking is None and not by_date:
            numeric = [sense for sense in item.senses if _is_numeric(draft, sense)]
            if numeric and not any(sense.kind == "metric" for sense in item.senses):
                sense = pick(draft, numeric, named, item.text)
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
                sense = pick(draft, datasets, named, item.text)
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
                draft.add_dimension(pick(draft, temporal, named, item.text).name)
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
            value = _measure_of(draft, item, None, named, s)
            if value is not None:
                if top is not None:
                    ranking = ranking or value
                continue
        if numeric and _comparison_follows(items, k):
            continue
        subjects.append(item)

    if sorting is not None:
        draft.direction = sorting.direction  # "ordered descending by value"
    if value_words and not draft.values:
        for item in value_words:
            draft.unknown(item.text)  # "how much did they spend": an amount of what
    if number is not None:
        draft.unknown(number.text)
    if changes and draft.compare is None:
        for item in changes:
            draft.unknown(item.text)
    for item, within in grains:
        assert item.grain is not None
        named_field = _field_named(draft, item.grain)
        date_field = None if named_field else date_field_for(draft, s)
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
    for name in attributes:
        draft.add_dimension(name)
    apply_dates(draft, s, dates, today)
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


def _flag(draft: Draft, item: Item) -> tuple[Sense, bool] | None:
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


def _field_named(draft: Draft, grain: str) -> str | None:
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


def _named_by_aggregate(draft: Draft, item: Item, agg: Item) -> Output | None:
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
    draft: Draft, sense: Sense, item: Item, subject: str | None, word: str
) -> Output:
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


def _averaged_per_row(draft: Draft, item: Item) -> bool:
    """True for 'per <row of the averaged dataset>' after an average."""
    datasets = {sense.name for sense in item.senses if sense.kind == "dataset"}
    return any(m.aggregation == "avg" and m.field.split(".")[0] in datasets for m in draft.measures)


def _counted_in(draft: Draft, item: Item) -> bool:
    """True when a dataset's word names where a count metric already asked for counts."""
    datasets = {sense.name for sense in item.senses if sense.kind == "dataset"}
    for ref in draft.metrics:
        metric = draft.model.metric(ref.name)
        if metric is None or metric.aggregation not in ("count", "count_distinct"):
            continue
        if metric.dataset in datasets and metric.name not in _keys(item):
            return True
    return False


def _sort_by(draft: Draft, item: Item, direction: str, named: set[str]) -> None:
    """'In descending order of age': an order on a value or on a field (shown as a column)."""
    value = next((v for v in draft.values if v.key in _keys(item)), None)
    if value is not None:
        draft.sorts.append((value.key, direction))
        return
    metrics = [x for x in item.senses if x.kind == "metric"]
    fields = [x for x in item.senses if x.kind == "field"]
    if fields:
        sense = pick(draft, fields, named, item.text)
        draft.sorts.append((draft.add_dimension(sense.name), direction))
    elif metrics:
        draft.sorts.append((draft.add_metric(metrics[0].name).key, direction))
    else:
        draft.unknown(f"ordered by {item.text}")


def _sample(draft: Draft, subjects: list[Item], named: set[str]) -> None:
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


def _others(draft: Draft) -> None:
    """'Compare the West with the others': the value named against all the others together
    (a grouped dimension). Without a value to set apart, or a measure to compare, the
    planner offers a breakdown instead of answering."""
    if draft.values and any(d.group is not None for d in draft.dimensions):
        return
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
    draft: Draft,
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
        if others and not negated:
            # "Houston compared with the other stores": the values named against all the
            # others together, one row each.
            draft.dimensions.append(
                Dimension(field=target, group=DimensionGroup(values=list(said), others="Others"))
            )
            draft.understood.append(f"{' and '.join(said)} against all other {column} values")
            continue
        if len(said) == 1:
            op = "!=" if negated else "="
            draft.filters.append(Filter(field=target, op=op, value=said[0]))
        else:
            op = "not_in" if negated else "in"
            draft.filters.append(Filter(field=target, op=op, value=list(said)))
        draft.understood.append(f"{target} {'is not' if negated else '='} {' or '.join(said)}")


def _apply_subjects(draft: Draft, subjects: list[Item], named: set[str], listing: bool) -> None:
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
            # "the names of singers that have songs": whose, not a column.
            filtered = any(f.field.startswith(f"{sense.name}.") for f in draft.filters)
            if sense.name not in listed and not filtered and not draft.values:
                draft.row_owner = sense.name  # "the names of poker players": the players'
            continue
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
    draft: Draft, items: list[Item], comparisons: list[tuple[Item, int]], named: set[str]
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
        sense = pick(draft, numeric, named, target.text)
        op = item.op
        draft.filters.append(Filter(field=sense.name, op=op, value=number))
        draft.understood.append(f"{sense.name} {op} {_number_said(number)}")


def _keys(item: Item) -> set[str]:
    return {s.name for s in item.senses}


def _aggregated(draft: Draft, target: Item) -> bool:
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


def _apply_top(draft: Draft, top: Item, ranking: Output | None, subject: str | None) -> None:
    if ranking is None:
        ranking = draft.values[0] if len(draft.values) == 1 else None
    word = top.text.split()[0].lower()
    if ranking is None and word in TOP_EARLIEST | TOP_LATEST:
        ranking = _ranked_by_date(draft, word in TOP_EARLIEST)
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
                alias=f"{ALIAS_WORDS[agg]}_{measure.field.split('.')[1]}",
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


def _ranked_by_date(draft: Draft, earliest: bool) -> Output | None:
    """'Which store opened first': the listed date field becomes the first (or last) date
    of each store, to rank by."""
    dated = [
        d
        for d in draft.dimensions
        if not d.time_grain and draft.lexicon.field_of(d.field)[1].data_type in TEMPORAL
    ]
    if len(dated) != 1:
        return None
    draft.dimensions.remove(dated[0])
    aggregation: Aggregation = "min" if earliest else "max"
    said = f"{'first' if earliest else 'last'} {dated[0].field.split('.')[1]}"
    return draft.add_measure(dated[0].field, aggregation, said)


def _singular_top(draft: Draft, top: Item) -> bool:
    """'The top store' is one; 'the top stores' are ten (when no number is said)."""
    if top.text.split()[0].lower() not in ("top", "bottom", "best", "worst"):
        return True
    said = draft.subject_words
    return not said or singular(said) == said


# --- the plan ------------------------------------------------------------------------------------


def _order(draft: Draft) -> list[OrderBy]:
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


def _build(draft: Draft, today: dt.date) -> QueryPlan:
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
    index = values if values is not None and len(values) else ValueIndex.from_model(model)
    if values is not None and index is not values:
        index.extents = dict(values.extents)  # an index built before values were read
    s = scan(question, lexicon, index, today)
    draft = Draft(lexicon, index=index)
    for word in s.unknown:
        draft.unknown(word)
    _assemble(draft, s, today)
    one_row_each(draft)
    parallel_joins(draft)
    bridged(draft)
    degenerate(draft)
    negations(draft)
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
