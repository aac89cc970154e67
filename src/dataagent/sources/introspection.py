"""Introspection of a user database: tables, columns, keys, row counts and sample values.

Catalog reads are batched: SQLAlchemy's `get_multi_*` reflection runs one catalog
query per schema on PostgreSQL, row estimates come from one catalog query, and the
row counts and sample values that need table scans are sent as UNION ALL batches of
many tables at once, each branch bounded by a LIMIT.
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import duckdb
import sqlalchemy as sa
from pydantic import BaseModel, Field
from sqlalchemy.engine.reflection import ObjectKind
from sqlalchemy.pool import StaticPool

from dataagent.dialects import qualified_name, quote_identifier
from dataagent.errors import DataAgentError, ErrorCode
from dataagent.semantic.catalog import (
    ColumnInfo,
    ForeignKeyInfo,
    SchemaSnapshot,
    TableInfo,
    map_data_type,
)
from dataagent.semantic.model import DataType
from dataagent.sources.access import AccessPolicy
from dataagent.sources.engines import ConnectionSpec, open_readonly

_SYSTEM_SCHEMAS = {"information_schema", "pg_catalog", "pg_toast", "mysql", "performance_schema"}
_TEXT_CAST = {"postgresql": "TEXT", "sqlite": "TEXT", "duckdb": "VARCHAR", "mysql": "CHAR"}
_BATCH = 64  # UNION ALL branches per query: few round trips, statements of modest size


class IntrospectionOptions(BaseModel):
    """Knobs of one introspection run (documented in docs/semantic-model.md)."""

    schemas: list[str] | None = Field(None, description="Schemas to read; None = all user ones.")
    include_views: bool = True
    sample_values: bool = True
    sample_max_distinct: int = Field(20, ge=1, description="Most distinct values to sample.")
    sample_scan_rows: int = Field(10_000, ge=1, description="Rows scanned per sampled column.")
    sample_max_chars: int = Field(
        100, ge=1, description="Longer values mean free text: no samples."
    )
    count_rows: bool = True
    exact_count_below: int = Field(
        100_000, ge=0, description="Count exactly when the estimate is missing or below this."
    )
    statement_timeout_s: float = Field(30.0, gt=0)


# --- opening a database -------------------------------------------------------------------------

# SQLAlchemy dialects that wrap our own drivers' connections (reflection needs a dialect).
_SQLALCHEMY_DIALECTS = {
    "postgresql": "postgresql+psycopg://",
    "mysql": "mysql+pymysql://",
    "sqlite": "sqlite://",
}


def introspect(
    spec: ConnectionSpec, policy: AccessPolicy, options: IntrospectionOptions | None = None
) -> SchemaSnapshot:
    """Read the schema of a database into a snapshot, through the one read-only opener.

    The session is the executor's own (same access policy, same hardening, same URL
    parameters), opened with catalog access; SQLAlchemy's reflection runs on its connection.
    """
    options = options or IntrospectionOptions()
    with open_readonly(
        spec, policy, timeout_s=options.statement_timeout_s, catalog_access=True
    ) as session:
        raw = session.raw_connection
        if spec.dialect == "duckdb":
            return introspect_duckdb(raw, options)
        engine = sa.create_engine(
            _SQLALCHEMY_DIALECTS[spec.dialect],
            creator=lambda: raw,
            poolclass=StaticPool,
            pool_reset_on_return=None,  # the session's read-only transaction stays open
        )
        try:
            with engine.connect() as conn:
                return introspect_connection(conn, options)
        except sa.exc.DBAPIError as exc:
            raise DataAgentError(
                ErrorCode.QUERY_FAILED, "Could not read the database's schema."
            ) from exc
        # No engine.dispose(): the connection is the session's, closed when the session ends.


# --- SQLAlchemy dialects (PostgreSQL, SQLite, MySQL/MariaDB) ------------------------------------


def _native(type_: Any, dialect: sa.Dialect) -> str:
    if isinstance(type_, sa.types.NullType):
        return ""
    try:
        native = str(type_.compile(dialect=dialect))
    except Exception:  # a type the dialect cannot render: its class name still says a lot
        return type(type_).__name__
    # a PostgreSQL enum renders as its bare type name; say what it is
    if isinstance(type_, sa.Enum) and not native.upper().startswith("ENUM"):
        return f"ENUM({native})"
    return native


def _user_schemas(conn: sa.Connection, insp: sa.Inspector) -> list[str]:
    name = conn.dialect.name
    if name == "sqlite":
        return ["main"]
    if name == "mysql":
        if not insp.default_schema_name:
            raise DataAgentError(ErrorCode.VALIDATION_ERROR, "Name a database to introspect.")
        return [insp.default_schema_name]
    return sorted(
        s for s in insp.get_schema_names() if s not in _SYSTEM_SCHEMAS and not s.startswith("pg_")
    )


def introspect_connection(conn: sa.Connection, options: IntrospectionOptions) -> SchemaSnapshot:
    """Introspect through an open SQLAlchemy connection (PostgreSQL, SQLite, MySQL/MariaDB)."""
    dialect = conn.dialect.name
    insp = sa.inspect(conn)
    kind = ObjectKind.ANY if options.include_views else ObjectKind.TABLE
    tables: list[TableInfo] = []
    for schema in options.schemas or _user_schemas(conn, insp):
        with warnings.catch_warnings():
            # unknown column types and expression indexes only warn; we record them as-is
            warnings.simplefilter("ignore", sa.exc.SAWarning)
            columns = insp.get_multi_columns(schema=schema, kind=kind)
            pks = insp.get_multi_pk_constraint(schema=schema)
            fks = insp.get_multi_foreign_keys(schema=schema)
            uniques = insp.get_multi_unique_constraints(schema=schema)
            indexes = insp.get_multi_indexes(schema=schema)
            comments: dict[Any, Any] = {}
            with contextlib.suppress(NotImplementedError):  # SQLite keeps no comments
                comments = dict(insp.get_multi_table_comment(schema=schema, kind=kind))
        views = set(insp.get_view_names(schema)) if options.include_views else set()
        if options.include_views and dialect == "postgresql":
            views |= set(insp.get_materialized_view_names(schema))
        for key in sorted(columns, key=lambda k: k[1]):
            unique_keys: list[list[Any]] = [list(u["column_names"]) for u in uniques.get(key, [])]
            unique_keys += [list(i["column_names"]) for i in indexes.get(key, []) if i["unique"]]
            tables.append(
                TableInfo(
                    schema_name=schema,
                    name=key[1],
                    kind="view" if key[1] in views else "table",
                    comment=(comments.get(key) or {}).get("text"),
                    columns=[
                        ColumnInfo(
                            name=c["name"],
                            native_type=_native(c["type"], conn.dialect),
                            nullable=bool(c.get("nullable", True)),
                            default=None if c.get("default") is None else str(c["default"]),
                            comment=c.get("comment"),
                        )
                        for c in columns[key]
                    ],
                    primary_key=list(pks[key]["constrained_columns"] if key in pks else []),
                    unique_keys=[list(u) for u in unique_keys if u and None not in u],
                    foreign_keys=[
                        ForeignKeyInfo(
                            name=fk.get("name"),
                            columns=fk["constrained_columns"],
                            referred_schema=fk.get("referred_schema") or schema,
                            referred_table=fk["referred_table"],
                            referred_columns=fk.get("referred_columns") or [],
                        )
                        for fk in fks.get(key, [])
                    ],
                )
            )
    if dialect == "postgresql":
        tables = _postgres_fixups(conn, tables)
    _apply_estimates(tables, _catalog_estimates(conn, dialect, tables))
    runner = _sqlalchemy_runner(conn)
    _fill_counts_and_samples(tables, dialect, runner, options, skip_counts=False)
    database = None if dialect == "sqlite" else conn.exec_driver_sql(_CURRENT_DB[dialect]).scalar()
    return SchemaSnapshot(dialect=dialect, database=database, tables=tables)


def _postgres_fixups(conn: sa.Connection, tables: list[TableInfo]) -> list[TableInfo]:
    """Drop partitions (their parent is the dataset); name types SQLAlchemy does not know."""
    schemas = sorted({t.schema_name for t in tables})
    if not schemas:
        return tables
    partitions = {
        (schema, name)
        for schema, name in conn.execute(
            sa.text(
                "SELECT n.nspname, c.relname FROM pg_class c "
                "JOIN pg_namespace n ON n.oid = c.relnamespace "
                "WHERE c.relispartition AND n.nspname IN :schemas"
            ).bindparams(sa.bindparam("schemas", expanding=True)),
            {"schemas": schemas},
        )
    }
    tables = [t for t in tables if (t.schema_name, t.name) not in partitions]
    if any(c.native_type == "" for t in tables for c in t.columns):
        names = {
            (schema, table, column): type_name
            for schema, table, column, type_name in conn.execute(
                sa.text(
                    "SELECT n.nspname, c.relname, a.attname, format_type(a.atttypid, a.atttypmod) "
                    "FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid "
                    "JOIN pg_namespace n ON n.oid = c.relnamespace "
                    "WHERE a.attnum > 0 AND NOT a.attisdropped AND n.nspname IN :schemas"
                ).bindparams(sa.bindparam("schemas", expanding=True)),
                {"schemas": schemas},
            )
        }
        for t in tables:
            for c in t.columns:
                if c.native_type == "":
                    c.native_type = names.get((t.schema_name, t.name, c.name), "")
    return tables


_CURRENT_DB = {"postgresql": "SELECT current_database()", "mysql": "SELECT DATABASE()"}


def _catalog_estimates(
    conn: sa.Connection, dialect: str, tables: list[TableInfo]
) -> dict[tuple[str, str], int]:
    schemas = sorted({t.schema_name for t in tables})
    if not schemas or dialect == "sqlite":
        return {}
    if dialect == "postgresql":
        query = sa.text(
            "SELECT n.nspname, c.relname, c.reltuples::bigint FROM pg_class c "
            "JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE c.relkind IN ('r', 'p', 'm') AND n.nspname IN :schemas AND c.reltuples >= 0"
        )
    else:
        query = sa.text(
            "SELECT table_schema, table_name, table_rows FROM information_schema.tables "
            "WHERE table_schema IN :schemas AND table_rows IS NOT NULL"
        )
    query = query.bindparams(sa.bindparam("schemas", expanding=True))
    return {(s, t): int(n) for s, t, n in conn.execute(query, {"schemas": schemas})}


def _apply_estimates(tables: list[TableInfo], estimates: dict[tuple[str, str], int]) -> None:
    for table in tables:
        table.row_estimate = estimates.get((table.schema_name, table.name))


Runner = Callable[[str], list[tuple[Any, ...]] | None]


def _sqlalchemy_runner(conn: sa.Connection) -> Runner:
    def run(sql: str) -> list[tuple[Any, ...]] | None:
        # A savepoint per statement: a failing one is undone alone, and the session's
        # read-only transaction (with its time limits) goes on.
        try:
            with conn.begin_nested():
                return [tuple(r) for r in conn.exec_driver_sql(sql).fetchall()]
        except sa.exc.DBAPIError:
            return None

    return run


# --- DuckDB ---------------------------------------------------------------------------------------


def introspect_duckdb(
    conn: duckdb.DuckDBPyConnection, options: IntrospectionOptions | None = None
) -> SchemaSnapshot:
    """Introspect an open DuckDB connection through its catalog functions."""
    options = options or IntrospectionOptions()
    database = conn.execute("SELECT current_database()").fetchone()[0]  # type: ignore[index]
    schemas = options.schemas
    table_rows = conn.execute(
        "SELECT schema_name, table_name, comment, estimated_size FROM duckdb_tables() "
        "WHERE database_name = current_database() AND NOT internal AND NOT temporary"
    ).fetchall()
    found: dict[tuple[str, str], TableInfo] = {}
    for schema, name, comment, size in table_rows:
        found[(schema, name)] = TableInfo(
            schema_name=schema, name=name, comment=comment, columns=[], row_estimate=size
        )
    if options.include_views:
        for schema, name, comment in conn.execute(
            "SELECT schema_name, view_name, comment FROM duckdb_views() "
            "WHERE database_name = current_database() AND NOT internal"
        ).fetchall():
            found[(schema, name)] = TableInfo(
                schema_name=schema, name=name, kind="view", comment=comment, columns=[]
            )
    for schema, table, name, native, nullable, default, comment in conn.execute(
        "SELECT schema_name, table_name, column_name, data_type, is_nullable, column_default, "
        "comment FROM duckdb_columns() WHERE database_name = current_database() "
        "ORDER BY schema_name, table_name, column_index"
    ).fetchall():
        if (schema, table) in found:
            found[(schema, table)].columns.append(
                ColumnInfo(
                    name=name,
                    native_type=native,
                    nullable=nullable,
                    default=default,
                    comment=comment,
                )
            )
    for schema, table, kind, cols, ref_table, ref_cols, cname in conn.execute(
        "SELECT schema_name, table_name, constraint_type, constraint_column_names, "
        "referenced_table, referenced_column_names, constraint_name FROM duckdb_constraints() "
        "WHERE database_name = current_database() "
        "AND constraint_type IN ('PRIMARY KEY', 'UNIQUE', 'FOREIGN KEY') ORDER BY constraint_index"
    ).fetchall():
        info = found.get((schema, table))
        if info is None:
            continue
        if kind == "PRIMARY KEY":
            info.primary_key = list(cols)
        elif kind == "UNIQUE":
            info.unique_keys.append(list(cols))
        else:
            info.foreign_keys.append(
                ForeignKeyInfo(
                    name=cname,
                    columns=list(cols),
                    referred_schema=schema,
                    referred_table=ref_table,
                    referred_columns=list(ref_cols),
                )
            )
    tables = [
        t
        for key, t in sorted(found.items())
        if t.columns and key[0] not in _SYSTEM_SCHEMAS and (not schemas or key[0] in schemas)
    ]

    def run(sql: str) -> list[tuple[Any, ...]] | None:
        try:
            return conn.execute(sql).fetchall()
        except duckdb.Error:
            return None

    _fill_counts_and_samples(tables, "duckdb", run, options, skip_counts=True)
    return SchemaSnapshot(dialect="duckdb", database=database, tables=tables)


# --- row counts and sample values ----------------------------------------------------------------


def _table_ref(dialect: str, table: TableInfo) -> str:
    return qualified_name((table.schema_name, table.name), dialect)


def _run_branches(run: Runner, branches: Sequence[str]) -> list[tuple[Any, ...]]:
    """Run UNION ALL batches; a failing batch is retried branch by branch, bad ones skipped."""
    rows: list[tuple[Any, ...]] = []
    for start in range(0, len(branches), _BATCH):
        batch = branches[start : start + _BATCH]
        result = run(" UNION ALL ".join(batch))
        if result is None and len(batch) > 1:
            for branch in batch:
                result = run(branch)
                rows.extend(result or [])
        else:
            rows.extend(result or [])
    return rows


def _fill_counts_and_samples(
    tables: list[TableInfo],
    dialect: str,
    run: Runner,
    options: IntrospectionOptions,
    *,
    skip_counts: bool,
) -> None:
    real = [t for t in tables if t.kind == "table"]  # views may hide costly queries: not scanned
    if options.count_rows and not skip_counts:
        to_count = [
            t for t in real if t.row_estimate is None or t.row_estimate < options.exact_count_below
        ]
        branches = [
            f"SELECT {i} AS k, COUNT(*) AS n FROM {_table_ref(dialect, t)}"  # noqa: S608
            for i, t in enumerate(to_count)
        ]
        for k, n in _run_branches(run, branches):
            to_count[int(k)].row_estimate = int(n)
    if not options.sample_values:
        return
    targets = [
        (t, c)
        for t in real
        for c in t.columns
        if t.row_estimate != 0 and map_data_type(c.native_type) is DataType.VARCHAR
    ]
    # one more than the maximum tells "too many to list"; no ORDER BY is needed, since a
    # column either returns all its values (then sorted here) or is dropped
    limit = options.sample_max_distinct + 1
    branches = []
    for i, (table, column) in enumerate(targets):
        col = quote_identifier(column.name, dialect)
        branches.append(
            f"SELECT {i} AS k, v FROM (SELECT DISTINCT CAST({col} AS {_TEXT_CAST[dialect]}) AS v "  # noqa: S608
            f"FROM (SELECT {col} FROM {_table_ref(dialect, table)} "
            f"LIMIT {options.sample_scan_rows}) s WHERE {col} IS NOT NULL LIMIT {limit}) d{i}"
        )
    values: dict[int, list[str]] = {}
    for k, v in _run_branches(run, branches):
        values.setdefault(int(k), []).append(str(v))
    for i, found in values.items():
        column = targets[i][1]
        too_long = any(len(v) > options.sample_max_chars for v in found)
        if len(found) <= options.sample_max_distinct and not too_long:
            column.sample_values = sorted(found)
            column.distinct_count = len(found)
