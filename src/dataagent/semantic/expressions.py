"""SQL expressions inside a semantic model: derived fields, metric expressions and filters.

Pure module (sqlglot + the join graph). Each expression is parsed in the model's dialect
and must be a scalar: no query, statement, aggregate or window (a metric names its
aggregation separately). What it may name:

* a derived field — the stored columns of its own dataset (the fields whose expression is
  a bare column);
* a metric's expression or filter — fields of the metric's dataset by name, and
  `other.field` of a dataset the metric's dataset reaches along many-to-one relationships,
  so each row sees exactly one value (a one-to-many reference would double count).

The compiler substitutes each named field by its own expression, qualified by dataset,
and writes the result in the target dialect: expressions are transpiled, never pasted.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import sqlglot
from sqlglot import exp

from dataagent.dialects import sqlglot_name
from dataagent.errors import DataAgentError
from dataagent.semantic.joins import join_paths
from dataagent.semantic.model import Dataset, Field_, Metric, SemanticModel

Loc = tuple[str | int, ...]
_NOT_SCALAR: tuple[type[exp.Expr], ...] = (
    exp.Query,
    exp.Command,
    exp.DDL,
    exp.DML,
    exp.AggFunc,
    exp.Window,
    exp.Star,
    exp.Placeholder,
    exp.Parameter,
)


class ExpressionError(ValueError):
    """An expression that does not parse, is not a scalar, or names what it may not."""


@cache
def parse(text: str, dialect: str) -> exp.Expr:
    """`text` parsed in the model's dialect as one scalar expression (cached; copy to change)."""
    try:
        parsed = sqlglot.parse_one(text, read=sqlglot_name(dialect))
    except sqlglot.errors.ParseError:
        raise ExpressionError(f"{text!r} is not a readable SQL expression") from None
    if parsed is None or not isinstance(parsed, exp.Expr):
        raise ExpressionError(f"{text!r} is not a readable SQL expression")
    bad = parsed if isinstance(parsed, _NOT_SCALAR) else parsed.find(*_NOT_SCALAR)
    if bad is not None:
        raise ExpressionError(
            f"{text!r} must be a scalar expression (no query, statement, aggregate, window or *)"
        )
    return parsed


def bare_column(field: Field_, dialect: str) -> str | None:
    """The stored column a field reads, when its expression is just that column."""
    try:
        parsed = parse(field.expression, dialect)
    except ExpressionError:
        return None
    return parsed.name if isinstance(parsed, exp.Column) and not parsed.table else None


def _columns(parsed: exp.Expr) -> list[exp.Column]:
    return list(parsed.find_all(exp.Column))


def field_problem(dataset: Dataset, field: Field_, dialect: str) -> str | None:
    """Why a field's expression is not valid, or None."""
    try:
        parsed = parse(field.expression, dialect)
    except ExpressionError as exc:
        return f"field {dataset.name}.{field.name}: {exc}"
    if isinstance(parsed, exp.Column) and not parsed.table:
        return None  # a stored column
    own = {dataset.name, dataset.source.split(".")[-1].strip('"`[]')}
    stored = {c for f in dataset.fields if (c := bare_column(f, dialect)) is not None}
    for column in _columns(parsed):
        if column.table and column.table not in own:
            return (
                f"field {dataset.name}.{field.name}: {column.sql()} is outside its dataset; "
                "a derived field may only use its own dataset's columns"
            )
        if column.name not in stored:
            return (
                f"field {dataset.name}.{field.name}: {column.name!r} is not a column of "
                f"{dataset.name} (columns: {', '.join(sorted(stored))})"
            )
    return None


@dataclass(frozen=True)
class FieldUse:
    """A field a metric names: the dataset it belongs to and the field."""

    dataset: Dataset
    field: Field_


def resolve_reference(model: SemanticModel, home: Dataset, column: exp.Column) -> FieldUse:
    """The field a column reference in a metric names (bare: of `home`; `ds.f`: of `ds`)."""
    dataset = home if not column.table else model.dataset(column.table)
    if dataset is None:
        raise ExpressionError(f"{column.sql()}: dataset {column.table!r} does not exist")
    found = dataset.field(column.name)
    if found is None:
        known = ", ".join(f.name for f in dataset.fields)
        raise ExpressionError(
            f"{column.sql()}: dataset {dataset.name} has no field {column.name!r} (fields: {known})"
        )
    return FieldUse(dataset, found)


def metric_uses(model: SemanticModel, metric: Metric) -> list[FieldUse]:
    """Every field a simple metric's expression and filter name, checked (ExpressionError)."""
    uses: list[FieldUse] = []
    for text in (metric.expression, metric.filter):
        if text is not None:
            uses += text_uses(model, metric, text)
    return uses


def text_uses(model: SemanticModel, metric: Metric, text: str) -> list[FieldUse]:
    """The fields one expression of a simple metric names, checked (ExpressionError)."""
    assert metric.dataset is not None
    home = model.dataset(metric.dataset)
    assert home is not None
    uses = [resolve_reference(model, home, c) for c in _columns(parse(text, model.dialect))]
    for other in sorted({u.dataset.name for u in uses} - {home.name}):
        _check_reachable(model, home.name, other)
    return uses


def _check_reachable(model: SemanticModel, home: str, other: str) -> None:
    try:
        [path] = join_paths(model, [home, other], k=1)
    except DataAgentError:
        raise ExpressionError(f"{other} is not joined to {home} by any relationship") from None
    if path.reroot(home).fan_out:
        raise ExpressionError(
            f"a metric on {home} cannot use fields of {other}: {other} has many rows per "
            f"{home} row, so they would double count (define the metric on {other} instead)"
        )


def expression_problems(model: SemanticModel) -> list[tuple[Loc, str]]:
    """Every derived field and metric expression that is not valid, with where it is."""
    problems: list[tuple[Loc, str]] = []
    for i, dataset in enumerate(model.datasets):
        for j, field in enumerate(dataset.fields):
            message = field_problem(dataset, field, model.dialect)
            if message:
                problems.append((("datasets", i, "fields", j, "expression"), message))
    for i, metric in enumerate(model.metrics):
        if metric.is_ratio:
            continue
        for key in ("expression", "filter"):
            text = getattr(metric, key)
            if text is None:
                continue
            try:
                text_uses(model, metric, text)
            except ExpressionError as exc:
                problems.append((("metrics", i, key), f"metric {metric.name}: {exc}"))
    return problems
