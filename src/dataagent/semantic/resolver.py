"""The QueryPlan resolver: a plan checked against a semantic model, ready to compile.

Pure module. `validate_plan` checks a `QueryPlan` against a `SemanticModel` and returns a
`ResolvedPlan` in which every field reference is bound to its dataset and field, every
output column has a unique alias, and every filter value has been checked against the
field's data type. The compiler only sees resolved plans.
"""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass

from dataagent.errors import DataAgentError, ErrorCode
from dataagent.semantic.model import Dataset, DataType, Field_, SemanticModel
from dataagent.semantic.plan import Aggregation, Filter, FilterOp, QueryPlan, Scalar, TimeGrain

MAX_IN_VALUES = 1_000

NUMERIC = {DataType.INTEGER, DataType.DECIMAL, DataType.FLOAT}
TEMPORAL = {DataType.DATE, DataType.TIMESTAMP}
# Types whose values have a meaningful order (MIN/MAX, <, between).
ORDERED = NUMERIC | TEMPORAL | {DataType.VARCHAR, DataType.TIME, DataType.OTHER}


@dataclass(frozen=True)
class FieldRef:
    """A field bound to its dataset (field is None for a `*` row count)."""

    dataset: Dataset
    field: Field_ | None

    @property
    def label(self) -> str:
        """`dataset.field` (or `dataset.*`)."""
        return f"{self.dataset.name}.{self.field.name if self.field else '*'}"


@dataclass(frozen=True)
class ResolvedMeasure:
    """A validated measure."""

    ref: FieldRef
    aggregation: Aggregation
    alias: str


@dataclass(frozen=True)
class ResolvedDimension:
    """A validated dimension."""

    ref: FieldRef
    time_grain: TimeGrain | None
    alias: str


@dataclass(frozen=True)
class ResolvedFilter:
    """A validated filter with its values normalised (dates as ISO strings)."""

    ref: FieldRef
    op: FilterOp
    values: tuple[Scalar, ...]


@dataclass(frozen=True)
class ResolvedOrder:
    """A sort on an output alias."""

    alias: str
    descending: bool


@dataclass(frozen=True)
class ResolvedPlan:
    """A plan bound to a semantic model, ready to compile."""

    datasets: tuple[str, ...]
    measures: tuple[ResolvedMeasure, ...]
    dimensions: tuple[ResolvedDimension, ...]
    filters: tuple[ResolvedFilter, ...]
    order: tuple[ResolvedOrder, ...]
    limit: int | None
    unused_datasets: tuple[str, ...]

    @property
    def referenced_datasets(self) -> list[str]:
        """Datasets that some measure, dimension or filter uses, in order of first use."""
        names = [m.ref.dataset.name for m in self.measures]
        names += [d.ref.dataset.name for d in self.dimensions]
        names += [f.ref.dataset.name for f in self.filters]
        return list(dict.fromkeys(names))


def _invalid(message: str, **details: object) -> DataAgentError:
    return DataAgentError(ErrorCode.VALIDATION_ERROR, message, details=details or None)


class _Resolver:
    def __init__(self, plan: QueryPlan, model: SemanticModel) -> None:
        self.plan = plan
        self.model = model
        for name in plan.datasets:
            if model.dataset(name) is None:
                raise _invalid(f"Unknown dataset {name!r} in plan.datasets.", dataset=name)
        self.scope = [d for d in model.datasets if d.name in plan.datasets] or model.datasets

    def field(self, text: str, where: str, allow_star: bool = False) -> FieldRef:
        text = text.strip()
        if text == "*":
            if not allow_star:
                raise _invalid(f"{where}: '*' is only allowed in a count measure.")
            if not self.plan.datasets:
                raise _invalid(f"{where}: '*' needs plan.datasets (or write 'dataset.*').")
            return FieldRef(self._dataset(self.plan.datasets[0], where), None)
        if "." in text:
            ds_name, _, field_name = text.partition(".")
            dataset = self._dataset(ds_name, where)
            if field_name == "*":
                if not allow_star:
                    raise _invalid(f"{where}: '{text}' is only allowed in a count measure.")
                return FieldRef(dataset, None)
            found = dataset.field(field_name)
            if found is None:
                known = ", ".join(f.name for f in dataset.fields)
                raise _invalid(
                    f"{where}: dataset {ds_name!r} has no field {field_name!r} (fields: {known}).",
                    field=text,
                )
            return FieldRef(dataset, found)
        matches = [FieldRef(d, f) for d in self.scope if (f := d.field(text)) is not None]
        if len(matches) == 1:
            return matches[0]
        if not matches:
            raise _invalid(f"{where}: no dataset has a field {text!r}.", field=text)
        options = ", ".join(m.label for m in matches)
        raise _invalid(f"{where}: field {text!r} is ambiguous ({options}).", field=text)

    def _dataset(self, name: str, where: str) -> Dataset:
        dataset = self.model.dataset(name)
        if dataset is None:
            raise _invalid(f"{where}: unknown dataset {name!r}.", dataset=name)
        return dataset


def _check_aggregation(ref: FieldRef, aggregation: Aggregation, where: str) -> None:
    if ref.field is None:
        return  # `*` only parses in a count
    dtype = ref.field.data_type
    if aggregation in ("sum", "avg") and dtype not in NUMERIC | {DataType.OTHER}:
        raise _invalid(
            f"{where}: cannot {aggregation} {ref.label}: it is {dtype.value}, not numeric.",
            field=ref.label,
        )
    if aggregation in ("min", "max") and dtype not in ORDERED:
        raise _invalid(
            f"{where}: cannot take {aggregation} of {ref.label}: {dtype.value} has no order.",
            field=ref.label,
        )


def _scalar(ref: FieldRef, value: Scalar | None, where: str) -> Scalar:
    assert ref.field is not None
    dtype = ref.field.data_type
    label = ref.label
    if value is None:
        raise _invalid(f"{where}: a null value; use op 'is_null' or 'is_not_null'.", field=label)
    if dtype in NUMERIC:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise _invalid(f"{where}: {label} is numeric, got {value!r}.", field=label)
        if not math.isfinite(value):
            raise _invalid(f"{where}: {label} needs a finite number, got {value!r}.")
        return value
    if dtype == DataType.BOOLEAN:
        if not isinstance(value, bool):
            raise _invalid(f"{where}: {label} is boolean, got {value!r}.", field=label)
        return value
    if dtype in TEMPORAL:
        return _temporal(value, dtype == DataType.DATE, where, label)
    if dtype in (DataType.VARCHAR, DataType.TIME):
        if not isinstance(value, str):
            raise _invalid(f"{where}: {label} is text, got {value!r}.", field=label)
        return value
    if dtype in (DataType.JSON, DataType.BINARY):
        raise _invalid(f"{where}: {label} is {dtype.value}; only null checks apply.", field=label)
    return value


def _temporal(value: Scalar, date_only: bool, where: str, label: str) -> str:
    kind, form = ("date", "'YYYY-MM-DD'") if date_only else ("timestamp", "'YYYY-MM-DD[ HH:MM:SS]'")
    error = _invalid(f"{where}: {label} is a {kind}; give {form}, got {value!r}.", field=label)
    if not isinstance(value, str):
        raise error
    try:
        if date_only:
            return dt.date.fromisoformat(value).isoformat()
        parsed = dt.datetime.fromisoformat(value)
    except ValueError:
        raise error from None
    # One text form for every dialect: SQLite compares timestamps as text.
    return parsed.date().isoformat() if len(value) == 10 else parsed.isoformat(sep=" ")


def _filter(ref: FieldRef, f: Filter, where: str) -> ResolvedFilter:
    assert ref.field is not None
    dtype = ref.field.data_type
    if f.op in ("is_null", "is_not_null"):
        if f.value is not None:
            raise _invalid(f"{where}: op {f.op!r} takes no value.", field=ref.label)
        return ResolvedFilter(ref, f.op, ())
    if f.op in ("in", "not_in", "between"):
        if not isinstance(f.value, list):
            raise _invalid(f"{where}: op {f.op!r} needs a list value.", field=ref.label)
        if f.op == "between" and len(f.value) != 2:
            raise _invalid(f"{where}: 'between' needs exactly two values.", field=ref.label)
        if not f.value or len(f.value) > MAX_IN_VALUES:
            raise _invalid(
                f"{where}: op {f.op!r} needs 1 to {MAX_IN_VALUES} values.", field=ref.label
            )
        values = tuple(_scalar(ref, v, where) for v in f.value)
    else:
        if isinstance(f.value, list):
            raise _invalid(f"{where}: op {f.op!r} takes one value, not a list.", field=ref.label)
        values = (_scalar(ref, f.value, where),)
    if f.op == "like" and dtype not in (DataType.VARCHAR, DataType.OTHER):
        raise _invalid(f"{where}: 'like' needs a text field; {ref.label} is {dtype.value}.")
    if f.op in (">", ">=", "<", "<=", "between") and dtype not in ORDERED:
        raise _invalid(f"{where}: {ref.label} is {dtype.value}; {f.op!r} does not apply.")
    return ResolvedFilter(ref, f.op, values)


def _unique_aliases(wanted: list[tuple[str | None, str, str]]) -> list[str]:
    """Pick aliases: given ones as is, defaults made unique with the dataset name."""
    given = [a for a, _, _ in wanted if a is not None]
    duplicates = sorted({a for a in given if given.count(a) > 1})
    if duplicates:
        raise _invalid(f"Alias {duplicates[0]!r} is used twice.", alias=duplicates[0])
    taken = set(given)
    defaults = [d for a, d, _ in wanted if a is None]
    out: list[str] = []
    for alias, default, qualified in wanted:
        if alias is not None:
            out.append(alias)
            continue
        name = default if defaults.count(default) == 1 and default not in taken else qualified
        base, n = name, 2
        while name in taken:
            name, n = f"{base}_{n}", n + 1
        taken.add(name)
        out.append(name)
    return out


def validate_plan(plan: QueryPlan, model: SemanticModel) -> ResolvedPlan:
    """Check a plan against a semantic model; raise VALIDATION_ERROR naming what is wrong."""
    resolver = _Resolver(plan, model)
    measure_refs = []
    for i, m in enumerate(plan.measures):
        where = f"measures[{i}]"
        ref = resolver.field(m.field, where, allow_star=m.aggregation == "count")
        _check_aggregation(ref, m.aggregation, where)
        measure_refs.append(ref)
    dimension_refs = []
    for i, d in enumerate(plan.dimensions):
        where = f"dimensions[{i}]"
        ref = resolver.field(d.field, where)
        assert ref.field is not None
        if d.time_grain and ref.field.data_type not in TEMPORAL:
            raise _invalid(
                f"{where}: time_grain needs a date or timestamp; {ref.label} is "
                f"{ref.field.data_type.value}.",
                field=ref.label,
            )
        dimension_refs.append(ref)
    filters = tuple(
        _filter(resolver.field(f.field, f"filters[{i}]"), f, f"filters[{i}]")
        for i, f in enumerate(plan.filters)
    )

    wanted: list[tuple[str | None, str, str]] = []
    for d, ref in zip(plan.dimensions, dimension_refs, strict=True):
        assert ref.field is not None
        suffix = f"_{d.time_grain}" if d.time_grain else ""
        default = f"{ref.field.name}{suffix}"
        wanted.append((d.alias, default, f"{ref.dataset.name}_{default}"))
    for m, ref in zip(plan.measures, measure_refs, strict=True):
        default = f"{m.aggregation}_{ref.field.name}" if ref.field else "row_count"
        wanted.append((m.alias, default, f"{m.aggregation}_{ref.dataset.name}_" + default[-40:]))
    aliases = _unique_aliases(wanted)
    dim_aliases, measure_aliases = aliases[: len(dimension_refs)], aliases[len(dimension_refs) :]
    dimensions = tuple(
        ResolvedDimension(ref, d.time_grain, a)
        for d, ref, a in zip(plan.dimensions, dimension_refs, dim_aliases, strict=True)
    )
    measures = tuple(
        ResolvedMeasure(ref, m.aggregation, a)
        for m, ref, a in zip(plan.measures, measure_refs, measure_aliases, strict=True)
    )

    by_field: dict[str, str] = {}
    for ref, output in zip([*dimension_refs, *measure_refs], aliases, strict=True):
        by_field.setdefault(ref.label, output)
    order = []
    for i, o in enumerate(plan.order):
        alias = o.by if o.by in aliases else by_field.get(o.by)
        if alias is None:
            raise _invalid(
                f"order[{i}]: {o.by!r} is not an output column (choose from {', '.join(aliases)}).",
                by=o.by,
            )
        order.append(ResolvedOrder(alias, o.direction == "desc"))

    used = {ref.dataset.name for ref in (*measure_refs, *dimension_refs)}
    used |= {f.ref.dataset.name for f in filters}
    return ResolvedPlan(
        datasets=tuple(plan.datasets),
        measures=measures,
        dimensions=dimensions,
        filters=filters,
        order=tuple(order),
        limit=plan.limit,
        unused_datasets=tuple(n for n in plan.datasets if n not in used),
    )
