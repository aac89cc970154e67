"""The QueryPlan schema: a question written as data, the contract a model or a person writes.

Pure module (Pydantic only). A plan names metrics (by name) and measures, dimensions,
filters (AND-ed, with OR-groups), aggregate filters, a relative time window with an
optional comparison to the period before, a top-N and an order, by field or metric name;
these models are the whole contract (the API publishes them in OpenAPI).
Whether the names exist in a semantic model and the values fit their fields is the
resolver's job (`semantic/resolver.py`).
"""

from __future__ import annotations

import datetime as dt
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from dataagent.semantic.model import NAME_PATTERN

Aggregation = Literal["sum", "avg", "min", "max", "count", "count_distinct"]
TimeGrain = Literal["day", "week", "month", "quarter", "year"]
FilterOp = Literal[
    "=", "!=", ">", ">=", "<", "<=", "in", "not_in", "between", "like", "is_null", "is_not_null"
]
Scalar = bool | int | float | str

MAX_LIMIT = 10_000


class Measure(BaseModel):
    """An aggregate: `field` is `dataset.field`, or `*` / `dataset.*` for a row count."""

    model_config = ConfigDict(extra="forbid")

    field: str = Field(min_length=1)
    aggregation: Aggregation
    alias: str | None = Field(None, pattern=NAME_PATTERN)


class DimensionGroup(BaseModel):
    """Some values of a text dimension kept as they are, every other value (and NULL) put
    together under one label: "Houston compared with the other stores"."""

    model_config = ConfigDict(extra="forbid")

    values: list[str] = Field(min_length=1, max_length=100)
    others: str = Field("Others", min_length=1, max_length=100)


class Dimension(BaseModel):
    """A grouping column, optionally truncated to a time grain, or with some of its values
    set against all the others (`group`)."""

    model_config = ConfigDict(extra="forbid")

    field: str = Field(min_length=1)
    time_grain: TimeGrain | None = None
    group: DimensionGroup | None = Field(
        None,
        description="Keep these values of a text field and put every other one under `others`.",
    )
    alias: str | None = Field(None, pattern=NAME_PATTERN)


class Filter(BaseModel):
    """A row condition. `value` is a list for `in`/`not_in` and a pair for `between`."""

    model_config = ConfigDict(extra="forbid")

    field: str = Field(min_length=1)
    op: FilterOp
    value: Scalar | list[Scalar] | None = None


class FilterGroup(BaseModel):
    """Filters of which at least one must hold (OR); the plan's filters are AND-ed."""

    model_config = ConfigDict(extra="forbid")

    any: list[Filter] = Field(min_length=1, max_length=100)


class MetricRef(BaseModel):
    """A metric of the semantic model, by name."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(pattern=NAME_PATTERN)
    alias: str | None = Field(None, pattern=NAME_PATTERN)
    share_of_total: bool = Field(
        False, description="Also output `<alias>_share`: this row's fraction of all rows' total."
    )


class AggregateFilter(BaseModel):
    """A condition on an output column after aggregation (SQL's HAVING)."""

    model_config = ConfigDict(extra="forbid")

    by: str = Field(min_length=1, description="An output alias, metric name or measure field.")
    op: Literal["=", "!=", ">", ">=", "<", "<=", "between"]
    value: float | list[float] = Field(description="A number; a pair for `between`.")


class TimeWindow(BaseModel):
    """A window of time relative to the plan's reference date, on a date or timestamp field.

    `last`: the `count` periods of `grain` up to and including the one holding the
    reference date; `to_date`: from the start of the period holding it through the
    reference date (year to date); `previous`: the `count` whole periods before it.
    """

    model_config = ConfigDict(extra="forbid")

    field: str = Field(min_length=1)
    period: Literal["last", "to_date", "previous"]
    grain: TimeGrain
    count: int = Field(1, ge=1, le=1000)


class TopN(BaseModel):
    """Keep the first `n` rows by `by`, within each group of `within` (or overall)."""

    model_config = ConfigDict(extra="forbid")

    n: int = Field(ge=1, le=MAX_LIMIT)
    by: str = Field(min_length=1, description="An output alias, metric name or measure field.")
    within: list[str] = Field(
        default_factory=list, description="Dimensions (alias or field) that form the groups."
    )
    direction: Literal["asc", "desc"] = "desc"


class OrderBy(BaseModel):
    """Sort by an output alias (or the `dataset.field` of a dimension or measure)."""

    model_config = ConfigDict(extra="forbid")

    by: str = Field(min_length=1)
    direction: Literal["asc", "desc"] = "asc"


class QueryPlan(BaseModel):
    """A question as data: what to aggregate, by what, for which rows, in what order."""

    model_config = ConfigDict(extra="forbid")

    datasets: list[str] = Field(
        default_factory=list,
        description="Datasets the question is about; used to resolve bare field names and `*`.",
    )
    metrics: list[MetricRef] = Field(default_factory=list)
    measures: list[Measure] = Field(default_factory=list)
    dimensions: list[Dimension] = Field(default_factory=list)
    filters: list[Filter | FilterGroup] = Field(default_factory=list)
    having: list[AggregateFilter] = Field(default_factory=list)
    time_window: TimeWindow | None = None
    reference_date: dt.date | None = Field(
        None, description="The 'today' of `time_window`; the compiler records the one it used."
    )
    compare: Literal["previous_period", "previous_year"] | None = Field(
        None,
        description="Also output each metric and measure for the window before (or a year "
        "before), with `<alias>_previous`, `<alias>_change` and `<alias>_change_pct`.",
    )
    top: TopN | None = None
    order: list[OrderBy] = Field(default_factory=list)
    limit: int | None = Field(None, ge=1, le=MAX_LIMIT)

    @model_validator(mode="after")
    def _has_output(self) -> QueryPlan:
        if not self.measures and not self.dimensions and not self.metrics:
            raise ValueError("a plan needs at least one metric, measure or dimension")
        if self.compare is not None and self.time_window is None:
            raise ValueError("compare needs a time_window")
        return self
