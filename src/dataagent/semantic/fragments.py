"""SQL fragments for one validated plan: tables, fields, aggregates, filters and joins.

Pure module (sqlglot). Everything is built as expression trees: identifiers are quoted,
filter values become literals, and a dataset is always aliased by its own name. `joined`
adds the FROM clause for a join tree and can collapse each one-to-many branch into a
DISTINCT derived table (how the compiler pre-aggregates across a fan-out).
"""

from __future__ import annotations

from collections import defaultdict

import sqlglot
from sqlglot import exp

from dataagent.dialects import sqlglot_name as sqlglot_dialect
from dataagent.errors import DataAgentError, ErrorCode
from dataagent.semantic.expressions import ExpressionError, parse, resolve_reference
from dataagent.semantic.fanout import primary_key
from dataagent.semantic.joins import JoinEdge, JoinPath, make_path
from dataagent.semantic.model import Dataset, Field_, SemanticModel
from dataagent.semantic.resolver import (
    ResolvedCondition,
    ResolvedDimension,
    ResolvedFilter,
    ResolvedMeasure,
    ResolvedPlan,
)
from dataagent.semantic.time_grains import truncate

COMPARISONS: dict[str, type[exp.Binary]] = {
    "=": exp.EQ,
    "!=": exp.NEQ,
    ">": exp.GT,
    ">=": exp.GTE,
    "<": exp.LT,
    "<=": exp.LTE,
}


def ident(name: str) -> exp.Identifier:
    """A quoted identifier."""
    return exp.to_identifier(name, quoted=True)


def col(name: str, table: str | None = None) -> exp.Column:
    """A quoted column reference."""
    return exp.column(name, table=table, quoted=True)


def cte(name: str) -> exp.Table:
    """A reference to a CTE (or derived table) by name."""
    return exp.Table(this=ident(name))


def and_all(conditions: list[exp.Expr]) -> exp.Expr:
    """The conjunction of one or more conditions."""
    result = conditions[0]
    for condition in conditions[1:]:
        result = exp.and_(result, condition, copy=False)
    return result


def or_all(conditions: list[exp.Expr]) -> exp.Expr:
    """The disjunction of one or more conditions (parenthesised when there are several)."""
    result = conditions[0]
    for condition in conditions[1:]:
        result = exp.or_(result, condition, copy=False)
    return exp.Paren(this=result) if len(conditions) > 1 else result


def when(condition: exp.Expr | None, value: exp.Expr) -> exp.Expr:
    """`value` where `condition` holds, else NULL (what a filtered aggregate adds up)."""
    return value if condition is None else exp.Case(ifs=[exp.If(this=condition, true=value)])


class Fragments:
    """SQL fragments for one (model, plan, dialect); datasets are aliased by their names."""

    def __init__(self, model: SemanticModel, plan: ResolvedPlan, dialect: str) -> None:
        self.model = model
        self.plan = plan
        self.dialect = dialect
        self.read = sqlglot_dialect(model.dialect) if model.dialect else dialect
        self._parsed: dict[tuple[str, str], exp.Expr] = {}
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
            raise self._bad_model(
                f"dataset {name} has an unreadable source {dataset.source!r}"
            ) from None
        for part in table.parts:
            part.set("quoted", True)
        table.set("alias", exp.TableAlias(this=ident(name)))
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
    def field(self, dataset: Dataset, field: Field_, alias: str) -> exp.Expr:
        """The field's expression with its columns qualified by `alias`."""
        key = (dataset.name, field.name)
        if key not in self._parsed:
            try:
                parsed = sqlglot.parse_one(field.expression, read=self.read)
            except sqlglot.errors.ParseError:
                raise self._bad_model(
                    f"{dataset.name}.{field.name} has an unreadable expression"
                ) from None
            if parsed.find(exp.Query, exp.Command, exp.DDL, exp.DML) is not None:
                raise self._bad_model(f"{dataset.name}.{field.name} expression is not a scalar")
            self._parsed[key] = parsed
        own = {"", dataset.name, dataset.source.split(".")[-1]}

        def qualify(node: exp.Expr) -> exp.Expr:
            if isinstance(node, exp.Column) and node.table in own:
                return col(node.name, alias)
            return node

        return self._parsed[key].copy().transform(qualify)

    def column(self, dataset: str, field_name: str, alias: str | None = None) -> exp.Expr:
        """A field of a dataset by name (join columns)."""
        ds = self._dataset(dataset)
        found = ds.field(field_name)
        assert found is not None
        return self.field(ds, found, alias or dataset)

    def dimension(self, dim: ResolvedDimension) -> exp.Expr:
        """The dimension's value, truncated to its time grain, or with the values outside
        its group replaced by the group's `others` label."""
        assert dim.ref.field is not None
        value = self.field(dim.ref.dataset, dim.ref.field, dim.ref.dataset.name)
        if dim.group is not None:
            kept = exp.In(this=value, expressions=[exp.Literal.string(v) for v in dim.group])
            return exp.Case(
                ifs=[exp.If(this=kept, true=value.copy())],
                default=exp.Literal.string(dim.others or "Others"),
            )
        return truncate(value, dim.time_grain, self.dialect) if dim.time_grain else value

    def metric_sql(self, m: ResolvedMeasure, text: str) -> exp.Expr:
        """A metric's expression or filter, each field it names replaced by its SQL."""
        home = m.ref.dataset
        try:
            parsed = parse(text, self.model.dialect)
        except ExpressionError as exc:
            raise self._bad_model(str(exc)) from None

        def substitute(node: exp.Expr) -> exp.Expr:
            if not isinstance(node, exp.Column):
                return node
            try:
                use = resolve_reference(self.model, home, node)
            except ExpressionError as exc:
                raise self._bad_model(str(exc)) from None
            value = self.field(use.dataset, use.field, use.dataset.name)
            return value if isinstance(value, exp.Column | exp.Literal) else exp.Paren(this=value)

        return parsed.copy().transform(substitute)

    def measure(self, m: ResolvedMeasure, distinct_key: bool = False) -> exp.Expr:
        """The aggregate; `distinct_key` counts the dataset's primary key once per row.

        A metric's filter goes inside the aggregate (`SUM(CASE WHEN filter THEN x END)`),
        so metrics with different filters share one query."""
        ds = m.ref.dataset
        metric = m.metric
        condition = self.metric_sql(m, metric.filter) if metric and metric.filter else None
        if distinct_key:
            key = self.column(ds.name, primary_key(ds)[0])
            return exp.Count(this=exp.Distinct(expressions=[when(condition, key)]))
        if m.counts_rows:
            if condition is None:
                return exp.Count(this=exp.Star())
            return exp.Count(this=when(condition, exp.Literal.number(1)))
        if metric is not None:
            assert metric.expression is not None
            value = self.metric_sql(m, metric.expression)
        else:
            assert m.ref.field is not None
            value = self.field(ds, m.ref.field, ds.name)
        value = when(condition, value)
        if m.aggregation == "count_distinct":
            return exp.Count(this=exp.Distinct(expressions=[value]))
        aggregate = {"sum": exp.Sum, "avg": exp.Avg, "min": exp.Min, "max": exp.Max}
        if m.aggregation == "count":
            return exp.Count(this=value)
        return aggregate[m.aggregation](this=value)

    def condition(self, c: ResolvedCondition) -> exp.Expr:
        """The condition as a boolean expression: its filters OR-ed."""
        return or_all([self._filter(f) for f in c.filters])

    def _filter(self, f: ResolvedFilter) -> exp.Expr:
        """The filter as a boolean expression with literal values."""
        assert f.ref.field is not None
        value = self.field(f.ref.dataset, f.ref.field, f.ref.dataset.name)
        literals = [exp.convert(v) for v in f.values]
        if f.op in COMPARISONS:
            return COMPARISONS[f.op](this=value, expression=literals[0])
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

    def join_on(self, edge: JoinEdge) -> exp.Expr:
        """`from.col = to.col` for every column pair of the edge."""
        return and_all(
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
                on = and_all(
                    [
                        exp.EQ(this=self.column(node, a), expression=col(k, alias))
                        for a, k in zip(edge.from_columns, keys, strict=True)
                    ]
                )
                subquery = exp.Subquery(this=derived, alias=exp.TableAlias(this=ident(alias)))
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
                self.column(edge.to_dataset, c).as_(ident(k))
                for c, k in zip(edge.to_columns, keys, strict=True)
            ],
            *[self.dimension(d).as_(ident(d.alias)) for d in dims],
        ).distinct()
        self.joined(select, branch, collapse=False)
        filters = [self.condition(c) for c in self.plan.filters if c.datasets <= inside]
        if filters:
            select.where(and_all(filters), copy=False)
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
