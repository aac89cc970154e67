"""The SQL guard's rule data: system catalogs, file markers, default schemas.

Pure data, no logic beyond name lookups. Every list is applied to every dialect unless it
is keyed by one: a table called `pg_user` is suspect whatever the database, and failing
closed costs far less than a missed side effect. Which functions a query may call is in
`sources/functions.py`.
"""

from __future__ import annotations

from typing import Final

from dataagent.dialects import Dialect

# PostgreSQL object-identifier types: a cast to one looks a catalog object up by name.
OBJECT_IDENTIFIER_TYPES: Final[frozenset[str]] = frozenset(
    {
        "regclass",
        "regcollation",
        "regconfig",
        "regdictionary",
        "regnamespace",
        "regoper",
        "regoperator",
        "regproc",
        "regprocedure",
        "regrole",
        "regtype",
    }
)

# Schemas (or catalogs) that hold system catalogs.
SYSTEM_SCHEMAS: Final[frozenset[str]] = frozenset(
    {
        "pg_catalog",
        "information_schema",
        "pg_toast",
        "mysql",
        "performance_schema",
        "sys",
        "system",
    }
)

# Table name prefixes of system catalogs in any dialect.
SYSTEM_TABLE_PREFIXES: Final[tuple[str, ...]] = ("pg_", "sqlite_", "duckdb_", "pragma_")

# Table names that point at files rather than tables (DuckDB replacement scans).
FILE_NAME_MARKERS: Final[tuple[str, ...]] = ("/", "\\", "://", "~")
FILE_NAME_SUFFIXES: Final[tuple[str, ...]] = (
    ".csv",
    ".tsv",
    ".txt",
    ".parquet",
    ".json",
    ".jsonl",
    ".ndjson",
    ".gz",
    ".zst",
    ".xlsx",
    ".arrow",
    ".db",
    ".duckdb",
    ".sqlite",
)

# The schema a bare allow-list entry stands for, per dialect (None: unknown to the guard).
DEFAULT_SCHEMAS: Final[dict[Dialect, frozenset[str]]] = {
    "postgresql": frozenset({"public"}),
    "sqlite": frozenset({"main"}),
    "duckdb": frozenset({"main"}),
    "mysql": frozenset(),
}


def looks_like_file(name: str) -> bool:
    """True when a table name is really a file path or URL (a replacement scan)."""
    lowered = name.lower()
    return any(m in lowered for m in FILE_NAME_MARKERS) or lowered.endswith(FILE_NAME_SUFFIXES)
