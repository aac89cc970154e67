"""Reads an executed SQL statement's syntax tree (sqlglot) against the semantic model
into `SqlFacts`.

Pure module (sqlglot and the semantic model only). Columns are qualified with sqlglot's
`qualify` against a schema made of the model's plain columns, so a column the model does
not have is found here (`unknown`), and a column of a derived table (a CTE or subquery) is
traced back to the dataset columns it comes from. Each join is matched to a relationship;
the relationships' cardinalities (or, for a join none declares, the primary keys) tell
which rows the joins repeat.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass

import sqlglot
from sqlglot import exp
from sqlglot.errors import OptimizeError, SqlglotError
from sqlglot.optimizer.qualify import qualify
from sqlglot.optimizer.scope import Scope, traverse_scope, walk_in_scope
from sqlglot.schema import MappingSchema

from dataagent.agent.pipeline.sql_facts import (
    Aggregate,
    ColumnUse,
    JoinFact,
    Predicate,
    Scalar,
    ScopeFacts,
    SqlFacts,
)
from dataagent.dialects import sqlglot_name
from dataagent.errors import DataAgentError
from dataagent.semantic.fanout import primary_key
from dataagent.semantic.joins import JoinEdge, make_path
from dataagent.semantic.model import Cardinality, Dataset, RelationshipSource, SemanticModel

_AGGREGATES: dict[type[exp.Expr], str] = {
    exp.Sum: "sum",
    exp.Avg: "avg",
    exp.Min: "min",
    exp.Max: "max",
    exp.Count: "count",
}
_COMPARISONS: dict[type[exp.Expr], str] = {
    exp.EQ: "=",
    exp.NEQ: "!=",
    exp.GT: ">",
    exp.GTE: ">=",
    exp.LT: "<",
    exp.LTE: "<=",
    exp.Like: "like",
}
_FLIPPED = {">": "<", ">=": "<=", "<": ">", "<=": ">=", "=": "=", "!=": "!="}

_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@functools.lru_cache(maxsize=65536)
def plain_column(expression: str) -> str | None:
    """The column a field's expression is, when it is a bare column, else None."""
    if _IDENTIFIER.match(expression):
        return expression  # most fields: no parse (a 1,000-table model has tens of thousands)
    try:
        node = sqlglot.parse_one(expression)
    except SqlglotError:
        return None
    return node.name if isinstance(node, exp.Column) and not node.table else None


@dataclass(frozen=True)
class _Catalog:
    """Table name -> dataset, and per dataset, column name -> field name (lower-cased)."""

    tables: dict[str, Dataset]
    columns: dict[str, dict[str, str]]
    schema: dict[str, object]

    @classmethod
    def of(cls, model: SemanticModel) -> _Catalog:
        cached = _CATALOGS.get(id(model))
        if cached is not None and cached[0] is model:
            return cached[1]
        catalog = cls._build(model)
        if len(_CATALOGS) >= 16:
            _CATALOGS.clear()
        _CATALOGS[id(model)] = (model, catalog)
        return catalog

    @classmethod
    def _build(cls, model: SemanticModel) -> _Catalog:
        tables: dict[str, Dataset] = {}
        columns: dict[str, dict[str, str]] = {}
        schema: dict[str, object] = {}
        for dataset in model.datasets:
            table = dataset.source.rsplit(".", 1)[-1]
            tables.setdefault(table.lower(), dataset)
            plain = {
                column: f.name for f in dataset.fields if (column := plain_column(f.expression))
            }
            columns[dataset.name] = {c.lower(): name for c, name in plain.items()}
            schema.setdefault(table, {c: "TEXT" for c in plain})
        return cls(tables, columns, schema)

    def field(self, dataset: str, column: str) -> str | None:
        return self.columns.get(dataset, {}).get(column.lower())


# The last models' catalogs (a verification reads several statements against one model);
# the model is kept beside its catalog, so an id is never mistaken for another model's.
_CATALOGS: dict[int, tuple[SemanticModel, _Catalog]] = {}


def _conjuncts(node: exp.Expr | None) -> list[exp.Expr]:
    if node is None:
        return []
    if isinstance(node, exp.And):
        return [*_conjuncts(node.left), *_conjuncts(node.right)]
    if isinstance(node, exp.Paren):
        return _conjuncts(node.this)
    return [node]


def _literal(node: exp.Expr) -> Scalar | None:
    if isinstance(node, exp.Neg) and isinstance(node.this, exp.Literal):
        value = _literal(node.this)
        return -value if isinstance(value, float) else None
    if isinstance(node, exp.Cast):
        return _literal(node.this)
    if isinstance(node, exp.Literal):
        if node.is_string:
            return node.this
        try:
            return float(node.this)
        except ValueError:
            return None
    if isinstance(node, exp.Boolean):
        return "true" if node.this else "false"
    return None


class _Reader:
    """Reads the qualified tree scope by scope."""

    def __init__(self, model: SemanticModel, catalog: _Catalog, sql: str) -> None:
        self.model = model
        self.catalog = catalog
        self.facts = SqlFacts(sql)
        self._by_scope: dict[int, ScopeFacts] = {}

    # --- columns ---------------------------------------------------------------------------

    def resolve(self, column: exp.Column, scope: Scope, depth: int = 0) -> frozenset[ColumnUse]:
        """The dataset columns a column reference reads, through CTEs and subqueries."""
        source = scope.sources.get(column.table)
        if isinstance(source, exp.Table):
            dataset = self.catalog.tables.get(source.name.lower())
            if dataset is None:
                return frozenset()
            name = self.catalog.field(dataset.name, column.name)
            return frozenset({ColumnUse(dataset.name, name)}) if name else frozenset()
        if isinstance(source, Scope) and depth < 20:
            inner = source.expression
            if not isinstance(inner, exp.Select):
                return frozenset()
            for projection in inner.selects:
                if projection.alias_or_name == column.name:
                    return self.columns_of(projection, source, depth + 1)
        return frozenset()

    def columns_of(self, node: exp.Expr, scope: Scope, depth: int = 0) -> frozenset[ColumnUse]:
        """Every dataset column an expression of this scope reads."""
        found: set[ColumnUse] = set()
        for column in walk_in_scope(node):
            if isinstance(column, exp.Column):
                found |= self.resolve(column, scope, depth)
        return frozenset(found)

    # --- predicates ------------------------------------------------------------------------

    def predicates(self, condition: exp.Expr, scope: Scope, clause: str) -> list[Predicate]:
        """The column conditions of a boolean expression (ANDs split, ORs kept as `other`)."""
        out: list[Predicate] = []
        for part in _conjuncts(condition):
            simple = self._simple(part, scope, clause)
            if simple is not None:
                out.append(simple)
                continue
            for column in walk_in_scope(part):
                if isinstance(column, exp.Column):
                    for use in self.resolve(column, scope):
                        out.append(Predicate(use, "other", (), clause))
        return out

    def _simple(self, node: exp.Expr, scope: Scope, clause: str) -> Predicate | None:
        negated = isinstance(node, exp.Not)
        inner = node.this if negated else node
        op: str | None = None
        column: exp.Expr | None = None
        values: list[Scalar | None] = []
        if isinstance(inner, exp.Is) and isinstance(inner.expression, exp.Null):
            op, column = ("is_not_null" if negated else "is_null"), inner.this
        elif negated:
            return None
        elif type(inner) in _COMPARISONS and isinstance(inner, exp.Binary):
            op = _COMPARISONS[type(inner)]
            left, right = inner.left, inner.right
            if isinstance(right, exp.Column) and not isinstance(left, exp.Column):
                left, right, op = right, left, _FLIPPED.get(op, op)
            column, values = left, [_literal(right)]
        elif isinstance(inner, exp.In) and inner.expressions:
            op, column = "in", inner.this
            values = [_literal(v) for v in inner.expressions]
        elif isinstance(inner, exp.Between):
            op, column = "between", inner.this
            values = [_literal(inner.args["low"]), _literal(inner.args["high"])]
        if op is None or not isinstance(column, exp.Column) or None in values:
            return None
        uses = self.resolve(column, scope)
        if len(uses) != 1:
            return None
        return Predicate(next(iter(uses)), op, tuple(v for v in values if v is not None), clause)

    # --- joins -----------------------------------------------------------------------------

    def _pair(self, node: exp.Expr) -> tuple[exp.Column, exp.Column] | None:
        if (
            isinstance(node, exp.EQ)
            and isinstance(node.left, exp.Column)
            and isinstance(node.right, exp.Column)
            and node.left.table != node.right.table
        ):
            return node.left, node.right
        return None

    def joins(self, select: exp.Select, scope: Scope, facts: ScopeFacts) -> list[exp.Expr]:
        """The scope's joins; returns the WHERE conjuncts that are not join conditions."""
        pairs: dict[tuple[str, str], list[tuple[str, str]]] = {}
        kinds: dict[tuple[str, str], str] = {}
        for join in select.args.get("joins") or []:
            right = join.this.alias_or_name
            side = (join.side or "").lower()
            kind = side if side in ("left", "right", "full") else "inner"
            if (join.kind or "").upper() == "CROSS" and not join.args.get("on"):
                continue
            rest = []
            for part in _conjuncts(join.args.get("on")):
                pair = self._pair(part)
                if pair is None:
                    rest.append(part)
                    continue
                a, b = pair
                if b.table != right:
                    a, b = b, a
                key = (a.table, b.table)
                pairs.setdefault(key, []).append((a.name, b.name))
                kinds.setdefault(key, kind)
            for condition in rest:
                self.facts.predicates += self.predicates(condition, scope, "on")
        remaining = []
        for part in _conjuncts(select.args["where"].this if select.args.get("where") else None):
            pair = self._pair(part)
            if pair is None:
                remaining.append(part)
                continue
            a, b = pair
            key = (a.table, b.table)
            pairs.setdefault(key, []).append((a.name, b.name))
            kinds.setdefault(key, "inner")
        for (left, right), columns in pairs.items():
            facts.joins.append(self._join(facts, left, right, kinds[(left, right)], columns))
        return remaining

    def _join(
        self, facts: ScopeFacts, left: str, right: str, kind: str, pairs: list[tuple[str, str]]
    ) -> JoinFact:
        left_ds, right_ds = facts.aliases.get(left), facts.aliases.get(right)
        edge = None
        if left_ds is not None and right_ds is not None:
            edge = self._edge(left, right, left_ds, right_ds, pairs)
        return JoinFact(left, right, kind, tuple(pairs), left_ds, right_ds, edge)

    def _edge(
        self, left: str, right: str, left_ds: str, right_ds: str, pairs: list[tuple[str, str]]
    ) -> JoinEdge:
        as_fields = {
            (self.catalog.field(left_ds, a) or a, self.catalog.field(right_ds, b) or b)
            for a, b in pairs
        }
        for rel in self.model.relationships:
            forward = JoinEdge(
                from_dataset=left,
                to_dataset=right,
                from_columns=tuple(rel.from_columns),
                to_columns=tuple(rel.to_columns),
                cardinality=rel.cardinality,
                relationship=rel.name,
                source=rel.source,
            )
            pairs_of_rel = set(zip(rel.from_columns, rel.to_columns, strict=True))
            if (rel.from_dataset, rel.to_dataset) == (
                left_ds,
                right_ds,
            ) and pairs_of_rel <= as_fields:
                return forward
            flipped = {(b, a) for a, b in pairs_of_rel}
            if (rel.to_dataset, rel.from_dataset) == (left_ds, right_ds) and flipped <= as_fields:
                # The relationship walked the other way, between the same two aliases.
                back = forward.reversed()
                return back.model_copy(update={"from_dataset": left, "to_dataset": right})
        # No relationship: the keys decide (a side joined on its whole primary key is "one").
        left_one = self._is_key(left_ds, {a for a, _ in as_fields})
        right_one = self._is_key(right_ds, {b for _, b in as_fields})
        cardinality = {
            (True, True): Cardinality.ONE_TO_ONE,
            (False, True): Cardinality.MANY_TO_ONE,
            (True, False): Cardinality.ONE_TO_MANY,
            (False, False): Cardinality.MANY_TO_MANY,
        }[(left_one, right_one)]
        return JoinEdge(
            from_dataset=left,
            to_dataset=right,
            from_columns=tuple(a for a, _ in sorted(as_fields)),
            to_columns=tuple(b for _, b in sorted(as_fields)),
            cardinality=cardinality,
            relationship="",
            source=RelationshipSource.INFERRED,
        )

    def _is_key(self, dataset: str, fields: set[str]) -> bool:
        found = self.model.dataset(dataset)
        key = set(primary_key(found)) if found is not None else set()
        return bool(key) and key <= fields

    # --- aggregates ------------------------------------------------------------------------

    def aggregate(self, call: exp.AggFunc, scope: Scope) -> Aggregate:
        """One aggregate call: its function and the columns its value reads."""
        function = _AGGREGATES.get(type(call), "other")
        argument = call.this
        if isinstance(call, exp.Count) and isinstance(argument, exp.Distinct):
            function = "count_distinct"
            argument = argument.expressions[0] if argument.expressions else None
        uses: set[ColumnUse] = set()
        aliases: set[str] = set()
        for column in self._value_columns(argument, scope):
            uses |= self.resolve(column, scope)
            if column.table in scope.sources:
                aliases.add(column.table)
        counts_rows = function == "count" and not uses and not aliases
        return Aggregate(function, frozenset(uses), frozenset(aliases), counts_rows)

    def _value_columns(self, node: exp.Expr | None, scope: Scope) -> Iterator[exp.Column]:
        if node is None:
            return
        if isinstance(node, exp.Case):
            for branch in node.args.get("ifs") or []:
                self.facts.predicates += self.predicates(branch.this, scope, "case")
                yield from self._value_columns(branch.args.get("true"), scope)
            yield from self._value_columns(node.args.get("default"), scope)
            return
        if isinstance(node, exp.Column):
            yield node
            return
        for child in node.iter_expressions():
            yield from self._value_columns(child, scope)

    # --- one scope -------------------------------------------------------------------------

    def scope(self, scope: Scope) -> ScopeFacts:
        facts = ScopeFacts()
        select = scope.expression
        if not isinstance(select, exp.Select):
            return facts
        for alias, source in scope.sources.items():
            if isinstance(source, exp.Table):
                dataset = self.catalog.tables.get(source.name.lower())
                if dataset is None:
                    self.facts.unknown.append(f"table {source.name} is not in the semantic model")
                else:
                    facts.aliases[alias] = dataset.name
            else:
                facts.derived.add(alias)
        for column in scope.columns:
            # `qualify` trusts a column written with its table's alias; the model decides.
            dataset_name = facts.aliases.get(column.table)
            if dataset_name and self.catalog.field(dataset_name, column.name) is None:
                self.facts.unknown.append(f"dataset {dataset_name} has no column {column.name}")
        remaining = self.joins(select, scope, facts)
        for condition in remaining:
            self.facts.predicates += self.predicates(condition, scope, "where")
        if select.args.get("having"):
            self.facts.predicates += self.predicates(select.args["having"].this, scope, "having")
        edges = [j.edge for j in facts.joins if j.edge is not None]
        root = next(iter(scope.selected_sources), None)
        if root is not None and edges:
            facts.duplicated = frozenset(make_path(root, edges).duplicated_datasets)
        for call in walk_in_scope(select):
            if isinstance(call, exp.AggFunc) and not isinstance(call.parent, exp.Window):
                facts.aggregates.append(self.aggregate(call, scope))
        group = select.args.get("group")
        if group is not None:
            nodes = list(group.expressions)
            if group.args.get("all"):  # DuckDB's GROUP BY ALL: every non-aggregate column
                nodes += [
                    p
                    for p in select.selects
                    if not any(isinstance(n, exp.AggFunc) for n in walk_in_scope(p))
                ]
            facts.group_by = frozenset(
                use for node in nodes for use in self.columns_of(node, scope)
            )
        for projection in select.selects:
            is_aggregate = any(isinstance(n, exp.AggFunc) for n in walk_in_scope(projection))
            uses = self.columns_of(projection, scope)
            facts.projections.append((projection.alias_or_name, uses, is_aggregate))
        self._by_scope[id(scope)] = facts
        return facts


def _strip_qualifiers(tree: exp.Expr) -> None:
    # The schema is keyed by table name alone: `main.orders` and `orders` are one table.
    for table in tree.find_all(exp.Table):
        table.set("db", None)
        table.set("catalog", None)


def _grain_scope(root: Scope, facts: dict[int, ScopeFacts]) -> ScopeFacts | None:
    queue: list[Scope] = [root]
    seen: set[int] = set()
    while queue:
        scope = queue.pop(0)
        if id(scope) in seen:
            continue
        seen.add(id(scope))
        found = facts.get(id(scope))
        if found is not None and found.aggregated:
            return found
        queue += [s for s in scope.sources.values() if isinstance(s, Scope)]
        queue += scope.set_operation_scopes
    return None


def _sqlglot_dialect(dialect: str) -> str:
    try:
        return sqlglot_name(dialect)
    except DataAgentError:
        return dialect


def read_sql(sql: str, model: SemanticModel, dialect: str | None = None) -> SqlFacts:
    """The facts of one statement against a semantic model (in the model's dialect)."""
    dialect = _sqlglot_dialect(dialect or model.dialect)
    catalog = _Catalog.of(model)
    reader = _Reader(model, catalog, sql)
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except SqlglotError as exc:
        reader.facts.error = f"the SQL does not parse: {str(exc).splitlines()[0]}"
        return reader.facts
    _strip_qualifiers(tree)
    # Only the tables the statement names: a 1,000-table model's schema costs per query.
    named = {t.name.lower() for t in tree.find_all(exp.Table)}
    tables = {k: v for k, v in catalog.schema.items() if k.lower() in named}
    schema = MappingSchema(tables, dialect=dialect)
    try:
        qualified = qualify(tree.copy(), schema=schema, dialect=dialect, identify=False)
    except OptimizeError as exc:
        reader.facts.unknown.append(str(exc).split(". Line")[0].rstrip("."))
        try:
            qualified = qualify(
                tree.copy(),
                schema=schema,
                dialect=dialect,
                identify=False,
                validate_qualify_columns=False,
            )
        except (OptimizeError, SqlglotError) as again:
            reader.facts.error = f"the SQL could not be analysed: {again}"
            return reader.facts
    except SqlglotError as exc:
        reader.facts.error = f"the SQL could not be analysed: {exc}"
        return reader.facts
    try:
        scopes = traverse_scope(qualified)
    except (OptimizeError, SqlglotError) as exc:
        reader.facts.error = f"the SQL could not be analysed: {exc}"
        return reader.facts
    try:
        for scope in scopes:
            reader.facts.scopes.append(reader.scope(scope))
    except Exception as exc:
        # The query already ran; a statement shape the reader cannot follow must not fail
        # the answer: it is left unchecked, and the report says so.
        reader.facts.scopes = []
        reader.facts.error = f"the SQL could not be analysed ({type(exc).__name__})"
        return reader.facts
    if scopes:
        root = scopes[-1]
        reader.facts.root = reader._by_scope.get(id(root))
        reader.facts.grain_scope = _grain_scope(root, reader._by_scope)
    reader.facts.unknown = list(dict.fromkeys(reader.facts.unknown))
    return reader.facts


def expression_columns(model: SemanticModel, dataset: str, expression: str) -> set[ColumnUse]:
    """The plain columns a field's or metric's SQL expression reads (derived fields
    expanded); `other.field` names a column of another dataset."""
    catalog = _Catalog.of(model)
    try:
        node = sqlglot.parse_one(expression, read=_sqlglot_dialect(model.dialect))
    except SqlglotError:
        return set()
    out: set[ColumnUse] = set()
    for column in node.find_all(exp.Column):
        owner = column.table or dataset
        found = model.dataset(owner)
        if found is None:
            continue
        plain = catalog.field(owner, column.name)
        if plain is not None:
            out.add(ColumnUse(owner, plain))
            continue
        derived = found.field(column.name)
        if derived is not None and derived.expression != column.name:
            out |= expression_columns(model, owner, derived.expression)
    return out
