"""Where an answer's numbers come from, read from the SQL that ran (never from the model's
words).

`lineage_of` parses the executed SQL with sqlglot and walks its scopes (the outer query,
its CTEs, derived tables and subqueries), so that the compiler's pre-aggregation and
period-comparison SQL resolves to the tables underneath:

- datasets: every table read, named by the semantic model's dataset whose `source` it is;
- joins: each join of a table (a CTE or subquery stands for the table it reads first);
  joins between two CTEs, the compiler's own plumbing, are left out;
- filters: every WHERE and HAVING conjunct; the time window: those on date or time fields;
- grain: the GROUP BY of the outer query, or of the nearest queries it reads, or "row".

Expressions are shown as SQL text with table aliases replaced by dataset names.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError
from sqlglot.optimizer.scope import Scope, build_scope

from dataagent.agent.pipeline.state import DataLineage, LineageJoin
from dataagent.dialects import sqlglot_name
from dataagent.semantic.model import Dataset, DataType, SemanticModel

ROW_GRAIN = "row"
_TIME_TYPES = frozenset({DataType.DATE, DataType.TIMESTAMP})
_PLAIN_NAME = re.compile(r"^[a-z_][a-z0-9_]*$")
# How deep a column is followed through derived tables to the field it comes from.
_MAX_DEPTH = 8


def lineage_of(
    sql: str,
    model: SemanticModel,
    dialect: str,
    row_count: int | None,
    step_id: int | None = None,
) -> DataLineage:
    """The lineage of one executed query (an empty lineage for SQL that does not parse)."""
    read = sqlglot_name(dialect)
    try:
        tree = sqlglot.parse_one(sql, read=read)
        root = build_scope(tree)
    except SqlglotError:
        root = None
    if root is None:
        return DataLineage(grain=ROW_GRAIN, row_count=row_count, step_id=step_id)
    reader = _Reader(model, read)
    scopes = list(root.traverse())
    datasets: list[str] = []
    joins: list[LineageJoin] = []
    filters: list[str] = []
    windows: list[str] = []
    for scope in scopes:
        for source in scope.sources.values():
            if isinstance(source, exp.Table):
                datasets.append(reader.table_label(source))
        if not isinstance(scope.expression, exp.Select):
            continue
        joins += reader.joins(scope)
        where = scope.expression.args.get("where")
        having = scope.expression.args.get("having")
        conditions = [*_conjuncts(where.this if where else None)]
        timed = [c for c in conditions if reader.on_time_field(scope, c)]
        conditions += _conjuncts(having.this if having else None)
        filters += [reader.text(scope, c) for c in conditions]
        if timed:
            windows.append(" AND ".join(reader.text(scope, c) for c in timed))
    window = "; ".join(_unique(windows)) or None
    return DataLineage(
        datasets=_unique(datasets),
        joins=_unique_joins(joins),
        time_window=window,
        filters=_unique(filters),
        grain=reader.grain(root),
        row_count=row_count,
        step_id=step_id,
    )


def merge_lineage(lineages: Sequence[DataLineage]) -> DataLineage | None:
    """One lineage for several steps: their datasets, joins and filters together; the last
    step's grain, time window (or the first one any step has) and row count."""
    if not lineages:
        return None
    last = lineages[-1]
    window = last.time_window or next((x.time_window for x in lineages if x.time_window), None)
    return DataLineage(
        datasets=_unique([d for x in lineages for d in x.datasets]),
        joins=_unique_joins([j for x in lineages for j in x.joins]),
        time_window=window,
        filters=_unique([f for x in lineages for f in x.filters]),
        grain=last.grain,
        row_count=last.row_count,
        step_id=None,
    )


class _Reader:
    """The model's datasets by table, and how one query's scopes read."""

    def __init__(self, model: SemanticModel, read: str) -> None:
        self.read = read
        self.by_table: dict[str, Dataset] = {}
        for dataset in model.datasets:
            source = dataset.source.lower()
            self.by_table[source] = dataset
            self.by_table.setdefault(source.rsplit(".", 1)[-1], dataset)
        self._labels: dict[int, str] = {}

    # --- names -------------------------------------------------------------------------------

    def dataset_of(self, table: exp.Table) -> Dataset | None:
        """The dataset whose source this table is."""
        parts = [p.name.lower() for p in table.parts]
        return self.by_table.get(".".join(parts)) or self.by_table.get(parts[-1])

    def table_label(self, table: exp.Table) -> str:
        """The dataset's name, or the table's own when the model has none."""
        dataset = self.dataset_of(table)
        return dataset.name if dataset is not None else table.name

    def source_label(self, source: exp.Table | Scope) -> str:
        """A table's label; for a CTE or subquery, the label of the table it reads first."""
        if isinstance(source, exp.Table):
            return self.table_label(source)
        key = id(source)
        if key not in self._labels:
            self._labels[key] = source.expression.alias_or_name  # guards a cycle
            self._labels[key] = self._first_label(source)
        return self._labels[key]

    def _first_label(self, scope: Scope) -> str:
        if scope.set_operation_scopes:
            return self.source_label(scope.set_operation_scopes[0])
        for alias in _read_aliases(scope):
            source = scope.sources.get(alias)
            if source is not None:
                return self.source_label(source)
        return scope.expression.alias_or_name

    def text(self, scope: Scope, node: exp.Expr) -> str:
        """`node` as SQL, each column named by the dataset it comes from (through CTEs and
        subqueries when it is passed on unchanged), plain names unquoted."""
        copy = node.copy()
        for column in list(copy.find_all(exp.Column)):
            if not column.table:
                continue
            resolved = self.resolve(scope, column.table, column.name, 0)
            if resolved is not None:
                column.set("table", exp.to_identifier(resolved[0]))
                column.set("this", exp.to_identifier(resolved[1]))
        for identifier in copy.find_all(exp.Identifier):
            if _PLAIN_NAME.match(identifier.name):
                identifier.set("quoted", False)
        return copy.sql(dialect=self.read)

    def resolve(self, scope: Scope, alias: str, name: str, depth: int) -> tuple[str, str] | None:
        """The (dataset, column) a qualified column reads: a table's own column, or a CTE's or
        subquery's column that passes one on unchanged (None when it computes it)."""
        source = scope.sources.get(alias)
        if isinstance(source, exp.Table):
            return self.table_label(source), name
        if source is None or depth > _MAX_DEPTH:
            return None
        inner = source.set_operation_scopes[0] if source.set_operation_scopes else source
        select = inner.expression
        if not isinstance(select, exp.Select):
            return None
        for projection in select.expressions:
            if projection.alias_or_name != name:
                continue
            value = projection.this if isinstance(projection, exp.Alias) else projection
            if isinstance(value, exp.Column) and value.table:
                return self.resolve(inner, value.table, value.name, depth + 1)
            if isinstance(value, exp.Column):
                tables = [inner.sources.get(a) for a in _read_aliases(inner)]
                if len(tables) == 1 and isinstance(tables[0], exp.Table):
                    return self.table_label(tables[0]), value.name
            return None
        return None

    def side_label(self, scope: Scope, alias: str, on: exp.Expr | None) -> str:
        """A join side's dataset: a table's, or for a CTE or subquery, the dataset its column
        in the ON condition comes from (else the table it reads first)."""
        source = scope.sources[alias]
        if isinstance(source, exp.Table) or on is None:
            return self.source_label(source)
        for column in on.find_all(exp.Column):
            if column.table == alias:
                resolved = self.resolve(scope, alias, column.name, 0)
                if resolved is not None:
                    return resolved[0]
        return self.source_label(source)

    # --- joins -------------------------------------------------------------------------------

    def joins(self, scope: Scope) -> list[LineageJoin]:
        """The scope's joins that involve a table (not two CTEs joined to each other)."""
        select = scope.expression
        assert isinstance(select, exp.Select)
        first = _from_alias(select)
        found: list[LineageJoin] = []
        for join in select.args.get("joins") or []:
            alias = join.this.alias_or_name
            right = scope.sources.get(alias)
            on = join.args.get("on")
            left_alias = _other_alias(on, alias) or first
            left = scope.sources.get(left_alias) if left_alias else None
            if right is None or left is None or left_alias is None:
                continue
            if isinstance(right, Scope) and isinstance(left, Scope):
                continue
            if on is not None:
                condition = self.text(scope, on)
            elif join.args.get("using"):
                names = ", ".join(i.name for i in join.args["using"])
                condition = f"USING ({names})"
            else:
                condition = "CROSS JOIN"
            found.append(
                LineageJoin(
                    **{"from": self.side_label(scope, left_alias, on)},
                    to=self.side_label(scope, alias, on),
                    on=condition,
                )
            )
        return found

    # --- time --------------------------------------------------------------------------------

    def on_time_field(self, scope: Scope, condition: exp.Expr) -> bool:
        """True when the condition reads a date or time field of the model."""
        return any(self._is_time(scope, c, 0) for c in condition.find_all(exp.Column))

    def _is_time(self, scope: Scope, column: exp.Column, depth: int) -> bool:
        if depth > _MAX_DEPTH:
            return False
        if column.table:
            source = scope.sources.get(column.table)
            candidates = [source] if source is not None else []
        else:
            candidates = [scope.sources[a] for a in _read_aliases(scope) if a in scope.sources]
        for source in candidates:
            if isinstance(source, exp.Table):
                if self._table_field_is_time(source, column.name):
                    return True
            elif self._projection_is_time(source, column.name, depth + 1):
                return True
        return False

    def _table_field_is_time(self, table: exp.Table, name: str) -> bool:
        dataset = self.dataset_of(table)
        if dataset is None:
            return False
        lowered = name.lower()
        for field in dataset.fields:
            if field.name.lower() == lowered or field.expression.strip().lower() == lowered:
                return field.data_type in _TIME_TYPES
        return False

    def _projection_is_time(self, scope: Scope, name: str, depth: int) -> bool:
        if scope.set_operation_scopes:
            return any(self._projection_is_time(s, name, depth) for s in scope.set_operation_scopes)
        select = scope.expression
        if not isinstance(select, exp.Select):
            return False
        for projection in select.expressions:
            if projection.alias_or_name == name:
                return any(self._is_time(scope, c, depth) for c in projection.find_all(exp.Column))
        return False

    # --- grain -------------------------------------------------------------------------------

    def grain(self, root: Scope) -> str:
        """The GROUP BY of the outer query or, level by level, of the queries it reads."""
        level = [root]
        seen: set[int] = set()
        while level:
            found: list[str] = []
            following: list[Scope] = []
            for scope in level:
                if id(scope) in seen:
                    continue
                seen.add(id(scope))
                group = self._group_by(scope)
                if group:
                    found += group
                    continue
                following += scope.set_operation_scopes
                following += [
                    source
                    for alias in _read_aliases(scope)
                    if isinstance(source := scope.sources.get(alias), Scope)
                ]
            if found:
                return ", ".join(_unique(found))
            level = following
        return ROW_GRAIN

    def _group_by(self, scope: Scope) -> list[str]:
        select = scope.expression
        if not isinstance(select, exp.Select):
            return []
        group = select.args.get("group")
        if group is None:
            return []
        shown = []
        for item in group.expressions:
            if isinstance(item, exp.Literal) and item.is_int:
                position = int(item.name) - 1
                if 0 <= position < len(select.expressions):
                    projection = select.expressions[position]
                    item = projection.this if isinstance(projection, exp.Alias) else projection
            shown.append(self.text(scope, item))
        return shown


def _conjuncts(condition: exp.Expr | None) -> Iterator[exp.Expr]:
    """The parts of `a AND b AND ...` (parentheses around one part removed)."""
    if condition is None:
        return
    while isinstance(condition, exp.Paren):
        condition = condition.this
    if isinstance(condition, exp.And):
        yield from _conjuncts(condition.left)
        yield from _conjuncts(condition.right)
    else:
        yield condition


def _from_alias(select: exp.Select) -> str | None:
    source = select.args.get("from_") or select.args.get("from")
    if source is None:
        return None
    name: str = source.this.alias_or_name
    return name or None


def _read_aliases(scope: Scope) -> list[str]:
    """The aliases the scope's FROM and JOINs read, in order."""
    select = scope.expression
    if not isinstance(select, exp.Select):
        return []
    first = _from_alias(select)
    aliases = [first] if first else []
    aliases += [join.this.alias_or_name for join in select.args.get("joins") or []]
    return aliases


def _other_alias(on: exp.Expr | None, joined: str) -> str | None:
    """The first table an ON condition names besides the joined one."""
    if on is None:
        return None
    for column in on.find_all(exp.Column):
        if column.table and column.table != joined:
            return column.table
    return None


def _unique(items: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(items))


def _unique_joins(joins: Sequence[LineageJoin]) -> list[LineageJoin]:
    seen: dict[tuple[str, str, str], LineageJoin] = {}
    for join in joins:
        seen.setdefault((join.from_, join.to, join.on), join)
    return list(seen.values())
