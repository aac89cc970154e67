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

Metrics are aggregates like measures (a metric's filter sits inside its aggregate). What is
computed from the aggregates — a ratio metric, a share of the total, the previous period
and the change, an aggregate filter, a top N — is computed in outer queries over the
aggregated rows, so a ratio's parts are each aggregated (and pre-aggregated across a
fan-out) on their own before they are divided.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from typing import Literal

from pydantic import BaseModel, Field
from sqlglot import exp

from dataagent.dialects import sqlglot_name as sqlglot_dialect
from dataagent.errors import DataAgentError, ErrorCode
from dataagent.semantic.fanout import FanOutReport, analyse
from dataagent.semantic.fragments import COMPARISONS, Fragments, and_all, col, cte, ident
from dataagent.semantic.joins import JoinPath, join_paths
from dataagent.semantic.model import SemanticModel
from dataagent.semantic.plan import QueryPlan
from dataagent.semantic.resolver import (
    ResolvedCondition,
    ResolvedMeasure,
    ResolvedOutput,
    ResolvedPlan,
    validate_plan,
)

FanOutStrategy = Literal["pre_aggregate", "refuse"]


class CompiledWindow(BaseModel):
    """The dates a plan's relative time window became (end dates are excluded)."""

    field: str = Field(description="`dataset.field` the window filters.")
    reference_date: dt.date = Field(description="The 'today' the window was resolved against.")
    start: dt.date
    end: dt.date
    previous_start: dt.date | None = None
    previous_end: dt.date | None = None


class CompiledQuery(BaseModel):
    """The SQL for one plan in one dialect, with the join path it follows."""

    sql: str
    dialect: str
    join_path: JoinPath
    columns: list[str] = Field(description="Output column names, in order.")
    pre_aggregated: bool = Field(
        False, description="True when measures were aggregated per dataset before joining."
    )
    time_window: CompiledWindow | None = None
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
        select.where(and_all([b.condition(c) for c in plan.filters]), copy=False)
    if plan.dimensions:
        select.group_by(*[b.dimension(d) for d in plan.dimensions], copy=False)
    return select


def _outside(
    conditions: tuple[ResolvedCondition, ...], collapsed: dict[str, str]
) -> list[ResolvedCondition]:
    """What stays in WHERE once one-to-many branches are collapsed (the rest filters inside
    them); a condition that mixes a branch with what lies outside it cannot be split."""
    out = []
    for c in conditions:
        branches = {collapsed.get(name) for name in c.datasets}
        if len(branches) > 1:
            names = ", ".join(sorted(c.datasets))
            raise DataAgentError(
                ErrorCode.VALIDATION_ERROR,
                f"An OR-group over {names} spans a one-to-many join, so it cannot be applied "
                "without double counting; split it into separate filters or plans.",
            )
        if branches == {None}:
            out.append(c)
    return out


def _group(
    b: Fragments, tree: JoinPath, dataset: str, measures: list[ResolvedMeasure]
) -> exp.Select:
    """One measure dataset aggregated at the grain of the dimensions, without fan-out."""
    plan = b.plan
    needed = {dataset, *(d.ref.dataset.name for d in plan.dimensions)}
    needed |= {n for c in plan.filters for n in c.datasets}
    needed |= {n for m in measures for n in m.uses}
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
    filters = [b.condition(c) for c in _outside(plan.filters, collapsed)]
    if filters:
        select.where(and_all(filters), copy=False)
    if dims:
        select.group_by(*dims, copy=False)
    return select


def _side_by_side(
    b: Fragments, select: exp.Select, tables: list[str], dims: list[str]
) -> tuple[str, exp.Query]:
    """Put the rows of several grouped tables side by side on their dimensions: FROM every
    dimension value any of them has (the returned CTE) LEFT JOIN each, NULL-safely."""
    spine = b.fresh("dimension_values")
    union = exp.union(
        *[exp.select(*[col(d, t) for d in dims]).from_(cte(t)) for t in tables], distinct=True
    )
    select.from_(cte(spine), copy=False)
    select.select(*[col(d, spine).as_(ident(d)) for d in dims], copy=False)
    for table in tables:
        on = and_all([exp.NullSafeEQ(this=col(d, spine), expression=col(d, table)) for d in dims])
        select.join(cte(table), on=on, join_type="left", copy=False)
    return spine, union


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
        spine, union = _side_by_side(b, final, list(names.values()), dims)
        final.with_(ident(spine), as_=union, copy=False)
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


def _ratio(numerator: exp.Expr, denominator: exp.Expr) -> exp.Expr:
    """numerator / denominator as a fraction (never integer division), NULL for a zero."""
    share = exp.Div(
        this=exp.cast(numerator, exp.DataType.Type.DOUBLE),
        expression=exp.Nullif(this=denominator, expression=exp.Literal.number(0)),
    )
    return share


def _value(o: ResolvedOutput, suffix: str = "") -> exp.Expr:
    if o.ratio is None:
        assert o.measure is not None
        return col(o.measure + suffix)
    return _ratio(col(o.ratio[0] + suffix), col(o.ratio[1] + suffix))


def _hoist(select: exp.Select, ctes: list[exp.CTE]) -> exp.Select:
    """Move `select`'s own WITH clauses to `ctes`, so the whole query has one WITH."""
    with_ = select.args.get("with_")
    if with_ is not None:
        ctes.extend(with_.expressions)
        select.set("with_", None)
    return select


def _compared(b: Fragments, current: exp.Select, previous: exp.Select, ctes: list[exp.CTE]) -> str:
    """Both periods' aggregates side by side (the previous one's as `<alias>__previous`)."""
    plan = b.plan
    names = {"current": b.fresh("current_period"), "previous": b.fresh("previous_period")}
    for key, select in (("current", current), ("previous", previous)):
        ctes.append(
            exp.CTE(this=_hoist(select, ctes), alias=exp.TableAlias(this=ident(names[key])))
        )
    dims = [d.alias for d in plan.dimensions]
    both = exp.select()
    if dims:
        spine, union = _side_by_side(b, both, list(names.values()), dims)
        ctes.append(exp.CTE(this=union, alias=exp.TableAlias(this=ident(spine))))
    else:
        both.from_(cte(names["current"]), copy=False)
        both.join(cte(names["previous"]), join_type="cross", copy=False)
    for m in plan.measures:
        both.select(col(m.alias, names["current"]).as_(ident(m.alias)), copy=False)
        previous_alias = ident(m.alias + "__previous")
        both.select(col(m.alias, names["previous"]).as_(previous_alias), copy=False)
    return _step(b, both, ctes, "both_periods")


def _step(b: Fragments, select: exp.Select, ctes: list[exp.CTE], name: str) -> str:
    alias = b.fresh(name)
    ctes.append(exp.CTE(this=select, alias=exp.TableAlias(this=ident(alias))))
    return alias


def _outer(b: Fragments, inner: exp.Select, previous: exp.Select | None) -> exp.Select:
    """Ratios and comparisons over the aggregated rows, then aggregate filters (HAVING),
    then shares of the total and the top N over the rows that remain."""
    plan = b.plan
    ctes: list[exp.CTE] = []
    if previous is not None:
        source = _compared(b, inner, previous, ctes)
    else:
        source = b.fresh("aggregated")
        ctes.append(exp.CTE(this=_hoist(inner, ctes), alias=exp.TableAlias(this=ident(source))))
    dims = [col(d.alias) for d in plan.dimensions]

    values = exp.select(*[d.copy() for d in dims]).from_(cte(source))
    for o in plan.outputs:
        values.select(_value(o).as_(ident(o.alias)), copy=False)
        if previous is not None:
            now, before = _value(o), _value(o, "__previous")
            change = exp.Sub(this=now, expression=before)
            values.select(
                before.copy().as_(ident(f"{o.alias}_previous")),
                change.copy().as_(ident(f"{o.alias}_change")),
                _ratio(exp.Paren(this=change), before.copy()).as_(ident(f"{o.alias}_change_pct")),
                copy=False,
            )
    source = _step(b, values, ctes, "output_values")

    shares = {f"{o.alias}_share": o.alias for o in plan.outputs if o.share}
    windowed = exp.select()
    for c in plan.columns:
        if c in shares:
            total = exp.Window(this=exp.Sum(this=col(shares[c])))
            windowed.select(_ratio(col(shares[c]), total).as_(ident(c)), copy=False)
        else:
            windowed.select(col(c), copy=False)
    windowed.from_(cte(source), copy=False)
    if plan.having:
        having = [_aggregate_filter(h.alias, h.op, h.values) for h in plan.having]
        windowed.where(and_all(having), copy=False)
    final = windowed
    if plan.top is not None:
        rank = b.fresh("top_rank")
        top = plan.top
        order = [exp.Ordered(this=col(top.alias), desc=top.descending, nulls_first=False)]
        order += [
            exp.Ordered(this=col(d.alias), desc=False, nulls_first=False)
            for d in plan.dimensions
            if d.alias not in top.within
        ]
        window = exp.Window(
            this=exp.RowNumber(),
            partition_by=[col(w) for w in top.within] or None,
            order=exp.Order(expressions=order),
        )
        windowed.select(window.as_(ident(rank)), copy=False)
        final = exp.select(*[col(c) for c in plan.columns])
        final.from_(cte(_step(b, windowed, ctes, "ranked")), copy=False)
        final.where(exp.LTE(this=col(rank), expression=exp.Literal.number(top.n)), copy=False)
    final.set("with_", exp.With(expressions=ctes))
    return final


def _aggregate_filter(alias: str, op: str, values: tuple[float, ...]) -> exp.Expr:
    literals = [exp.convert(v) for v in values]
    if op == "between":
        return exp.Between(this=col(alias), low=literals[0], high=literals[1])
    return COMPARISONS[op](this=col(alias), expression=literals[0])


def _aggregated(
    builder: Fragments, tree: JoinPath, fan_out: FanOutStrategy, notes: list[str]
) -> tuple[exp.Select, bool]:
    """The plan's aggregates at the grain of its dimensions, safe across fan-outs."""
    report = analyse(builder.plan, tree)
    if not report.needs_pre_aggregation:
        notes += report.notes()
        return _flat(builder, tree, report), False
    # Pre-aggregated groups count rows at their own grain: no distinct-key rewrite.
    notes += [r for a, r in report.reasons.items() if report.verdicts[a] != "distinct_key"]
    if fan_out == "refuse":
        reasons = [report.reasons[a] for a, v in report.verdicts.items() if v == "unsafe"]
        raise DataAgentError(
            ErrorCode.VALIDATION_ERROR,
            "Aggregating across a fan-out would double count: " + " ".join(reasons),
            details={"reasons": reasons, "join_path": tree.model_dump(mode="json")},
        )
    notes.append("Measures were aggregated per dataset before joining (fan-out).")
    return _pre_aggregated(builder, tree), True


def _window(plan: ResolvedPlan) -> CompiledWindow | None:
    window = plan.window
    if window is None:
        return None
    previous = window.previous
    return CompiledWindow(
        field=window.field.label,
        reference_date=window.reference_date,
        start=window.current.start,
        end=window.current.end,
        previous_start=previous.start if previous else None,
        previous_end=previous.end if previous else None,
    )


def compile_plan(
    plan: QueryPlan,
    model: SemanticModel,
    dialect: str,
    fan_out: FanOutStrategy = "pre_aggregate",
    today: dt.date | None = None,
) -> CompiledQuery:
    """Validate `plan` against `model` and compile it to SQL for `dialect`.

    `today` is the reference date for a relative time window the plan gives none for."""
    target = sqlglot_dialect(dialect)
    resolved = validate_plan(plan, model, today)
    involved = resolved.referenced_datasets
    [tree] = join_paths(model, involved, k=1)
    notes = [
        f"{name} is listed in the plan but no field uses it, so it is not joined."
        for name in resolved.unused_datasets
    ]
    builder = Fragments(model, resolved, target)
    select, pre_aggregated = _aggregated(builder, tree, fan_out, notes)
    if resolved.needs_outer_query:
        previous = None
        if resolved.compare is not None:
            before = dataclasses.replace(resolved, filters=resolved.previous_filters)
            builder.plan = before
            previous, _ = _aggregated(builder, tree, fan_out, [])
            builder.plan = resolved
        select = _outer(builder, select, previous)
    if resolved.window is not None:
        window = resolved.window
        notes.append(
            f"{window.field.label} from {window.current.describe()}"
            f" (reference date {window.reference_date.isoformat()})."
        )
    select = _ordered(select, resolved)
    return CompiledQuery(
        sql=select.sql(dialect=target, pretty=True),
        dialect=dialect,
        join_path=tree,
        columns=resolved.columns,
        pre_aggregated=pre_aggregated,
        time_window=_window(resolved),
        notes=notes,
    )
