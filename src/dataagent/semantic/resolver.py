"""The QueryPlan resolver: a plan checked against a semantic model, ready to compile.

Pure module. `validate_plan` checks a `QueryPlan` against a `SemanticModel` and returns a
`ResolvedPlan` in which every field reference is bound to its dataset and field, every
metric to its definition (a ratio to the two aggregates it divides), every output column
has a unique alias, every filter value has been checked against the field's data type,
and a relative time window has become dates seen from the plan's reference date. The
compiler only sees resolved plans.
"""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass, field

from dataagent.errors import DataAgentError, ErrorCode
from dataagent.semantic.expressions import ExpressionError, metric_uses
from dataagent.semantic.model import Dataset, DataType, Field_, Metric, SemanticModel
from dataagent.semantic.plan import (
    Aggregation,
    Filter,
    FilterGroup,
    FilterOp,
    MetricRef,
    QueryPlan,
    Scalar,
    TimeGrain,
)
from dataagent.semantic.windows import DateRange, previous_range, resolve_window

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
    """A validated aggregate: a plan's measure, or a simple metric (`ref.field` is None)."""

    ref: FieldRef
    aggregation: Aggregation
    alias: str
    metric: Metric | None = None
    uses: tuple[str, ...] = ()  # other datasets the metric's SQL names
    part_of: str | None = None  # "the numerator of aov" for a ratio's part

    @property
    def output(self) -> str:
        """The output column this aggregate is, or is part of, for notes."""
        return f"{self.alias.rsplit('__', 1)[0]} ({self.part_of})" if self.part_of else self.alias

    @property
    def label(self) -> str:
        """What is aggregated, for messages: `dataset.field` or `metric name`."""
        return f"metric {self.metric.name}" if self.metric else self.ref.label

    @property
    def counts_rows(self) -> bool:
        """True when this counts rows (a `*` count, or a metric with no expression)."""
        if self.metric is not None:
            return self.metric.expression is None
        return self.ref.field is None


@dataclass(frozen=True)
class ResolvedDimension:
    """A validated dimension."""

    ref: FieldRef
    time_grain: TimeGrain | None
    alias: str
    # The values kept as they are, and the label of every other one (`Dimension.group`).
    group: tuple[str, ...] | None = None
    others: str | None = None


@dataclass(frozen=True)
class ResolvedFilter:
    """A validated filter with its values normalised (dates as ISO strings)."""

    ref: FieldRef
    op: FilterOp
    values: tuple[Scalar, ...]


@dataclass(frozen=True)
class ResolvedCondition:
    """Filters of which one must hold (OR); a plain filter is a condition of one."""

    filters: tuple[ResolvedFilter, ...]

    @property
    def datasets(self) -> frozenset[str]:
        """The datasets the condition reads."""
        return frozenset(f.ref.dataset.name for f in self.filters)


@dataclass(frozen=True)
class ResolvedOutput:
    """A value column: an aggregate (`measure`) or a ratio of two (`ratio`), maybe a share."""

    alias: str
    measure: str | None = None
    ratio: tuple[str, str] | None = None
    share: bool = False


@dataclass(frozen=True)
class ResolvedAggregateFilter:
    """A condition on an output column, applied after aggregation."""

    alias: str
    op: str
    values: tuple[float, ...]


@dataclass(frozen=True)
class ResolvedTop:
    """Keep `n` rows per group of `within` (dimension aliases), ranked by `alias`."""

    n: int
    alias: str
    within: tuple[str, ...]
    descending: bool


@dataclass(frozen=True)
class ResolvedWindow:
    """A time window as dates, with the reference date it was resolved against."""

    field: FieldRef
    reference_date: dt.date
    current: DateRange
    previous: DateRange | None


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
    filters: tuple[ResolvedCondition, ...]
    order: tuple[ResolvedOrder, ...]
    limit: int | None
    unused_datasets: tuple[str, ...]
    outputs: tuple[ResolvedOutput, ...] = ()
    having: tuple[ResolvedAggregateFilter, ...] = ()
    top: ResolvedTop | None = None
    window: ResolvedWindow | None = None
    compare: str | None = None
    previous_filters: tuple[ResolvedCondition, ...] = ()

    @property
    def referenced_datasets(self) -> list[str]:
        """Datasets that some measure, dimension or filter uses, in order of first use."""
        names = [n for m in self.measures for n in (m.ref.dataset.name, *m.uses)]
        names += [d.ref.dataset.name for d in self.dimensions]
        names += [n for c in self.filters for n in sorted(c.datasets)]
        return list(dict.fromkeys(names))

    @property
    def needs_outer_query(self) -> bool:
        """True when some column is computed from the aggregates (ratio, share, comparison)
        or rows are kept by them (aggregate filters, top N)."""
        computed = any(o.ratio is not None or o.share for o in self.outputs)
        return computed or bool(self.having) or self.top is not None or self.compare is not None

    @property
    def value_columns(self) -> list[str]:
        """The value columns the plan outputs, in order (after the dimensions)."""
        columns: list[str] = []
        for o in self.outputs:
            columns.append(o.alias)
            if self.compare:
                columns += [f"{o.alias}_previous", f"{o.alias}_change", f"{o.alias}_change_pct"]
            if o.share:
                columns.append(f"{o.alias}_share")
        return columns

    @property
    def columns(self) -> list[str]:
        """Every output column, in order."""
        return [d.alias for d in self.dimensions] + self.value_columns


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


def _metric_measure(
    model: SemanticModel, metric: Metric, alias: str, where: str, part_of: str | None = None
) -> ResolvedMeasure:
    assert metric.dataset is not None and metric.aggregation is not None
    dataset = model.dataset(metric.dataset)
    assert dataset is not None  # the model checks its metrics' datasets
    try:
        uses = metric_uses(model, metric)
    except ExpressionError as exc:
        raise _invalid(f"{where}: metric {metric.name!r} cannot be used: {exc}.") from None
    others = tuple(dict.fromkeys(u.dataset.name for u in uses if u.dataset.name != dataset.name))
    return ResolvedMeasure(
        FieldRef(dataset, None), metric.aggregation, alias, metric, others, part_of
    )


@dataclass
class _Outputs:
    """The value columns being resolved: visible outputs and the aggregates behind them."""

    model: SemanticModel
    measures: list[ResolvedMeasure] = field(default_factory=list)
    outputs: list[ResolvedOutput] = field(default_factory=list)

    def metric(self, ref: MetricRef, alias: str, where: str) -> None:
        metric = self.model.metric(ref.name)
        if metric is None:
            known = ", ".join(m.name for m in self.model.metrics) or "none"
            raise _invalid(
                f"{where}: unknown metric {ref.name!r} (metrics: {known}).", metric=ref.name
            )
        if ref.share_of_total and metric.aggregation not in ("sum", "count"):
            raise _invalid(
                f"{where}: share_of_total needs a metric that adds up (a sum or a count); "
                f"{metric.name} is {'a ratio' if metric.is_ratio else metric.aggregation}.",
                metric=metric.name,
            )
        if metric.numerator is None or metric.denominator is None:
            self.measures.append(_metric_measure(self.model, metric, alias, where))
            self.outputs.append(ResolvedOutput(alias, measure=alias, share=ref.share_of_total))
            return
        parts = []
        for role, name in (("numerator", metric.numerator), ("denominator", metric.denominator)):
            part = self.model.metric(name)
            assert part is not None  # the model checks its ratios' parts
            parts.append(f"{alias}__{role}")
            role_text = f"its {role}, {part.name}"
            self.measures.append(_metric_measure(self.model, part, parts[-1], where, role_text))
        self.outputs.append(
            ResolvedOutput(alias, ratio=(parts[0], parts[1]), share=ref.share_of_total)
        )


def _conditions(
    resolver: _Resolver, filters: list[Filter | FilterGroup]
) -> list[ResolvedCondition]:
    out = []
    for i, item in enumerate(filters):
        where = f"filters[{i}]"
        group = item.any if isinstance(item, FilterGroup) else [item]
        resolved = []
        for j, f in enumerate(group):
            at = f"{where}.any[{j}]" if isinstance(item, FilterGroup) else where
            resolved.append(_filter(resolver.field(f.field, at), f, at))
        out.append(ResolvedCondition(tuple(resolved)))
    return out


def _range_conditions(ref: FieldRef, dates: DateRange) -> list[ResolvedCondition]:
    return [
        ResolvedCondition((ResolvedFilter(ref, ">=", (dates.start.isoformat(),)),)),
        ResolvedCondition((ResolvedFilter(ref, "<", (dates.end.isoformat(),)),)),
    ]


def _window(resolver: _Resolver, plan: QueryPlan, today: dt.date) -> ResolvedWindow | None:
    window = plan.time_window
    if window is None:
        return None
    ref = resolver.field(window.field, "time_window.field")
    assert ref.field is not None
    if ref.field.data_type not in TEMPORAL:
        raise _invalid(
            f"time_window: {ref.label} is {ref.field.data_type.value}, not a date or timestamp.",
            field=ref.label,
        )
    if window.period == "to_date" and window.count != 1:
        raise _invalid("time_window: 'to_date' covers one period; leave count at 1.")
    reference = plan.reference_date or today
    current = resolve_window(window, reference)
    previous = previous_range(window, current, plan.compare) if plan.compare else None
    return ResolvedWindow(ref, reference, current, previous)


def validate_plan(
    plan: QueryPlan, model: SemanticModel, today: dt.date | None = None
) -> ResolvedPlan:
    """Check a plan against a semantic model; raise VALIDATION_ERROR naming what is wrong.

    `today` is the reference date for a time window when the plan gives none (default:
    the current UTC date); the resolved plan records the one used.
    """
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
        if d.group is not None and ref.field.data_type is not DataType.VARCHAR:
            raise _invalid(
                f"{where}: group needs a text field; {ref.label} is {ref.field.data_type.value}.",
                field=ref.label,
            )
        dimension_refs.append(ref)
    conditions = _conditions(resolver, plan.filters)
    window = _window(resolver, plan, today or dt.datetime.now(dt.UTC).date())

    wanted: list[tuple[str | None, str, str]] = []
    for d, ref in zip(plan.dimensions, dimension_refs, strict=True):
        assert ref.field is not None
        suffix = f"_{d.time_grain}" if d.time_grain else ""
        default = f"{ref.field.name}{suffix}"
        wanted.append((d.alias, default, f"{ref.dataset.name}_{default}"))
    for r in plan.metrics:
        wanted.append((r.alias, r.name, f"metric_{r.name}"))
    for m, ref in zip(plan.measures, measure_refs, strict=True):
        default = f"{m.aggregation}_{ref.field.name}" if ref.field else "row_count"
        wanted.append((m.alias, default, f"{m.aggregation}_{ref.dataset.name}_" + default[-40:]))
    aliases = _unique_aliases(wanted)
    n_dims, n_metrics = len(dimension_refs), len(plan.metrics)
    dim_aliases = aliases[:n_dims]
    metric_aliases = aliases[n_dims : n_dims + n_metrics]
    measure_aliases = aliases[n_dims + n_metrics :]
    dimensions = tuple(
        ResolvedDimension(
            ref,
            d.time_grain,
            a,
            tuple(d.group.values) if d.group else None,
            d.group.others if d.group else None,
        )
        for d, ref, a in zip(plan.dimensions, dimension_refs, dim_aliases, strict=True)
    )
    values = _Outputs(model)
    for i, (r, alias) in enumerate(zip(plan.metrics, metric_aliases, strict=True)):
        values.metric(r, alias, f"metrics[{i}]")
    for m, ref, alias in zip(plan.measures, measure_refs, measure_aliases, strict=True):
        values.measures.append(ResolvedMeasure(ref, m.aggregation, alias))
        values.outputs.append(ResolvedOutput(alias, measure=alias))

    draft = ResolvedPlan(
        datasets=tuple(plan.datasets),
        measures=tuple(values.measures),
        dimensions=dimensions,
        filters=(),
        order=(),
        limit=plan.limit,
        unused_datasets=(),
        outputs=tuple(values.outputs),
        compare=plan.compare,
    )
    columns = draft.columns
    taken = [c for c in columns if columns.count(c) > 1]
    if taken:
        raise _invalid(f"Output column {taken[0]!r} would appear twice; choose another alias.")
    internal = {m.alias for m in values.measures} - set(columns)
    clash = internal & set(aliases)
    if clash:
        raise _invalid(f"Alias {sorted(clash)[0]!r} is reserved for a ratio's parts.")

    by_field: dict[str, str] = {}
    for ref, alias in zip(dimension_refs, dim_aliases, strict=True):
        by_field.setdefault(ref.label, alias)
    for r, alias in zip(plan.metrics, metric_aliases, strict=True):
        by_field.setdefault(r.name, alias)
    for ref, alias in zip(measure_refs, measure_aliases, strict=True):
        by_field.setdefault(ref.label, alias)

    def output(name: str, where: str, among: list[str]) -> str:
        alias = name if name in among else by_field.get(name)
        if alias is None or alias not in among:
            raise _invalid(
                f"{where}: {name!r} is not an output column (choose from {', '.join(among)}).",
                by=name,
            )
        return alias

    value_columns = draft.value_columns
    shares = {f"{o.alias}_share" for o in draft.outputs if o.share}
    order = tuple(
        ResolvedOrder(output(o.by, f"order[{i}]", columns), o.direction == "desc")
        for i, o in enumerate(plan.order)
    )
    having = []
    for i, h in enumerate(plan.having):
        where = f"having[{i}]"
        pair = isinstance(h.value, list)
        if (h.op == "between") != pair or (pair and len(h.value) != 2):  # type: ignore[arg-type]
            raise _invalid(f"{where}: 'between' takes two numbers; other ops take one.")
        numbers = tuple(h.value) if isinstance(h.value, list) else (h.value,)
        if not all(math.isfinite(v) for v in numbers):
            raise _invalid(f"{where}: values must be finite numbers.")
        unshared = [c for c in value_columns if c not in shares]
        having.append(ResolvedAggregateFilter(output(h.by, where, unshared), h.op, numbers))
    top = None
    if plan.top is not None:
        within = tuple(output(w, "top.within", dim_aliases) for w in plan.top.within)
        top = ResolvedTop(
            plan.top.n,
            output(plan.top.by, "top.by", value_columns),
            within,
            plan.top.direction == "desc",
        )
    if window is not None and plan.compare is not None:
        for dim in dimensions:
            if dim.ref == window.field:
                raise _invalid(
                    f"compare: dimension {dim.alias} is the time window's field, so this period's "
                    "rows and the previous period's never line up; drop it or compare without it.",
                    field=dim.ref.label,
                )
    filters = tuple(conditions)
    previous: tuple[ResolvedCondition, ...] = ()
    if window is not None:
        filters += tuple(_range_conditions(window.field, window.current))
        if window.previous is not None:
            previous = tuple(conditions) + tuple(_range_conditions(window.field, window.previous))

    used = {n for m in values.measures for n in (m.ref.dataset.name, *m.uses)}
    used |= {ref.dataset.name for ref in dimension_refs}
    used |= {n for c in filters for n in c.datasets}
    return ResolvedPlan(
        datasets=tuple(plan.datasets),
        measures=tuple(values.measures),
        dimensions=dimensions,
        filters=filters,
        order=order,
        limit=plan.limit,
        unused_datasets=tuple(n for n in plan.datasets if n not in used),
        outputs=tuple(values.outputs),
        having=tuple(having),
        top=top,
        window=window,
        compare=plan.compare,
        previous_filters=previous,
    )
