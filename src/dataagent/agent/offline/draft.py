"""A plan being assembled by the offline planner: its outputs, its parts, its doubts.

Pure module. `Draft` collects what the planner understood (metrics, measures, dimensions,
filters, a window, a ranking) and what it cost in confidence; `pick` and `closest` choose
between the readings of a word.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from dataagent.agent.offline.lexicon import Lexicon, Sense
from dataagent.agent.offline.scan import Scan
from dataagent.ontology.values import ValueIndex
from dataagent.semantic.model import Dataset, Field_, Metric, SemanticModel
from dataagent.semantic.nouns import singular
from dataagent.semantic.plan import (
    AggregateFilter,
    Aggregation,
    Dimension,
    Filter,
    Measure,
    MetricRef,
    TimeWindow,
    TopN,
)

# How much each doubt costs (the confidence is multiplied by it).
UNKNOWN_WORD = 0.45
AMBIGUOUS = 0.6
GUESS = 0.9


ALIAS_WORDS: dict[str, str] = {
    "sum": "total",
    "avg": "average",
    "min": "minimum",
    "max": "maximum",
    "count": "count",
    "count_distinct": "distinct",
}


@dataclass
class Output:
    """A measure or metric the plan outputs, and how rankings and conditions refer to it."""

    key: str  # the metric name or the measure's alias
    label: str
    dataset: str


@dataclass
class Draft:
    """A plan being assembled, with what it cost in confidence."""

    lexicon: Lexicon
    confidence: float = 1.0
    understood: list[str] = field(default_factory=list)
    not_understood: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    metrics: list[MetricRef] = field(default_factory=list)
    measures: list[Measure] = field(default_factory=list)
    values: list[Output] = field(default_factory=list)
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
    row_key: str | None = None
    row_owner: str | None = None  # the dataset whose records a list is of, when not its columns'
    # a key listed to keep one row per record, not to order by
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

    def add_metric(self, name: str, share: bool = False) -> Output:
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
        value = Output(name, metric_said(metric), parts[0].dataset or "" if parts else "")
        self.values.append(value)
        self.understood.append(value.label + (" (share of total)" if share else ""))
        return value

    def add_measure(
        self, target: str, aggregation: Aggregation, label: str, alias: str | None = None
    ) -> Output:
        dataset, _, column = target.partition(".")
        word = ALIAS_WORDS[aggregation]
        alias = alias or (f"number_of_{dataset}" if column == "*" else f"{word}_{column}")
        existing = next((v for v in self.values if v.key == alias), None)
        if existing is not None:
            return existing
        self.measures.append(Measure(field=target, aggregation=aggregation, alias=alias))
        value = Output(alias, label, dataset)
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
        said = f"by {grain}" if grain else f"by {field_said(dataset, f)}"
        self.understood.append(said)
        return alias or target

    def homes(self) -> list[str]:
        """The datasets the outputs come from: measures first, else dimensions."""
        found = [v.dataset for v in self.values if v.dataset]
        if not found:
            found = [d.field.split(".")[0] for d in self.dimensions]
        return list(dict.fromkeys(found))


def metric_said(metric: Metric) -> str:
    return (metric.label or metric.name.replace("_", " ")).lower()


def field_said(dataset: Dataset, f: Field_) -> str:
    return (f.label or f"{singular(dataset.name.replace('_', ' '))} {f.name}").lower()


# --- choosing between readings -------------------------------------------------------------------


def named_datasets(s: Scan) -> set[str]:
    """Datasets the question names outright (a dataset's own word, or a field said with it)."""
    named: set[str] = set()
    for item in s.items:
        if item.kind == "term":
            kinds = {sense.kind for sense in item.senses}
            datasets = {
                sense.dataset
                for sense in item.senses
                if sense.kind != "metric" and not sense.generic
            }
            if "dataset" in kinds or len(datasets) == 1:
                named |= datasets
    return named


def closest(draft: Draft, candidates: list[str], named: set[str]) -> tuple[list[str], bool]:
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


def pick(draft: Draft, senses: list[Sense], named: set[str], what: str) -> Sense:
    """The sense of a word the question means (see `closest`); a doubt when unclear."""
    if all(s.generic for s in senses) and not any(s.dataset in named for s in senses):
        # "the names" when no dataset said holds one: whose names is not said.
        draft.doubt(AMBIGUOUS, f"'{what}' of what is not said")
        return senses[0]
    if len(senses) == 1:
        return senses[0]
    names = [s.name for s in senses]
    best, clear = closest(draft, names, named)
    if not clear:
        draft.doubt(AMBIGUOUS, f"'{what}' could be {' or '.join(best)}; took {best[0]}")
    return next(s for s in senses if s.name == best[0])
