"""The SQL dialects Data Agent speaks: their names, spellings, sqlglot names and quoting.

A leaf module (sqlglot and the error taxonomy only), defined once: the guard, the executor,
introspection, the QueryPlan compiler, the semantic model, the demo loaders and the API all
take their dialect words from here.
"""

from __future__ import annotations

from typing import Final, Literal

from sqlglot import exp

from dataagent.errors import DataAgentError, ErrorCode

Dialect = Literal["postgresql", "sqlite", "duckdb", "mysql"]

DIALECTS: Final[tuple[Dialect, ...]] = ("postgresql", "sqlite", "duckdb", "mysql")

# Dialects whose database is a file on the server (the access policy's file rules apply).
FILE_DIALECTS: Final[frozenset[Dialect]] = frozenset({"sqlite", "duckdb"})

# Accepted spellings of each dialect (SQLAlchemy-style URL schemes included).
DIALECT_ALIASES: Final[dict[str, Dialect]] = {
    "postgresql": "postgresql",
    "postgres": "postgresql",
    "pg": "postgresql",
    "sqlite": "sqlite",
    "duckdb": "duckdb",
    "mysql": "mysql",
    "mariadb": "mysql",
}

# The sqlglot dialect that reads and writes each product dialect.
SQLGLOT_DIALECT: Final[dict[Dialect, str]] = {
    "postgresql": "postgres",
    "sqlite": "sqlite",
    "duckdb": "duckdb",
    "mysql": "mysql",
}


def normalize_dialect(dialect: str) -> Dialect:
    """The product dialect for any accepted spelling (`postgres`, `mariadb+pymysql`, ...).

    ValueError for an unknown one.
    """
    key = dialect.strip().lower().split("+", 1)[0]
    if key not in DIALECT_ALIASES:
        raise ValueError(
            f"unsupported SQL dialect: {dialect!r} (choose from {', '.join(DIALECTS)})"
        )
    return DIALECT_ALIASES[key]


def sqlglot_name(dialect: str) -> str:
    """The sqlglot name of a product dialect in any accepted spelling (VALIDATION_ERROR else)."""
    try:
        return SQLGLOT_DIALECT[normalize_dialect(dialect)]
    except ValueError:
        raise DataAgentError(
            ErrorCode.VALIDATION_ERROR,
            f"Unsupported dialect {dialect!r} (choose from {', '.join(DIALECTS)}).",
        ) from None


def quote_identifier(name: str, dialect: str) -> str:
    """`name` as a quoted identifier of the dialect (`"a""b"`, or MySQL's `` `a` ``)."""
    return exp.to_identifier(name, quoted=True).sql(dialect=sqlglot_name(dialect))


def qualified_name(parts: tuple[str, ...] | list[str], dialect: str) -> str:
    """Dotted, each part quoted: `"sales"."orders"`."""
    return ".".join(quote_identifier(part, dialect) for part in parts)
