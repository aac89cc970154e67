"""The QueryPlan compiler: a validated plan to one SQL statement per dialect, deterministically.

Pure module (sqlglot + networkx). The SQL is built as a sqlglot expression tree: identifiers
are quoted, filter values become literals in the tree (never pasted into text), and the
same plan and model always give the same SQL. Datasets are joined with LEFT JOINs along
the join tree `joins.join_paths` finds, rooted at the dataset of the first measure.

Fan-out rule (see docs/query-plans.md): when a SUM, AVG or COUNT would run over a dataset
whose rows the joins repeat, each measure dataset is pre-aggregated on its own — its rows
joined only to what the dimensions and filters need, with every one-to-many branch
collapsed into a DISTINCT derived table — and the per-dataset results are combined on the
dimensions. With `fan_out="refuse"` such a plan is refused with the reason instead.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field
from sqlglot import exp

from dataagent.dialects import sqlglot_name as sqlglot_dialect
from dataagent.errors import DataAgentError, ErrorCode
from dataagent.semantic.fanout import FanOutReport, analyse
from dataagent.semantic.fragments import Fragments, and_all, col, cte, ident
from dataagent.semantic.joins import JoinPath, join_paths
from dataagent.semantic.model import SemanticModel
from dataagent.semantic.plan import QueryPlan
from dataagent.semantic.resolver import ResolvedMeasure, ResolvedPlan, validate_plan

FanOutStrategy = Literal["pre_aggregate", "refuse"]


class CompiledQuery(BaseModel):
    """The SQL for one plan in one dialect, with the join path it follows."""

    sql: str
    dialect: str
    join_path: JoinPath
    columns: list[str] = Field(description="Output column names, in order.")
    pre_aggregated: bool = Field(
        False, description="True when measures were aggregated per dataset before joining."
    )
    notes: list[str] = Field(default_factory=list)


def _flat(b: Fragments, tree: JoinPath, report: FanOutReport) -> exp.Select:
    plan = b.plan
    select = exp.select(
        *[b.dimension(d).as_(ident(d.alias)) for d in plan.dimensions],
        *[
            b.measure(m, report.verdicts[m.alias] == "distinct_key").as_(ident(m.alias))
            for m in plan.measures
        ],
    )
    b.joined(select, tree, collapse=False)
    if plan.filters:
        select.where(and_all([b.condition(f) for f in plan.filters]), copy=False)
    if plan.dimensions:
        select.group_by(*[b.dimension(d) for d in plan.dimensions], copy=False)
    return select


def _group(
    b: Fragments, tree: JoinPath, dataset: str, measures: list[ResolvedMeasure]
) -> exp.Select:
    """One measure dataset aggregated at the grain of the dimensions, without fan-out."""
    plan = b.plan
    needed = {dataset, *(d.ref.dataset.name for d in plan.dimensions)}
    needed |= {f.ref.dataset.name for f in plan.filters}
    path = tree.reroot(dataset, keep=needed)
    select = exp.select()
    collapsed = b.joined(select, path, collapse=True)
    dims = [
        col(d.alias, collapsed[d.ref.dataset.name])
        if d.ref.dataset.name in collapsed
        else b.dimension(d)
        for d in plan.dimensions
    ]
    select.select(
        *[e.copy().as_(ident(d.alias)) for e, d in zip(dims, plan.dimensions, strict=True)],
        *[b.measure(m).as_(ident(m.alias)) for m in measures],
        copy=False,
    )
    filters = [b.condition(f) for f in plan.filters if f.ref.dataset.name not in collapsed]
    if filters:
        select.where(and_all(filters), copy=False)
    if dims:
        select.group_by(*dims, copy=False)
    return select


def _pre_aggregated(b: Fragments, tree: JoinPath) -> exp.Select:
    plan = b.plan
    groups: dict[str, list[ResolvedMeasure]] = {}
    for m in plan.measures:
        groups.setdefault(m.ref.dataset.name, []).append(m)
    selects = {name: _group(b, tree, name, ms) for name, ms in groups.items()}
    if len(selects) == 1:
        return next(iter(selects.values()))
    names = {name: b.fresh(f"{name}_agg") for name in selects}
    dims = [d.alias for d in plan.dimensions]
    final = exp.select()
    for name, alias in names.items():
        final.with_(ident(alias), as_=selects[name], copy=False)
    if dims:
        spine = b.fresh("dimension_values")
        parts = [exp.select(*[col(d, a) for d in dims]).from_(cte(a)) for a in names.values()]
        union: exp.Query = parts[0]
        for part in parts[1:]:
            union = exp.union(union, part, distinct=True, copy=False)
        final.with_(ident(spine), as_=union, copy=False)
        final.from_(cte(spine), copy=False)
        final.select(*[col(d, spine).as_(ident(d)) for d in dims], copy=False)
        for alias in names.values():
            on = and_all(
                [exp.NullSafeEQ(this=col(d, spine), expression=col(d, alias)) for d in dims]
            )
            final.join(cte(alias), on=on, join_type="left", copy=False)
    else:
        aliases = list(names.values())
        final.from_(cte(aliases[0]), copy=False)
        for alias in aliases[1:]:
            final.join(cte(alias), join_type="cross", copy=False)
    for m in plan.measures:
        final.select(col(m.alias, names[m.ref.dataset.name]).as_(ident(m.alias)), copy=False)
    return final


def _ordered(select: exp.Select, plan: ResolvedPlan) -> exp.Select:
    order = [(o.alias, o.descending) for o in plan.order]
    if order or plan.limit is not None:
        # Remaining dimensions break ties, so a LIMIT keeps the same rows in every dialect.
        done = {alias for alias, _ in order}
        order += [(d.alias, False) for d in plan.dimensions if d.alias not in done]
    if order:
        select.order_by(
            *[exp.Ordered(this=col(alias), desc=desc, nulls_first=False) for alias, desc in order],
            copy=False,
        )
    if plan.limit is not None:
        select.limit(plan.limit, copy=False)
    return select


def compile_plan(
    plan: QueryPlan,
    model: SemanticModel,
    dialect: str,
    fan_out: FanOutStrategy = "pre_aggregate",
) -> CompiledQuery:
    """Validate `plan` against `model` and compile it to SQL for `dialect`."""
    target = sqlglot_dialect(dialect)
    resolved = validate_plan(plan, model)
    involved = resolved.referenced_datasets
    [tree] = join_paths(model, involved, k=1)
    notes = [
        f"{name} is listed in the plan but no field uses it, so it is not joined."
        for name in resolved.unused_datasets
    ]
    report = analyse(resolved, tree)
    builder = Fragments(model, resolved, target)
    if report.needs_pre_aggregation:
        # Pre-aggregated groups count rows at their own grain: no distinct-key rewrite.
        notes += [r for a, r in report.reasons.items() if report.verdicts[a] != "distinct_key"]
        if fan_out == "refuse":
            reasons = [report.reasons[a] for a, v in report.verdicts.items() if v == "unsafe"]
            raise DataAgentError(
                ErrorCode.VALIDATION_ERROR,
                "Aggregating across a fan-out would double count: " + " ".join(reasons),
                details={"reasons": reasons, "join_path": tree.model_dump(mode="json")},
            )
        select = _pre_aggregated(builder, tree)
        notes.append("Measures were aggregated per dataset before joining (fan-out).")
    else:
        notes += report.notes()
        select = _flat(builder, tree, report)
    select = _ordered(select, resolved)
    return CompiledQuery(
        sql=select.sql(dialect=target, pretty=True),
        dialect=dialect,
        join_path=tree,
        columns=[d.alias for d in resolved.dimensions] + [m.alias for m in resolved.measures],
        pre_aggregated=report.needs_pre_aggregation,
        notes=notes,
    )
