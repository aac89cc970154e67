"""The SQL guard's rule data: denied functions, system catalogs and safe table functions.

Pure data, no logic beyond name lookups. Every list is applied to every dialect unless it
is keyed by one: a function called `sleep` or a table called `pg_user` is suspect whatever
the database, and failing closed costs far less than a missed side effect.
"""

from __future__ import annotations

from typing import Final, Literal

Dialect = Literal["postgresql", "sqlite", "duckdb", "mysql"]

DIALECTS: Final[tuple[Dialect, ...]] = ("postgresql", "sqlite", "duckdb", "mysql")

# Accepted spellings of each dialect (SQLAlchemy-style names included).
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

# Function name -> why it is refused. Names are compared lower-cased.
DENIED_FUNCTIONS: Final[dict[str, str]] = {
    # sleeping and CPU burning
    "sleep": "sleeps",
    "pg_sleep": "sleeps",
    "pg_sleep_for": "sleeps",
    "pg_sleep_until": "sleeps",
    "sleep_ms": "sleeps",
    "benchmark": "burns CPU on purpose",
    # files, programs and extensions
    "pg_read_file": "reads server files",
    "pg_read_binary_file": "reads server files",
    "pg_ls_dir": "lists server files",
    "pg_stat_file": "reads server file metadata",
    "pg_file_write": "writes server files",
    "lo_import": "reads a server file into a large object",
    "lo_export": "writes a large object to a server file",
    "pg_terminate_backend": "stops other sessions",
    "pg_cancel_backend": "cancels other sessions' queries",
    "pg_reload_conf": "reloads server configuration",
    "pg_advisory_lock": "takes server-wide locks",
    "load_file": "reads server files",
    "readfile": "reads server files",
    "writefile": "writes server files",
    "edit": "starts an editor program",
    "sys_exec": "runs programs",
    "sys_eval": "runs programs",
    "load_extension": "loads native code",
    "fts3_tokenizer": "can load native code",
    "getenv": "reads the server environment",
    "glob": "lists server files",
    "sniff_csv": "reads server files",
    "checkpoint": "writes the database file",
    "force_checkpoint": "writes the database file",
    "which_secret": "reads stored secrets",
    # configuration and session control
    "set_config": "changes server configuration",
    "current_setting": "reads server configuration",
    "get_lock": "takes server-wide locks",
    "release_lock": "releases server-wide locks",
    "release_all_locks": "releases server-wide locks",
    "is_free_lock": "inspects server-wide locks",
    "is_used_lock": "inspects server-wide locks",
    "master_pos_wait": "waits on replication",
    "source_pos_wait": "waits on replication",
    "master_gtid_wait": "waits on replication",
    "wait_for_executed_gtid_set": "waits on replication",
    "inet_server_addr": "reveals the server address",
    "inet_server_port": "reveals the server address",
    "inet_client_addr": "reveals network addresses",
    "inet_client_port": "reveals network addresses",
    # sequences and strings of SQL executed on the side
    "nextval": "advances a sequence",
    "setval": "changes a sequence",
    "query": "runs a string as SQL",
    "query_table": "runs a string as SQL",
    "json_execute_serialized_sql": "runs a string as SQL",
    # memory exhaustion in one uninterruptible step
    "randomblob": "allocates memory in one uninterruptible step",
    "zeroblob": "allocates memory in one uninterruptible step",
}

# Function name prefixes -> why they are refused.
DENIED_FUNCTION_PREFIXES: Final[dict[str, str]] = {
    "pg_": "is a PostgreSQL server administration function",
    "lo_": "touches large objects (server files)",
    "dblink": "opens a connection to another database",
    "read_": "reads server files",
    "parquet_": "reads server files",
    "iceberg_": "reads server files",
    "delta_": "reads server files",
    "postgres_": "reaches another database",
    "mysql_": "reaches another database",
    "sqlite_": "reaches another database or the schema",
    "duckdb_": "reads the system catalog",
    "pragma_": "reads the system catalog",
    "query_to_xml": "runs a string as SQL",
    "table_to_xml": "reads a table by name, around the guard",
    "cursor_to_xml": "reads a cursor by name, around the guard",
    "schema_to_xml": "reads a schema by name, around the guard",
    "database_to_xml": "reads a database by name, around the guard",
    "xp_": "is an extended procedure",
    "sys_": "runs programs",
}

# Harmless functions that a denied prefix would otherwise catch.
ALLOWED_DESPITE_PREFIX: Final[frozenset[str]] = frozenset({"pg_typeof", "sqlite_version"})

# Names denied elsewhere that are plain, harmless functions in one dialect.
DIALECT_ALLOWED_FUNCTIONS: Final[dict[Dialect, frozenset[str]]] = {
    "postgresql": frozenset(),
    "sqlite": frozenset({"glob"}),  # SQLite's GLOB is pattern matching, not a file listing
    "duckdb": frozenset(),
    "mysql": frozenset(),
}

# Table-valued functions allowed in FROM, per dialect. Every other one is refused.
SAFE_TABLE_FUNCTIONS: Final[dict[Dialect, frozenset[str]]] = {
    "postgresql": frozenset(
        {
            "generate_series",
            "exploding_generate_series",
            "unnest",
            "generate_subscripts",
            "regexp_matches",
            "string_to_table",
            "json_each",
            "json_each_text",
            "jsonb_each",
            "jsonb_each_text",
            "json_array_elements",
            "json_array_elements_text",
            "jsonb_array_elements",
            "jsonb_array_elements_text",
            "json_to_recordset",
            "jsonb_to_recordset",
            "json_populate_recordset",
            "jsonb_populate_recordset",
        }
    ),
    "duckdb": frozenset({"range", "generate_series", "exploding_generate_series", "unnest"}),
    "mysql": frozenset({"json_table", "j_s_o_n_table"}),
    # SQLite's table-valued functions are virtual tables the read-only authorizer refuses.
    "sqlite": frozenset(),
}

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


def normalize_dialect(dialect: str) -> Dialect:
    """The product dialect for any accepted spelling; ValueError for an unknown one."""
    key = dialect.strip().lower().split("+", 1)[0]
    if key not in DIALECT_ALIASES:
        raise ValueError(f"unsupported SQL dialect: {dialect!r}")
    return DIALECT_ALIASES[key]


def denied_function_reason(name: str, dialect: Dialect) -> str | None:
    """Why a function may not be called in a dialect, or None when it may."""
    lowered = name.lower()
    if lowered in ALLOWED_DESPITE_PREFIX or lowered in DIALECT_ALLOWED_FUNCTIONS[dialect]:
        return None
    if lowered in DENIED_FUNCTIONS:
        return DENIED_FUNCTIONS[lowered]
    for prefix, reason in DENIED_FUNCTION_PREFIXES.items():
        if lowered.startswith(prefix):
            return reason
    return None


def looks_like_file(name: str) -> bool:
    """True when a table name is really a file path or URL (a replacement scan)."""
    lowered = name.lower()
    return any(m in lowered for m in FILE_NAME_MARKERS) or lowered.endswith(FILE_NAME_SUFFIXES)
