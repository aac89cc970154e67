"""The QueryPlan compiler: a validated plan to one SQL statement per dialect, deterministically.

Pure module (sqlglot + networkx). The SQL is built as a sqlglot expression tree: identifiers
are quoted, filter values become literals in the tree (never pasted into text), and the
same plan and model always give the same SQL. Datasets are joined with LEFT JOINs along
the join tree from `ontology.joins`, rooted at the dataset of the first measure.

Fan-out rule (see docs/query-plans.md): when a SUM, AVG or COUNT would run over a dataset
whose rows the joins repeat, each measure dataset is pre-aggregated on its own — its rows
joined only to what the dimensions and filters need, with every one-to-many branch
collapsed into a DISTINCT derived table — and the per-dataset results are combined on the
dimensions. With `fan_out="refuse"` such a plan is refused with the reason instead.
"""

from __future__ import annotations

from collections import defaultdict
from functools import reduce
from typing import Literal

import sqlglot
from pydantic import BaseModel, Field
from sqlglot import exp

from dataagent.errors import DataAgentError, ErrorCode
from dataagent.ontology.joins import JoinEdge, JoinGraph, JoinPath, make_path
from dataagent.semantic.dialects import sqlglot_dialect, truncate
from dataagent.semantic.fanout import FanOutReport, analyse, primary_key
from dataagent.semantic.model import Dataset, Field_, SemanticModel
from dataagent.semantic.plan import (
    QueryPlan,
    ResolvedDimension,
    ResolvedFilter,
    ResolvedMeasure,
    ResolvedPlan,
    validate_plan,
)

FanOutStrategy = Literal["pre_aggregate", "refuse"]

_COMPARISONS: dict[str, type[exp.Binary]] = {
    "=": exp.EQ,
    "!=": exp.NEQ,
    ">": exp.GT,
    ">=": exp.GTE,
    "<": exp.LT,
    "<=": exp.LTE,
}


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


def _ident(name: str) -> exp.Identifier:
    return exp.to_identifier(name, quoted=True)


def _col(name: str, table: str | None = None) -> exp.Column:
    return exp.column(name, table=table, quoted=True)


def _cte(name: str) -> exp.Table:
    return exp.Table(this=_ident(name))


def _and(conditions: list[exp.Expression]) -> exp.Expression:
    return reduce(lambda a, b: exp.and_(a, b, copy=False), conditions)


class _Builder:
    """SQL fragments for one (model, plan, dialect); datasets are aliased by their names."""

    def __init__(self, model: SemanticModel, plan: ResolvedPlan, dialect: str) -> None:
        self.model = model
        self.plan = plan
        self.dialect = dialect
        self.read = sqlglot_dialect(model.dialect) if model.dialect else dialect
        self._parsed: dict[tuple[str, str], exp.Expression] = {}
        taken = {d.name.lower() for d in model.datasets}
        taken |= {d.source.split(".")[-1].strip('"`[]').lower() for d in model.datasets}
        self._taken = taken

    # --- names -------------------------------------------------------------------------
    def fresh(self, wanted: str) -> str:
        """A derived-table or CTE name that shadows no dataset or table."""
        name = wanted
        while name.lower() in self._taken:
            name += "_"
        self._taken.add(name.lower())
        return name

    def table(self, name: str) -> exp.Table:
        """The dataset's source table, aliased by the dataset name."""
        dataset = self._dataset(name)
        try:
            table = exp.to_table(dataset.source, dialect=self.read)
        except sqlglot.errors.ParseError:
            raise self._bad_model(f"dataset {name} has an unreadable source {dataset.source!r}")
        for part in table.parts:
            part.set("quoted", True)
        table.set("alias", exp.TableAlias(this=_ident(name)))
        return table

    def _dataset(self, name: str) -> Dataset:
        dataset = self.model.dataset(name)
        assert dataset is not None, name
        return dataset

    @staticmethod
    def _bad_model(message: str) -> DataAgentError:
        return DataAgentError(
            ErrorCode.VALIDATION_ERROR, f"The semantic model is invalid: {message}."
        )

    # --- expressions -------------------------------------------------------------------
    def field(self, dataset: Dataset, field: Field_, alias: str) -> exp.Expression:
        """The field's expression with its columns qualified by `alias`."""
        key = (dataset.name, field.name)
        if key not in self._parsed:
            try:
                parsed = sqlglot.parse_one(field.expression, read=self.read)
            except sqlglot.errors.ParseError:
                raise self._bad_model(f"{dataset.name}.{field.name} has an unreadable expression")
            if parsed.find(exp.Query, exp.Command, exp.DDL, exp.DML) is not None:
                raise self._bad_model(f"{dataset.name}.{field.name} expression is not a scalar")
            self._parsed[key] = parsed
        own = {"", dataset.name, dataset.source.split(".")[-1]}

        def qualify(node: exp.Expression) -> exp.Expression:
            if isinstance(node, exp.Column) and node.table in own:
                return _col(node.name, alias)
            return node

        return self._parsed[key].copy().transform(qualify)

    def column(self, dataset: str, field_name: str, alias: str | None = None) -> exp.Expression:
        """A field of a dataset by name (join columns)."""
        ds = self._dataset(dataset)
        found = ds.field(field_name)
        assert found is not None
        return self.field(ds, found, alias or dataset)

    def dimension(self, dim: ResolvedDimension) -> exp.Expression:
        """The dimension's value, truncated to its time grain."""
        assert dim.ref.field is not None
        value = self.field(dim.ref.dataset, dim.ref.field, dim.ref.dataset.name)
        return truncate(value, dim.time_grain, self.dialect) if dim.time_grain else value

    def measure(self, m: ResolvedMeasure, distinct_key: bool = False) -> exp.Expression:
        """The aggregate; `distinct_key` counts the dataset's primary key once per row."""
        ds = m.ref.dataset
        if distinct_key:
            key = self.column(ds.name, primary_key(ds)[0])
            return exp.Count(this=exp.Distinct(expressions=[key]))
        if m.ref.field is None:
            return exp.Count(this=exp.Star())
        value = self.field(ds, m.ref.field, ds.name)
        if m.aggregation == "count_distinct":
            return exp.Count(this=exp.Distinct(expressions=[value]))
        aggregate = {"sum": exp.Sum, "avg": exp.Avg, "min": exp.Min, "max": exp.Max}
        if m.aggregation == "count":
            return exp.Count(this=value)
        return aggregate[m.aggregation](this=value)

    def condition(self, f: ResolvedFilter) -> exp.Expression:
        """The filter as a boolean expression with literal values."""
        assert f.ref.field is not None
        value = self.field(f.ref.dataset, f.ref.field, f.ref.dataset.name)
        literals = [exp.convert(v) for v in f.values]
        if f.op in _COMPARISONS:
            return _COMPARISONS[f.op](this=value, expression=literals[0])
        if f.op == "in":
            return exp.In(this=value, expressions=literals)
        if f.op == "not_in":
            return exp.Not(this=exp.In(this=value, expressions=literals))
        if f.op == "between":
            return exp.Between(this=value, low=literals[0], high=literals[1])
        if f.op == "like":
            return exp.Like(this=value, expression=literals[0])
        null = exp.Is(this=value, expression=exp.Null())
        return null if f.op == "is_null" else exp.Not(this=null)

    def join_on(self, edge: JoinEdge) -> exp.Expression:
        """`from.col = to.col` for every column pair of the edge."""
        return _and(
            [
                exp.EQ(
                    this=self.column(edge.from_dataset, a),
                    expression=self.column(edge.to_dataset, b),
                )
                for a, b in zip(edge.from_columns, edge.to_columns, strict=True)
            ]
        )

    # --- FROM clauses --------------------------------------------------------------------
    def joined(self, select: exp.Select, path: JoinPath, collapse: bool) -> dict[str, str]:
        """Add FROM and JOINs for `path`; with `collapse`, one-to-many branches become DISTINCT
        derived tables. Returns, for datasets inside such a table, the table's alias."""
        children: dict[str, list[JoinEdge]] = defaultdict(list)
        for e in path.edges:
            children[e.from_dataset].append(e)
        select.from_(self.table(path.root), copy=False)
        collapsed: dict[str, str] = {}

        def walk(node: str) -> None:
            for edge in children[node]:
                if not (collapse and edge.fan_out):
                    select.join(
                        self.table(edge.to_dataset),
                        on=self.join_on(edge),
                        join_type="left",
                        copy=False,
                    )
                    walk(edge.to_dataset)
                    continue
                branch = make_path(edge.to_dataset, _descendants(children, edge.to_dataset))
                alias = self.fresh(f"{edge.to_dataset}_distinct")
                derived, keys, filtered = self._distinct_branch(edge, branch)
                on = _and(
                    [
                        exp.EQ(this=self.column(node, a), expression=_col(k, alias))
                        for a, k in zip(edge.from_columns, keys, strict=True)
                    ]
                )
                subquery = exp.Subquery(this=derived, alias=exp.TableAlias(this=_ident(alias)))
                # A filter inside the branch keeps only rows with a match, as WHERE does.
                select.join(subquery, on=on, join_type="inner" if filtered else "left", copy=False)
                collapsed.update(dict.fromkeys(branch.datasets, alias))

        walk(path.root)
        return collapsed

    def _distinct_branch(
        self, edge: JoinEdge, branch: JoinPath
    ) -> tuple[exp.Select, list[str], bool]:
        inside = set(branch.datasets)
        dims = [d for d in self.plan.dimensions if d.ref.dataset.name in inside]
        taken = {d.alias for d in dims}
        keys = []
        for i in range(len(edge.to_columns)):
            key = f"join_key_{i}"
            while key in taken:
                key += "_"
            keys.append(key)
        select = exp.select(
            *[
                self.column(edge.to_dataset, c).as_(_ident(k))
                for c, k in zip(edge.to_columns, keys, strict=True)
            ],
            *[self.dimension(d).as_(_ident(d.alias)) for d in dims],
        ).distinct()
        self.joined(select, branch, collapse=False)
        filters = [self.condition(f) for f in self.plan.filters if f.ref.dataset.name in inside]
        if filters:
            select.where(_and(filters), copy=False)
        return select, keys, bool(filters)


def _descendants(children: dict[str, list[JoinEdge]], node: str) -> list[JoinEdge]:
    edges: list[JoinEdge] = []
    frontier = [node]
    while frontier:
        current = frontier.pop(0)
        for e in children[current]:
            edges.append(e)
            frontier.append(e.to_dataset)
    return edges


def _flat(b: _Builder, tree: JoinPath, report: FanOutReport) -> exp.Select:
    plan = b.plan
    select = exp.select(
        *[b.dimension(d).as_(_ident(d.alias)) for d in plan.dimensions],
        *[
            b.measure(m, report.verdicts[m.alias] == "distinct_key").as_(_ident(m.alias))
            for m in plan.measures
        ],
    )
    b.joined(select, tree, collapse=False)
    if plan.filters:
        select.where(_and([b.condition(f) for f in plan.filters]), copy=False)
    if plan.dimensions:
        select.group_by(*[b.dimension(d) for d in plan.dimensions], copy=False)
    return select


def _group(
    b: _Builder, tree: JoinPath, dataset: str, measures: list[ResolvedMeasure]
) -> exp.Select:
    """One measure dataset aggregated at the grain of the dimensions, without fan-out."""
    plan = b.plan
    needed = {dataset, *(d.ref.dataset.name for d in plan.dimensions)}
    needed |= {f.ref.dataset.name for f in plan.filters}
    path = tree.reroot(dataset, keep=needed)
    select = exp.select()
    collapsed = b.joined(select, path, collapse=True)
    dims = [
        _col(d.alias, collapsed[d.ref.dataset.name])
        if d.ref.dataset.name in collapsed
        else b.dimension(d)
        for d in plan.dimensions
    ]
    select.select(
        *[e.copy().as_(_ident(d.alias)) for e, d in zip(dims, plan.dimensions, strict=True)],
        *[b.measure(m).as_(_ident(m.alias)) for m in measures],
        copy=False,
    )
    filters = [b.condition(f) for f in plan.filters if f.ref.dataset.name not in collapsed]
    if filters:
        select.where(_and(filters), copy=False)
    if dims:
        select.group_by(*dims, copy=False)
    return select


def _pre_aggregated(b: _Builder, tree: JoinPath) -> exp.Select:
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
        final.with_(_ident(alias), as_=selects[name], copy=False)
    if dims:
        spine = b.fresh("dimension_values")
        union = reduce(
            lambda left, right: exp.union(left, right, distinct=True, copy=False),
            [exp.select(*[_col(d, names[n]) for d in dims]).from_(_ident(names[n])) for n in names],
        )
        final.with_(_ident(spine), as_=union, copy=False)
        final.from_(_cte(spine), copy=False)
        final.select(*[_col(d, spine).as_(_ident(d)) for d in dims], copy=False)
        for name, alias in names.items():
            on = _and(
                [exp.NullSafeEQ(this=_col(d, spine), expression=_col(d, alias)) for d in dims]
            )
            final.join(_cte(alias), on=on, join_type="left", copy=False)
    else:
        aliases = list(names.values())
        final.from_(_cte(aliases[0]), copy=False)
        for alias in aliases[1:]:
            final.join(_cte(alias), join_type="cross", copy=False)
    for m in plan.measures:
        final.select(_col(m.alias, names[m.ref.dataset.name]).as_(_ident(m.alias)), copy=False)
    return final


def _ordered(select: exp.Select, plan: ResolvedPlan) -> exp.Select:
    order = [(o.alias, o.descending) for o in plan.order]
    if order or plan.limit is not None:
        # Remaining dimensions break ties, so a LIMIT keeps the same rows in every dialect.
        done = {alias for alias, _ in order}
        order += [(d.alias, False) for d in plan.dimensions if d.alias not in done]
    if order:
        select.order_by(
            *[exp.Ordered(this=_col(alias), desc=desc, nulls_first=False) for alias, desc in order],
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
    graph: JoinGraph | None = None,
) -> CompiledQuery:
    """Validate `plan` against `model` and compile it to SQL for `dialect`."""
    target = sqlglot_dialect(dialect)
    resolved = validate_plan(plan, model)
    involved = resolved.referenced_datasets
    graph = graph or JoinGraph.from_model(model)
    tree = graph.connecting_tree(involved, root=involved[0])
    notes = [
        f"{name} is listed in the plan but no field uses it, so it is not joined."
        for name in resolved.unused_datasets
    ]
    report = analyse(resolved, tree)
    builder = _Builder(model, resolved, target)
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
