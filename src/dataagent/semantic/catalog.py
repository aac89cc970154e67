"""A database's catalog as plain data: tables, columns, keys, row counts, sample values.

Pure (pydantic only). `sources.introspection` fills it in from a live database; semantic
model generation reads it, so generating a model needs no database driver.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, Field

from dataagent.semantic.model import DataType


class ColumnInfo(BaseModel):
    """One column as the database describes it."""

    name: str
    native_type: str
    nullable: bool = True
    default: str | None = None
    comment: str | None = None
    sample_values: list[str] = Field(default_factory=list)
    distinct_count: int | None = None


class ForeignKeyInfo(BaseModel):
    """A declared foreign key (`columns` of this table reference `referred_*`)."""

    name: str | None = None
    columns: list[str]
    referred_schema: str | None = None
    referred_table: str
    referred_columns: list[str]


class TableInfo(BaseModel):
    """One table or view."""

    schema_name: str
    name: str
    kind: Literal["table", "view"] = "table"
    comment: str | None = None
    columns: list[ColumnInfo]
    primary_key: list[str] = Field(default_factory=list)
    unique_keys: list[list[str]] = Field(default_factory=list)
    foreign_keys: list[ForeignKeyInfo] = Field(default_factory=list)
    row_estimate: int | None = None

    @property
    def qualified_name(self) -> str:
        """`schema.table`, the dataset's `source`."""
        return f"{self.schema_name}.{self.name}"


class SchemaSnapshot(BaseModel):
    """Everything introspection learned about one database."""

    dialect: str
    database: str | None = None
    tables: list[TableInfo] = Field(default_factory=list)


# --- native types -----------------------------------------------------------------------------

_TYPE_RULES: tuple[tuple[str, DataType], ...] = (
    (r"\[\d*\]$|^(array|struct|map|list|union|row)\b|^_", DataType.OTHER),
    (r"^tinyint\(1\)", DataType.BOOLEAN),
    (r"^(bool|boolean|bit\(1\)|bit)$", DataType.BOOLEAN),
    (r"^interval", DataType.OTHER),
    (r"^(timestamp|datetime|smalldatetime|timestamptz)", DataType.TIMESTAMP),
    (r"^date$", DataType.DATE),
    (r"^(time|timetz)\b", DataType.TIME),
    (r"^jsonb?$", DataType.JSON),
    (r"^(numeric|decimal|money|number|smallmoney)\b", DataType.DECIMAL),
    (r"^(float|double|real)", DataType.FLOAT),
    (
        r"^(u?(tiny|small|medium|big|huge)?int(eger)?\d*|int\d|(small|big)?serial\d?"
        r"|unsigned big int|year|oid)$",
        DataType.INTEGER,
    ),
    (r"char|text|clob|string|^(enum|set|uuid|name|citext|xml)\b", DataType.VARCHAR),
    (r"blob|bytea|binary|^bytes", DataType.BINARY),
)


def map_data_type(native_type: str) -> DataType:
    """The logical type of a native column type (`VARCHAR(20)` -> varchar)."""
    native = native_type.strip().lower()
    base = re.sub(r"\s+(unsigned|signed|zerofill)\b", "", native)
    base = re.sub(r"\s*\([^)]*\)\s*$", "", base) if not base.startswith("tinyint(1)") else base
    for pattern, data_type in _TYPE_RULES:
        if re.search(pattern, base):
            return data_type
    return DataType.OTHER
