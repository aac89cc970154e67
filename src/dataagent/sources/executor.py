"""The one function that runs SQL against a user's database.

In order: the SQL guard (one read query, no side effects, allowed tables only), the row cap
written into the statement, a hardened read-only session, the time limit, JSON-safe results
capped by rows, bytes and cell length, and errors with secrets removed. The caller records
the run from the returned QueryResult (or from `QueryError.result` on failure).
"""

from __future__ import annotations

import time
from collections.abc import Collection
from typing import Any

from dataagent.config import Settings
from dataagent.errors import DataAgentError
from dataagent.sources.engines import ConnectionSpec, open_readonly
from dataagent.sources.guard import check_sql
from dataagent.sources.results import (
    PILOT_ROWS,
    QueryError,
    QueryResult,
    build_result,
    failed_result,
)

DEFAULT_MAX_ROWS = 500
DEFAULT_TIMEOUT_S = 30.0
DEFAULT_MAX_BYTES = 5_000_000
DEFAULT_MAX_CELL_CHARS = 2000


def execute_query(
    spec: ConnectionSpec,
    sql: str,
    *,
    allowed_tables: Collection[str] | None = None,
    max_rows: int = DEFAULT_MAX_ROWS,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_cell_chars: int = DEFAULT_MAX_CELL_CHARS,
    pilot: bool = False,
    guard_enabled: bool = True,
) -> QueryResult:
    """Run one read-only query safely; raise QueryError (a DataAgentError) on any failure.

    `pilot=True` caps the result at 10 rows. `guard_enabled=False` is for tests only: it
    skips the SQL guard (and the row-cap rewrite) to prove the database layer alone holds.
    """
    row_cap = min(PILOT_ROWS, max_rows) if pilot else max_rows
    record: dict[str, Any] = {
        "dialect": spec.dialect,
        "sql": sql,
        "pilot": pilot,
    }
    started = time.perf_counter()
    try:
        if guard_enabled:
            approved = check_sql(sql, spec.dialect, allowed_tables)
            # One row past the cap tells a truncated result from one that fits exactly.
            record["executed_sql"] = approved.limited_sql(row_cap + 1)
            record["tables"] = [t.qualified for t in approved.tables]
        else:
            record["executed_sql"] = sql
        with open_readonly(spec, timeout_s=timeout_s) as session:
            ran = time.perf_counter()
            columns, rows = session.fetch(record["executed_sql"], max_rows=row_cap + 1)
            record["execution_ms"] = _ms_since(ran)
        return build_result(
            columns,
            rows,
            max_rows=row_cap,
            max_bytes=max_bytes,
            max_cell_chars=max_cell_chars,
            **record,
        )
    except DataAgentError as error:
        record.setdefault("execution_ms", _ms_since(started))
        result = failed_result(error, max_rows=row_cap, **record)
        raise QueryError(error.code, error.message, result) from None


def execute_with_settings(
    spec: ConnectionSpec,
    sql: str,
    settings: Settings,
    *,
    allowed_tables: Collection[str] | None = None,
    pilot: bool = False,
) -> QueryResult:
    """`execute_query` with the limits taken from Settings (query_* fields)."""
    return execute_query(
        spec,
        sql,
        allowed_tables=allowed_tables,
        max_rows=settings.query_max_rows,
        timeout_s=settings.query_timeout_s,
        max_bytes=settings.query_max_bytes,
        max_cell_chars=settings.query_max_cell_chars,
        pilot=pilot,
    )


def _ms_since(start: float) -> int:
    return round((time.perf_counter() - start) * 1000)
