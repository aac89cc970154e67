"""Write the demo data to a DuckDB or SQLite file, or load it into PostgreSQL.

Each loader creates the tables with their primary, unique, check and foreign keys (so
introspection finds the relationships) and bulk-loads the rows in foreign-key-safe order.
"""

from __future__ import annotations

import contextlib
import io
import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pandas as pd
import pyarrow as pa
import pyarrow.csv as pa_csv

from dataagent.demo.generator import DemoData
from dataagent.demo.schema import (
    SCHEMA,
    Table,
    add_foreign_keys_sql,
    column_type,
    comment_sql,
    create_table_sql,
    foreign_key_index_sql,
)
from dataagent.errors import DataAgentError, ErrorCode

_DATE_FORMATS = {"date": "%Y-%m-%d", "timestamp": "%Y-%m-%d %H:%M:%S"}


def _as_text_dates(frame: pd.DataFrame, table: Table) -> pd.DataFrame:
    """The frame in table column order, dates as ISO text (how SQLite and COPY want them)."""
    out = frame[table.column_names].copy()
    for column in table.columns:
        if column.kind in _DATE_FORMATS:
            out[column.name] = out[column.name].dt.strftime(_DATE_FORMATS[column.kind])
    return out


@contextlib.contextmanager
def _replacing(path: Path) -> Iterator[Path]:
    """A temporary sibling of `path` that replaces it only once fully written."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    for leftover in (temporary, temporary.with_name(temporary.name + ".wal")):
        leftover.unlink(missing_ok=True)
    try:
        yield temporary
        # A stale write-ahead log next to the target would be replayed into the new file.
        for stale in (".wal", "-wal", "-shm", "-journal"):
            path.with_name(path.name + stale).unlink(missing_ok=True)
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


def write_duckdb(data: DemoData, path: Path | str) -> None:
    """Write the demo database to a DuckDB file, replacing any file already there."""
    frames = data.tables()
    with _replacing(Path(path)) as temporary:
        connection = duckdb.connect(str(temporary))
        try:
            for table in SCHEMA:
                connection.execute(create_table_sql(table, "duckdb"))
                for statement in comment_sql(table):
                    connection.execute(statement)
                # Explicit casts: float64 prices become exact DECIMALs, datetimes become DATEs.
                select = ", ".join(
                    f"CAST({column.name} AS {column_type(column, 'duckdb')})"
                    for column in table.columns
                )
                connection.register("demo_frame", frames[table.name])
                connection.execute(f"INSERT INTO {table.name} SELECT {select} FROM demo_frame")  # noqa: S608
                connection.unregister("demo_frame")
            connection.execute("CHECKPOINT")
        finally:
            connection.close()


def write_sqlite(data: DemoData, path: Path | str) -> None:
    """Write the demo database to a SQLite file, replacing any file already there."""
    frames = data.tables()
    target = Path(path)
    with _replacing(target) as temporary, contextlib.closing(sqlite3.connect(temporary)) as db:
        # The file is renamed into place only when complete, so no journal is needed.
        db.execute("PRAGMA journal_mode = OFF")
        db.execute("PRAGMA synchronous = OFF")
        db.execute("PRAGMA foreign_keys = ON")
        for table in SCHEMA:
            db.execute(create_table_sql(table, "sqlite"))
            frame = _as_text_dates(frames[table.name], table)
            columns = [frame[name].tolist() for name in table.column_names]
            placeholders = ", ".join("?" for _ in table.columns)
            db.executemany(
                f"INSERT INTO {table.name} VALUES ({placeholders})",  # noqa: S608
                zip(*columns, strict=True),
            )
            for statement in foreign_key_index_sql(table):
                db.execute(statement)
        db.commit()
        db.execute("ANALYZE")


def _csv(frame: pd.DataFrame, table: Table) -> bytes:
    """The rows as CSV for COPY. Arrow writes floats in their shortest exact form (12.34)."""
    buffer = io.BytesIO()
    arrow = pa.Table.from_pandas(_as_text_dates(frame, table), preserve_index=False)
    pa_csv.write_csv(arrow, buffer, pa_csv.WriteOptions(include_header=False))
    return buffer.getvalue()


def _libpq_url(url: str) -> str:
    """Accept SQLAlchemy-style URLs (postgresql+psycopg://) as well as plain libpq ones."""
    scheme, separator, rest = url.partition("://")
    if separator and "+" in scheme:
        return f"{scheme.split('+', 1)[0]}://{rest}"
    return url


def load_postgres(data: DemoData, url: str, schema: str = "public") -> None:
    """Load the demo data into PostgreSQL, dropping and recreating its own tables first."""
    import psycopg
    from psycopg import sql

    try:
        connection = psycopg.connect(_libpq_url(url), connect_timeout=10)
    except psycopg.Error as exc:
        # psycopg's message names the host and port; keep it out of what users see.
        raise DataAgentError(
            ErrorCode.CONNECTION_FAILED, "Could not connect to PostgreSQL to load the demo data."
        ) from exc
    frames = data.tables()
    try:
        with connection, connection.cursor() as cursor:
            qualifier = sql.Identifier(schema).as_string(connection) + "."
            cursor.execute(sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(sql.Identifier(schema)))
            for table in reversed(SCHEMA):
                cursor.execute(f"DROP TABLE IF EXISTS {qualifier}{table.name}")
            for table in SCHEMA:
                # Foreign keys are added after the load: one bulk check per key instead of a
                # trigger per row, which is several times faster.
                cursor.execute(create_table_sql(table, "postgresql", qualifier, foreign_keys=False))
                for statement in comment_sql(table, qualifier):
                    cursor.execute(statement)
                columns = ", ".join(table.column_names)
                copy_sql = f"COPY {qualifier}{table.name} ({columns}) FROM STDIN (FORMAT csv)"
                with cursor.copy(copy_sql) as copy:
                    copy.write(_csv(frames[table.name], table))
            for table in SCHEMA:
                for statement in add_foreign_keys_sql(table, qualifier):
                    cursor.execute(statement)
                for statement in foreign_key_index_sql(table, qualifier):
                    cursor.execute(statement)
                cursor.execute(f"ANALYZE {qualifier}{table.name}")
    except psycopg.Error as exc:
        detail = exc.diag.message_primary or exc.__class__.__name__
        raise DataAgentError(
            ErrorCode.QUERY_FAILED, f"Loading the demo data into PostgreSQL failed: {detail}"
        ) from exc
    finally:
        connection.close()
