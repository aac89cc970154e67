"""What a plan step promises, in the terms the verifier's checks compare SQL against:
the datasets it reads, its grain (GROUP BY), its filters, its aggregations.

Pure module. Three sources, from the most to the least exact:

* a step with a QueryPlan: the plan resolved against the semantic model
  (`semantic.resolver.validate_plan`), so every field, filter and metric is known;
* a step without one: only its datasets (the plan's grain and filters are free text, so
  nothing more is safely structured, and the checks that need more stay silent);
* a gold SQL query: its own datasets, GROUP BY, WHERE conditions, aggregates and joins
  (`from_sql`), the plan a good planner would have made (`dataagent eval faults`).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Literal

from dataagent.agent.pipeline.sql_facts import (
    REPEAT_SENSITIVE,
    ColumnUse,
    Scalar,
    SqlFacts,
)
from dataagent.agent.pipeline.sql_reader import expression_columns, read_sql
from dataagent.agent.pipeline.state import PlanStep
from dataagent.errors import DataAgentError, ErrorCode
from dataagent.semantic.model import SemanticModel
from dataagent.semantic.resolver import ResolvedMeasure, ResolvedPlan, validate_plan


@dataclass(frozen=True)
class ExpectedFilter:
    """A row condition the step asked for."""

    column: ColumnUse
    op: str
    values: tuple[Scalar, ...] = ()

    def describe(self) -> str:
        """`orders.status = 'completed'`, for messages."""
        shown = ", ".join(repr(v) if isinstance(v, str) else f"{v:g}" for v in self.values)
        return f"{self.column.label} {self.op} {shown}".rstrip()


@dataclass(frozen=True)
class ExpectedMeasure:
    """An aggregate the step asked for: its function over the columns its value reads,
    or a row count of `dataset`. `output` is the result column it lands in, when known."""

    function: str
    columns: frozenset[ColumnUse]
    dataset: str
    label: str
    counts_rows: bool = False
    output: str | None = None


@dataclass(frozen=True)
class Expectations:
    """What one step promises. `None` (or `known=False`) means "not known": the checks that
    would need it pass silently rather than guess."""

    source: Literal["plan", "datasets", "sql"]
    step_id: int | None = None
    datasets: frozenset[str] = frozenset()
    grain: frozenset[ColumnUse] | None = None
    filters: tuple[ExpectedFilter, ...] = ()
    filters_known: bool = False
    measures: tuple[ExpectedMeasure, ...] = ()
    # Datasets whose rows the step counts (row-count measures).
    counted: frozenset[str] = frozenset()
    # Datasets the step aggregates knowingly although its joins repeat their rows.
    allowed_fan_out: frozenset[str] = frozenset()
    # Datasets an inner join may reach without losing rows the step counts (None: unknown).
    inner_joins: frozenset[str] | None = None
    # Join conditions the step itself uses, as {"a.x", "b.y"} pairs (a gold query's).
    joins: frozenset[frozenset[str]] = frozenset()
    # True when the result holds every row of the grain (no top N, HAVING or LIMIT), so
    # totals of a measure can be compared between steps.
    complete: bool = False
    notes: tuple[str, ...] = field(default_factory=tuple)


def _measure(model: SemanticModel, measure: ResolvedMeasure, outputs: set[str]) -> ExpectedMeasure:
    dataset = measure.ref.dataset.name
    output = measure.alias if measure.alias in outputs else None
    if measure.metric is not None:
        expression = measure.metric.expression
        columns = expression_columns(model, dataset, expression) if expression else set()
    elif measure.ref.field is not None:
        columns = expression_columns(model, dataset, measure.ref.field.expression)
    else:
        columns = set()
    return ExpectedMeasure(
        function=measure.aggregation,
        columns=frozenset(columns),
        dataset=dataset,
        label=measure.label,
        counts_rows=measure.counts_rows,
        output=output,
    )


def from_resolved(model: SemanticModel, plan: ResolvedPlan, step_id: int | None) -> Expectations:
    """The expectations of a resolved QueryPlan."""
    grain: set[ColumnUse] = set()
    for dimension in plan.dimensions:
        assert dimension.ref.field is not None
        grain |= expression_columns(
            model, dimension.ref.dataset.name, dimension.ref.field.expression
        )
    filters = []
    for condition in plan.filters:
        if len(condition.filters) != 1:
            continue  # an OR group: each of its columns may or may not appear
        f = condition.filters[0]
        assert f.ref.field is not None
        columns = expression_columns(model, f.ref.dataset.name, f.ref.field.expression)
        if len(columns) != 1:
            continue  # a filter on a derived field: the SQL filters its expression
        values = tuple(v if isinstance(v, str) else float(v) for v in f.values)
        filters.append(ExpectedFilter(next(iter(columns)), f.op, values))
    outputs = set(plan.columns)
    measures = tuple(_measure(model, m, outputs) for m in plan.measures)
    return Expectations(
        source="plan",
        step_id=step_id,
        datasets=frozenset(plan.referenced_datasets),
        grain=frozenset(grain) if plan.measures else None,
        filters=tuple(filters),
        filters_known=True,
        measures=measures,
        counted=frozenset(m.dataset for m in measures if m.counts_rows),
        # The compiler joins with LEFT JOIN: every row of the measured datasets counts,
        # except where a filter on the far dataset drops its NULLs anyway.
        inner_joins=frozenset(f.column.dataset for f in filters),
        complete=plan.top is None and not plan.having and plan.limit is None,
    )


def from_step(step: PlanStep, model: SemanticModel, today: dt.date | None = None) -> Expectations:
    """What a plan step promises: all of its QueryPlan, or only its datasets."""
    if step.query_plan is not None:
        try:
            resolved = validate_plan(step.query_plan, model, today)
        except DataAgentError as exc:
            return _datasets_only(step, model, (f"Its QueryPlan does not resolve: {exc.message}",))
        return from_resolved(model, resolved, step.id)
    return _datasets_only(step, model, ())


def _datasets_only(step: PlanStep, model: SemanticModel, notes: tuple[str, ...]) -> Expectations:
    known = frozenset(d for d in step.datasets if model.dataset(d) is not None)
    return Expectations(source="datasets", step_id=step.id, datasets=known, notes=notes)


def from_facts(facts: SqlFacts, step_id: int | None = None) -> Expectations:
    """The plan a good planner would make for a query that is right: read from the query."""
    measures: list[ExpectedMeasure] = []
    counted: set[str] = set()
    allowed: set[str] = set()
    inner: set[str] = set()
    joins: set[frozenset[str]] = set()
    for scope in facts.scopes:
        not_repeated = {d for a, d in scope.aliases.items() if a not in scope.duplicated}
        for aggregate in scope.aggregates:
            dataset = next(iter(sorted(u.dataset for u in aggregate.columns)), "")
            if aggregate.counts_rows:
                counted |= not_repeated
                dataset = next(iter(sorted(not_repeated)), "")
            elif aggregate.function in REPEAT_SENSITIVE:
                allowed |= {scope.aliases[a] for a in aggregate.aliases & scope.duplicated}
            label = ", ".join(sorted(u.label for u in aggregate.columns)) or f"{dataset} rows"
            measures.append(
                ExpectedMeasure(
                    function=aggregate.function,
                    columns=aggregate.columns,
                    dataset=dataset,
                    label=label,
                    counts_rows=aggregate.counts_rows,
                )
            )
        for join in scope.joins:
            if join.left_dataset is None or join.right_dataset is None:
                continue
            if join.kind == "inner":
                inner |= {join.left_dataset, join.right_dataset}
            for a, b in join.pairs:
                joins.add(frozenset({f"{join.left_dataset}.{a}", f"{join.right_dataset}.{b}"}))
    filters = tuple(
        dict.fromkeys(
            ExpectedFilter(p.column, p.op, p.values)
            for p in facts.predicates
            if p.clause in ("where", "on") and p.op != "other"
        )
    )
    inner |= {f.column.dataset for f in filters}
    return Expectations(
        source="sql",
        step_id=step_id,
        datasets=frozenset(facts.datasets),
        grain=facts.grain,
        filters=filters,
        filters_known=True,
        measures=tuple(measures),
        counted=frozenset(counted),
        allowed_fan_out=frozenset(allowed),
        inner_joins=frozenset(inner),
        joins=frozenset(joins),
    )


def from_sql(sql: str, model: SemanticModel, step_id: int | None = None) -> Expectations:
    """`from_facts` of a query's text; VALIDATION_ERROR when the query cannot be read."""
    facts = read_sql(sql, model)
    problem = facts.error or (facts.unknown[0] if facts.unknown else None)
    if problem is not None:
        raise DataAgentError(
            ErrorCode.VALIDATION_ERROR, f"The gold query is not usable: {problem}."
        )
    return from_facts(facts, step_id)
