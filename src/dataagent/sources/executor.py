"""The one function that runs SQL against a user's database.

In order: the SQL guard (one read query, no side effects, allowed tables only), the row cap
written into the statement, a hardened read-only session opened under the caller's access
policy, the time limit, rows fetched one at a time and made JSON-safe until the row, byte or
cell caps stop the fetch, and errors with secrets removed. DuckDB, which runs inside the
process that opens it, runs in a child process with its own memory limit. The caller records
the run from the returned QueryResult (or from `QueryError.result` on failure).
"""

from __future__ import annotations

import time
from collections.abc import Collection, Iterator
from typing import Any

from dataagent.errors import DataAgentError, ErrorCode
from dataagent.sources.access import AccessPolicy
from dataagent.sources.engines import ConnectionSpec, open_readonly
from dataagent.sources.guard import check_sql
from dataagent.sources.isolation import run_isolated
from dataagent.sources.results import (
    PILOT_ROWS,
    QueryError,
    QueryResult,
    build_result,
    failed_result,
)
from dataagent.sources.sessions import DEFAULT_MEMORY_MB, Row

DEFAULT_MAX_ROWS = 500
DEFAULT_TIMEOUT_S = 30.0
DEFAULT_MAX_BYTES = 5_000_000
DEFAULT_MAX_CELL_CHARS = 2000
# Engines that run inside the process that opens them and whose own memory limit does not
# bound a result: their queries run in a child process (see sources/isolation.py).
ISOLATED_DIALECTS = frozenset({"duckdb"})
SHARED_CONNECTION_FAILED = (
    "The ontology's database could not be reached; its owner can check the connection."
)


def execute_query(
    spec: ConnectionSpec,
    sql: str,
    *,
    policy: AccessPolicy,
    allowed_tables: Collection[str] | None = None,
    max_rows: int = DEFAULT_MAX_ROWS,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_cell_chars: int = DEFAULT_MAX_CELL_CHARS,
    memory_mb: int = DEFAULT_MEMORY_MB,
    pilot: bool = False,
    shared: bool = False,
    guard_enabled: bool = True,
) -> QueryResult:
    """Run one read-only query safely; raise QueryError (a DataAgentError) on any failure.

    `policy` says which files, accounts and database role may be used. `pilot=True` caps
    the result at 10 rows. `shared=True` (the asker is not the connection's owner) turns a
    failure to connect into a sentence that says nothing about the connection.
    `guard_enabled=False` is for tests only: it skips the SQL guard (and the row-cap
    rewrite) to prove the database layer alone holds.
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
            # On MySQL a database is a schema: queries stay in the connection's own.
            home = spec.endpoint().database if spec.dialect == "mysql" else None
            approved = check_sql(sql, spec.dialect, allowed_tables, database=home)
            # One row past the cap tells a truncated result from one that fits exactly.
            record["executed_sql"] = approved.limited_sql(row_cap + 1)
            record["tables"] = [t.qualified for t in approved.tables]
        else:
            record["executed_sql"] = sql
        work = (spec, policy, timeout_s, memory_mb, row_cap, max_bytes, max_cell_chars, record)
        if spec.dialect in ISOLATED_DIALECTS:
            return run_isolated(_run, *work, timeout_s=timeout_s, memory_mb=memory_mb)
        return _run(*work)
    except DataAgentError as error:
        if shared and error.code is ErrorCode.CONNECTION_FAILED:
            error = DataAgentError(ErrorCode.CONNECTION_FAILED, SHARED_CONNECTION_FAILED)
        record.setdefault("execution_ms", _ms_since(started))
        result = failed_result(error, max_rows=row_cap, **record)
        raise QueryError(error.code, error.message, result) from None


def _run(
    spec: ConnectionSpec,
    policy: AccessPolicy,
    timeout_s: float,
    memory_mb: int,
    row_cap: int,
    max_bytes: int,
    max_cell_chars: int,
    record: dict[str, Any],
) -> QueryResult:
    """Open the session, stream the statement's rows into a capped result, close."""
    with open_readonly(spec, policy, timeout_s=timeout_s, memory_mb=memory_mb) as session:
        ran = time.perf_counter()

        def capped(columns: list[str], rows: Iterator[Row]) -> QueryResult:
            return build_result(
                columns,
                rows,
                max_rows=row_cap,
                max_bytes=max_bytes,
                max_cell_chars=max_cell_chars,
                **record,
            )

        result = session.stream(record["executed_sql"], capped, max_chars=max_cell_chars)
    result.execution_ms = _ms_since(ran)
    return result


def _ms_since(start: float) -> int:
    return round((time.perf_counter() - start) * 1000)
