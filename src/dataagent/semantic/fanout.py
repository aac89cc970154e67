"""Fan-out (and chasm) trap detection for aggregates over a join tree.

Pure module. Joining a dataset to one with many rows per row of it repeats its rows; any
aggregate that is sensitive to repetition (SUM, AVG, COUNT) over such a dataset would be
inflated. MIN, MAX and COUNT(DISTINCT) are not affected. This module decides, for each
measure of a resolved plan, whether the plain joined query is correct:

* ``safe`` — the measure's dataset is not repeated, or the aggregate ignores repetition;
* ``distinct_key`` — a row count of a repeated dataset with a one-column primary key,
  rewritten to ``COUNT(DISTINCT key)``, which counts each row once;
* ``unsafe`` — the compiler must pre-aggregate the dataset before the join (or refuse).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from dataagent.semantic.joins import JoinEdge, JoinPath
from dataagent.semantic.model import Dataset
from dataagent.semantic.resolver import ResolvedMeasure, ResolvedPlan

Verdict = Literal["safe", "distinct_key", "unsafe"]
REPETITION_SAFE = {"min", "max", "count_distinct"}


def primary_key(dataset: Dataset) -> list[str]:
    """The dataset's primary key columns (declared list, else fields flagged as keys)."""
    return dataset.primary_key or [f.name for f in dataset.fields if f.is_primary_key]


def fan_out_edge(tree: JoinPath, dataset: str) -> JoinEdge | None:
    """The first edge that repeats `dataset`'s rows when the tree is joined from it."""
    if dataset not in tree.datasets:
        return None
    return next((e for e in tree.reroot(dataset).edges if e.fan_out), None)


@dataclass
class FanOutReport:
    """The verdict for each measure (by alias) and sentences explaining the non-trivial ones."""

    verdicts: dict[str, Verdict] = field(default_factory=dict)
    reasons: dict[str, str] = field(default_factory=dict)

    @property
    def needs_pre_aggregation(self) -> bool:
        """True when at least one measure would be inflated by the plain join."""
        return "unsafe" in self.verdicts.values()

    def notes(self) -> list[str]:
        """The explanations, in measure order."""
        return list(self.reasons.values())


def _describe(edge: JoinEdge) -> str:
    return (
        f"{edge.from_dataset} → {edge.to_dataset} is {edge.cardinality.value} "
        f"(relationship {edge.relationship})"
    )


def _verdict(measure: ResolvedMeasure, tree: JoinPath) -> tuple[Verdict, str | None]:
    name = measure.ref.dataset.name
    edge = fan_out_edge(tree, name)
    if edge is None:
        return "safe", None
    if measure.aggregation in REPETITION_SAFE:
        return "safe", (
            f"{measure.output}: {name} rows repeat in this join ({_describe(edge)}); "
            f"{measure.aggregation} is unaffected."
        )
    key = primary_key(measure.ref.dataset)
    counts_rows = measure.ref.field is None or [measure.ref.field.name] == key
    if measure.aggregation == "count" and counts_rows and len(key) == 1:
        return "distinct_key", (
            f"{measure.output}: {name} rows repeat in this join ({_describe(edge)}); "
            f"counted as COUNT(DISTINCT {name}.{key[0]})."
        )
    return "unsafe", (
        f"{measure.output}: {measure.aggregation} of {measure.label} would be inflated: "
        f"{_describe(edge)}, so each {name} row repeats once per matching "
        f"{edge.to_dataset} row."
    )


def analyse(plan: ResolvedPlan, tree: JoinPath) -> FanOutReport:
    """Decide, per measure, whether the plain joined aggregate is correct."""
    report = FanOutReport()
    for measure in plan.measures:
        verdict, reason = _verdict(measure, tree)
        report.verdicts[measure.alias] = verdict
        if reason:
            report.reasons[measure.alias] = reason
    return report
