"""The QueryPlan schema: a question written as data, the contract a model or a person writes.

Pure module (Pydantic only). A plan names measures, dimensions, filters and an order by
field name; these models are the whole contract (the API publishes them in OpenAPI).
Whether the names exist in a semantic model and the values fit their fields is the
resolver's job (`semantic/resolver.py`).
"""

from __future__ import annotations

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


class Dimension(BaseModel):
    """A grouping column, optionally truncated to a time grain."""

    model_config = ConfigDict(extra="forbid")

    field: str = Field(min_length=1)
    time_grain: TimeGrain | None = None
    alias: str | None = Field(None, pattern=NAME_PATTERN)


class Filter(BaseModel):
    """A row condition. `value` is a list for `in`/`not_in` and a pair for `between`."""

    model_config = ConfigDict(extra="forbid")

    field: str = Field(min_length=1)
    op: FilterOp
    value: Scalar | list[Scalar] | None = None


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
    measures: list[Measure] = Field(default_factory=list)
    dimensions: list[Dimension] = Field(default_factory=list)
    filters: list[Filter] = Field(default_factory=list)
    order: list[OrderBy] = Field(default_factory=list)
    limit: int | None = Field(None, ge=1, le=MAX_LIMIT)

    @model_validator(mode="after")
    def _has_output(self) -> QueryPlan:
        if not self.measures and not self.dimensions:
            raise ValueError("a plan needs at least one measure or dimension")
        return self
