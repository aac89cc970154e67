"""The semantic model: datasets, fields, relationships and metrics, as OSI-style YAML.

This module is pure (no ORM, no web framework). It is the contract shared by
introspection/generation (which produce it), the ontology (which stores it),
retrieval (which embeds each dataset's table and column names) and the QueryPlan compiler.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

NAME_PATTERN = r"^[A-Za-z_][A-Za-z0-9_]*$"


class DataType(StrEnum):
    """Logical column types, independent of the source dialect."""

    INTEGER = "integer"
    DECIMAL = "decimal"
    FLOAT = "float"
    BOOLEAN = "boolean"
    VARCHAR = "varchar"
    DATE = "date"
    TIMESTAMP = "timestamp"
    TIME = "time"
    JSON = "json"
    BINARY = "binary"
    OTHER = "other"


class Cardinality(StrEnum):
    """How many rows on each side of a relationship match (from -> to)."""

    MANY_TO_ONE = "many_to_one"
    ONE_TO_ONE = "one_to_one"
    ONE_TO_MANY = "one_to_many"
    MANY_TO_MANY = "many_to_many"


class RelationshipSource(StrEnum):
    """Where a relationship came from."""

    FOREIGN_KEY = "foreign_key"
    INFERRED = "inferred"
    MANUAL = "manual"


class MetricFormat(StrEnum):
    """How a metric's values are shown."""

    CURRENCY = "currency"
    PERCENT = "percent"
    NUMBER = "number"


MetricAggregation = Literal["sum", "avg", "min", "max", "count", "count_distinct"]


class Field_(BaseModel):
    """One column of a dataset, or a derived field: an SQL expression over its columns."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(pattern=NAME_PATTERN)
    expression: str
    label: str | None = None
    description: str | None = None
    data_type: DataType = DataType.OTHER
    native_type: str | None = None
    is_primary_key: bool = False
    nullable: bool = True
    sample_values: list[Any] = Field(default_factory=list)
    distinct_count: int | None = None
    generated: bool = Field(
        False, description="Proposed by the generator (a derived field), not written by a person."
    )


class Dataset(BaseModel):
    """One table or view, with its fields."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(pattern=NAME_PATTERN)
    description: str | None = None
    source: str = Field(description="The qualified table, e.g. `public.orders` or `main.orders`.")
    row_count: int | None = None
    primary_key: list[str] = Field(default_factory=list)
    fields: list[Field_] = Field(min_length=1)

    def field(self, name: str) -> Field_ | None:
        """The field with this name, or None."""
        return next((f for f in self.fields if f.name == name), None)

    @model_validator(mode="after")
    def _unique_fields(self) -> Dataset:
        seen: set[str] = set()
        for f in self.fields:
            if f.name in seen:
                raise ValueError(f"dataset {self.name!r} has field {f.name!r} twice")
            seen.add(f.name)
        for key in self.primary_key:
            if key not in seen:
                raise ValueError(f"dataset {self.name!r}: primary key {key!r} is not a field")
        return self


class Relationship(BaseModel):
    """A join between two datasets: `from_dataset.from_columns = to_dataset.to_columns`."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    name: str
    from_dataset: str = Field(alias="from")
    from_columns: list[str] = Field(min_length=1)
    to_dataset: str = Field(alias="to")
    to_columns: list[str] = Field(min_length=1)
    cardinality: Cardinality = Cardinality.MANY_TO_ONE
    source: RelationshipSource = RelationshipSource.FOREIGN_KEY
    description: str | None = None

    @model_validator(mode="after")
    def _same_arity(self) -> Relationship:
        if len(self.from_columns) != len(self.to_columns):
            raise ValueError(f"relationship {self.name!r}: column lists differ in length")
        return self


class Metric(BaseModel):
    """A named business aggregate, in one of two forms.

    *Simple*: `aggregation` of `expression` (SQL over the fields of `dataset`, and over
    `other_dataset.field` of datasets it reaches along many-to-one relationships) for the
    rows that pass `filter`; no expression counts rows. *Ratio*: `numerator` divided by
    `denominator`, both simple metrics, each aggregated on its own before the division.
    """

    model_config = ConfigDict(extra="forbid")

    name: str = Field(pattern=NAME_PATTERN)
    label: str | None = None
    description: str | None = None
    synonyms: list[str] = Field(default_factory=list)
    format: MetricFormat = MetricFormat.NUMBER
    dataset: str | None = Field(None, description="Simple form: the dataset whose rows it adds up.")
    aggregation: MetricAggregation | None = None
    expression: str | None = Field(None, description="Simple form: what is aggregated (SQL).")
    filter: str | None = Field(None, description="Simple form: which rows count (SQL condition).")
    numerator: str | None = Field(None, description="Ratio form: a simple metric's name.")
    denominator: str | None = Field(None, description="Ratio form: a simple metric's name.")
    generated: bool = Field(False, description="Proposed by the generator, not by a person.")

    @property
    def is_ratio(self) -> bool:
        """True for the ratio form."""
        return self.numerator is not None

    @model_validator(mode="after")
    def _one_form(self) -> Metric:
        simple = (self.dataset, self.aggregation, self.expression, self.filter)
        if self.numerator is not None or self.denominator is not None:
            if self.numerator is None or self.denominator is None:
                raise ValueError(f"metric {self.name!r}: a ratio needs numerator and denominator")
            if any(v is not None for v in simple):
                raise ValueError(
                    f"metric {self.name!r}: a ratio takes no dataset, aggregation, "
                    "expression or filter (its parts do)"
                )
            return self
        if self.dataset is None or self.aggregation is None:
            raise ValueError(
                f"metric {self.name!r} needs dataset and aggregation (or numerator and denominator)"
            )
        if self.expression is None and self.aggregation != "count":
            raise ValueError(f"metric {self.name!r}: {self.aggregation} needs an expression")
        return self


class SemanticModel(BaseModel):
    """A whole semantic model: the datasets of one connection and how they join."""

    model_config = ConfigDict(extra="forbid")

    name: str
    description: str | None = None
    dialect: str = Field(description="postgresql | sqlite | duckdb | mysql")
    datasets: list[Dataset] = Field(default_factory=list)
    relationships: list[Relationship] = Field(default_factory=list)
    metrics: list[Metric] = Field(default_factory=list)

    def dataset(self, name: str) -> Dataset | None:
        """The dataset with this name, or None."""
        return next((d for d in self.datasets if d.name == name), None)

    def metric(self, name: str) -> Metric | None:
        """The metric with this name, or None."""
        return next((m for m in self.metrics if m.name == name), None)

    def simple_parts(self, metric: Metric) -> list[Metric]:
        """What a metric aggregates: itself when simple, a ratio's simple parts that exist."""
        if not metric.is_ratio:
            return [metric]
        parts = [self.metric(n) for n in (metric.numerator, metric.denominator) if n]
        return [p for p in parts if p is not None and not p.is_ratio]

    @model_validator(mode="after")
    def _consistent(self) -> SemanticModel:
        names: dict[str, Dataset] = {}
        for d in self.datasets:
            if d.name in names:
                raise ValueError(f"dataset {d.name!r} appears twice")
            names[d.name] = d
        for r in self.relationships:
            for side, ds_name, cols in (
                ("from", r.from_dataset, r.from_columns),
                ("to", r.to_dataset, r.to_columns),
            ):
                ds = names.get(ds_name)
                if ds is None:
                    raise ValueError(
                        f"relationship {r.name!r}: {side} dataset {ds_name!r} does not exist"
                    )
                for col in cols:
                    if ds.field(col) is None:
                        raise ValueError(f"relationship {r.name!r}: {ds_name}.{col} is not a field")
        message = next(iter(metric_problems(self.metrics, set(names))), None)
        if message is not None:
            raise ValueError(message[1])
        return self


def metric_problems(metrics: list[Metric], datasets: set[str]) -> list[tuple[int, str, str]]:
    """Metric names and references that do not hold: (metric index, key, message)."""
    problems: list[tuple[int, str, str]] = []
    by_name: dict[str, Metric] = {}
    for i, m in enumerate(metrics):
        if m.name in by_name:
            problems.append((i, "name", f"metric {m.name!r} appears twice"))
        by_name.setdefault(m.name, m)
    for i, m in enumerate(metrics):
        if m.dataset is not None and m.dataset not in datasets:
            message = f"metric {m.name!r}: dataset {m.dataset!r} does not exist"
            problems.append((i, "dataset", message))
        for key in ("numerator", "denominator"):
            part_name = getattr(m, key)
            if part_name is None:
                continue
            part = by_name.get(part_name)
            if part is None:
                problems.append((i, key, f"metric {m.name!r}: {key} {part_name!r} is not a metric"))
            elif part.is_ratio:
                message = f"metric {m.name!r}: {key} {part_name!r} is a ratio; use a simple metric"
                problems.append((i, key, message))
    return problems


def rows_phrase(n: int) -> str:
    """A row count as a generated description says it ("1 row", "1,234 rows")."""
    return "1 row" if n == 1 else f"{n:,} rows"


def description_without_count(dataset: Dataset) -> str | None:
    """The dataset's description without the row count generation writes into it
    ("Sales table with 5 rows." becomes "Sales table.")."""
    text = dataset.description
    if text is None or dataset.row_count is None:
        return text
    suffix = f" with {rows_phrase(dataset.row_count)}."
    return text.removesuffix(suffix) + "." if text.endswith(suffix) else text


def without_samples(model: SemanticModel) -> SemanticModel:
    """The model without what was read from the data when it was made: each field's sample
    values and distinct count, each dataset's row count, also where a generated description
    states it (what a person whose database role hides some rows must not see)."""
    datasets = [
        d.model_copy(
            update={
                "row_count": None,
                "description": description_without_count(d),
                "fields": [
                    f.model_copy(update={"sample_values": [], "distinct_count": None})
                    for f in d.fields
                ],
            }
        )
        for d in model.datasets
    ]
    return model.model_copy(update={"datasets": datasets})
