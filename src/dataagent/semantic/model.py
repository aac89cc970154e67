"""The semantic model: datasets, fields and relationships, as OSI-style YAML.

This module is pure (no ORM, no web framework). It is the contract shared by
introspection/generation (which produce it), the ontology (which stores it),
retrieval (which embeds each dataset's table and column names) and the QueryPlan compiler.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

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


class Field_(BaseModel):
    """One column (or expression) of a dataset."""

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


class SemanticModel(BaseModel):
    """A whole semantic model: the datasets of one connection and how they join."""

    model_config = ConfigDict(extra="forbid")

    name: str
    description: str | None = None
    dialect: str = Field(description="postgresql | sqlite | duckdb | mysql")
    datasets: list[Dataset] = Field(default_factory=list)
    relationships: list[Relationship] = Field(default_factory=list)

    def dataset(self, name: str) -> Dataset | None:
        """The dataset with this name, or None."""
        return next((d for d in self.datasets if d.name == name), None)

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
        return self
