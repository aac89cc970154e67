"""Read-only database sessions, one class per dialect, each hardened at the database layer.

Every session is opened for one unit of work and closed after it: no connection, and so no
session state, is ever reused across queries. Each `fetch` runs exactly one statement through
a protocol that cannot carry two, under a server-side time limit plus a client-side watchdog.
"""

from __future__ import annotations

import logging
import math
import sqlite3
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from types import TracebackType
from typing import Any, ClassVar
from urllib.parse import quote

import duckdb
import psycopg
import pymysql
from psycopg import sql as pgsql

from dataagent.errors import DataAgentError, ErrorCode
from dataagent.sources.driver_errors import TIMEOUT_MESSAGE, query_error
from dataagent.sources.functions import is_allowed_function
from dataagent.sources.policy import Dialect

log = logging.getLogger(__name__)

DRIVER_ERRORS: tuple[type[BaseException], ...] = (
    psycopg.Error,
    pymysql.err.MySQLError,
    sqlite3.Error,
    duckdb.Error,
)
Rows = list[tuple[Any, ...]]

# DuckDB resource limits for one query session.
DUCKDB_MEMORY_LIMIT = "1GB"
DUCKDB_THREADS = 2
# SQLite: how many virtual-machine steps between two looks at the clock.
SQLITE_PROGRESS_STEPS = 1000
# PRAGMAs that only read the schema, allowed when a session is opened for introspection.
SQLITE_CATALOG_PRAGMAS = frozenset(
    {"table_info", "table_xinfo", "index_list", "index_info", "index_xinfo", "foreign_key_list"}
)


class Watchdog:
    """Runs an interrupt action if a block is still running after `seconds`."""

    def __init__(self, seconds: float, action: Callable[[], None]) -> None:
        self.fired = False
        self._action = action
        self._timer = threading.Timer(max(seconds, 0.0), self._fire)
        self._timer.daemon = True

    def _fire(self) -> None:
        self.fired = True
        try:
            self._action()
        except Exception:  # the statement still ends through the server-side limit
            log.warning("query watchdog could not interrupt the statement", exc_info=True)

    def __enter__(self) -> Watchdog:
        self._timer.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._timer.cancel()
        self._timer.join()


class ReadOnlySession(ABC):
    """One read-only connection; `fetch` runs one statement under the time limit."""

    dialect: ClassVar[Dialect]
    paramstyle: ClassVar[str]
    # Extra seconds the client-side watchdog waits for the server-side limit to act first.
    watchdog_grace_s: ClassVar[float] = 0.0
    server_version: str = ""

    def __init__(self, timeout_s: float, secrets: Sequence[str | None]) -> None:
        self.timeout_s = timeout_s
        self.secrets = list(secrets)

    def fetch(
        self, sql: str, *, max_rows: int, params: Sequence[Any] | None = None
    ) -> tuple[list[str], Rows]:
        """Run one statement; return its column names and at most `max_rows` rows."""
        started = time.monotonic()
        watchdog = Watchdog(self.timeout_s + self.watchdog_grace_s, self._interrupt)
        try:
            with watchdog:
                columns, rows = self._run(sql, params, max_rows)
        except DRIVER_ERRORS as exc:
            timed_out = watchdog.fired or time.monotonic() - started >= self.timeout_s
            raise query_error(exc, self.dialect, self.secrets, timed_out=timed_out) from None
        if watchdog.fired or time.monotonic() - started >= self.timeout_s:
            # Some servers end an interrupted SLEEP or BENCHMARK with a normal row.
            raise DataAgentError(ErrorCode.QUERY_TIMEOUT, TIMEOUT_MESSAGE)
        return columns, rows

    @abstractmethod
    def _run(self, sql: str, params: Sequence[Any] | None, max_rows: int) -> tuple[list[str], Rows]:
        """Execute one statement and fetch up to `max_rows` rows."""

    @abstractmethod
    def _interrupt(self) -> None:
        """Stop the running statement (called from the watchdog thread)."""

    @abstractmethod
    def close(self) -> None:
        """Roll back and close the connection."""


class PostgresSession(ReadOnlySession):
    """PostgreSQL: READ ONLY transaction, SET LOCAL limits, prepared single statements."""

    dialect = "postgresql"
    paramstyle = "format"
    watchdog_grace_s = 1.0
    superuser = False

    def __init__(
        self, params: dict[str, Any], timeout_s: float, secrets: Sequence[str | None]
    ) -> None:
        super().__init__(timeout_s, secrets)
        self._conn = psycopg.connect(
            **params,
            autocommit=False,
            connect_timeout=max(1, math.ceil(min(timeout_s, 10))),
            application_name="dataagent",
        )
        try:
            self._conn.read_only = True  # the first statement opens BEGIN READ ONLY
            self._prepare_transaction()
        except BaseException:
            self._conn.close()
            raise

    def _prepare_transaction(self) -> None:
        ms = max(1, int(self.timeout_s * 1000))
        with self._conn.cursor() as cur:
            for name, value in (
                ("statement_timeout", ms),
                ("lock_timeout", ms),
                ("idle_in_transaction_session_timeout", ms + 10_000),
            ):
                cur.execute(
                    pgsql.SQL("SET LOCAL {} = {}").format(
                        pgsql.Identifier(name), pgsql.Literal(value)
                    )
                )
            cur.execute("SET LOCAL standard_conforming_strings = on")
            # Also takes the transaction's snapshot, after which it can no longer be made
            # read-write by anything the user's statement does.
            cur.execute(
                "SELECT current_setting('is_superuser'), current_setting('server_version'),"
                " current_setting('server_version_num')::int, current_schemas(false)"
            )
            superuser, version, version_num, schemas = cur.fetchone() or ("off", "", 0, [])
            self.server_version = str(version)
            self.superuser = superuser == "on"
            if self.superuser and version_num >= 140000:
                # Drop superuser powers (server files, programs) for this transaction, and
                # keep the search path the login role had ("$user" would change meaning).
                cur.execute("SET LOCAL ROLE pg_read_all_data")
                if schemas:
                    path = pgsql.SQL(", ").join(pgsql.Identifier(str(n)) for n in schemas)
                    cur.execute(pgsql.SQL("SET LOCAL search_path = {}").format(path))

    def _run(self, sql: str, params: Sequence[Any] | None, max_rows: int) -> tuple[list[str], Rows]:
        with self._conn.cursor() as cur:
            # prepare=True sends Parse/Bind/Execute: the server rejects a second statement.
            cur.execute(sql, params, prepare=True)
            if cur.description is None:
                return [], []
            return [c.name for c in cur.description], list(cur.fetchmany(max_rows))

    def _interrupt(self) -> None:
        self._conn.cancel_safe(timeout=5.0)

    def close(self) -> None:
        try:
            self._conn.rollback()
        except psycopg.Error:
            pass  # a connection left mid-COPY or broken cannot roll back; closing ends it
        finally:
            self._conn.close()


class MySQLSession(ReadOnlySession):
    """MySQL / MariaDB: READ ONLY transaction, statement time limit, no multi-statements."""

    dialect = "mysql"
    paramstyle = "format"
    watchdog_grace_s = 0.5

    def __init__(
        self, params: dict[str, Any], timeout_s: float, secrets: Sequence[str | None]
    ) -> None:
        super().__init__(timeout_s, secrets)
        self._params = dict(
            params,
            connect_timeout=max(1, math.ceil(min(timeout_s, 10))),
            charset="utf8mb4",
            local_infile=False,
            client_flag=0,  # never CLIENT.MULTI_STATEMENTS
        )
        self._conn = pymysql.connect(
            **self._params, autocommit=False, read_timeout=timeout_s + 15, write_timeout=30
        )
        try:
            self._prepare_transaction()
        except BaseException:
            self._conn.close()
            raise

    def _prepare_transaction(self) -> None:
        self.server_version = self._conn.get_server_info()
        self.mariadb = "mariadb" in self.server_version.lower()
        wait_s = max(1, math.ceil(self.timeout_s))
        with self._conn.cursor() as cur:
            cur.execute("SET SESSION TRANSACTION READ ONLY")
            if self.mariadb:
                cur.execute("SET SESSION max_statement_time = %s", (float(self.timeout_s),))
            else:
                cur.execute("SET SESSION max_execution_time = %s", (int(self.timeout_s * 1000),))
            cur.execute("SET SESSION lock_wait_timeout = %s", (wait_s,))
            cur.execute("SET SESSION innodb_lock_wait_timeout = %s", (wait_s,))
            cur.execute("START TRANSACTION READ ONLY")

    def _run(self, sql: str, params: Sequence[Any] | None, max_rows: int) -> tuple[list[str], Rows]:
        with self._conn.cursor() as cur:
            cur.execute(sql, params)
            if cur.description is None:
                return [], []
            return [c[0] for c in cur.description], list(cur.fetchmany(max_rows))

    def _interrupt(self) -> None:
        # A statement can lift its own max_statement_time (SET STATEMENT ... FOR); KILL
        # QUERY from a second connection of the same account stops it regardless.
        killer = pymysql.connect(**self._params, autocommit=True)
        try:
            with killer.cursor() as cur:
                cur.execute("KILL QUERY %s", (self._conn.thread_id(),))
        finally:
            killer.close()

    def close(self) -> None:
        try:
            self._conn.rollback()
        except pymysql.err.MySQLError:
            pass
        finally:
            self._conn.close()


class SQLiteSession(ReadOnlySession):
    """SQLite: read-only open, query_only, allow-list authorizer, no ATTACH, progress clock."""

    dialect = "sqlite"
    paramstyle = "qmark"

    def __init__(
        self,
        path: str,
        timeout_s: float,
        secrets: Sequence[str | None],
        *,
        catalog_access: bool = False,
    ) -> None:
        super().__init__(timeout_s, secrets)
        self._catalog_access = catalog_access
        self._deadline = time.monotonic() + timeout_s
        self._conn = sqlite3.connect(
            f"file:{quote(path)}?mode=ro",
            uri=True,
            timeout=min(timeout_s, 5.0),
            isolation_level=None,
            check_same_thread=False,
        )
        try:
            self._conn.execute("PRAGMA query_only = 1")
            # VACUUM INTO and ATTACH both attach a database; allow none.
            self._conn.setlimit(sqlite3.SQLITE_LIMIT_ATTACHED, 0)
            self._conn.set_authorizer(self._authorize)
            self._conn.set_progress_handler(self._past_deadline, SQLITE_PROGRESS_STEPS)
            self.server_version = sqlite3.sqlite_version
        except BaseException:
            self._conn.close()
            raise

    def _authorize(
        self, action: int, arg1: str | None, arg2: str | None, db: str | None, origin: str | None
    ) -> int:
        if action in (sqlite3.SQLITE_SELECT, sqlite3.SQLITE_RECURSIVE):
            return sqlite3.SQLITE_OK
        if action == sqlite3.SQLITE_READ:
            if (arg1 or "").lower().startswith("sqlite_") and not self._catalog_access:
                return sqlite3.SQLITE_DENY
            return sqlite3.SQLITE_OK
        if action == sqlite3.SQLITE_FUNCTION:
            denied = not is_allowed_function(arg2 or "", "sqlite")
            return sqlite3.SQLITE_DENY if denied else sqlite3.SQLITE_OK
        if action == sqlite3.SQLITE_PRAGMA and self._catalog_access:
            allowed = (arg1 or "").lower() in SQLITE_CATALOG_PRAGMAS
            return sqlite3.SQLITE_OK if allowed else sqlite3.SQLITE_DENY
        return sqlite3.SQLITE_DENY

    def _past_deadline(self) -> int:
        return 1 if time.monotonic() > self._deadline else 0

    def _run(self, sql: str, params: Sequence[Any] | None, max_rows: int) -> tuple[list[str], Rows]:
        self._deadline = time.monotonic() + self.timeout_s
        # Python's sqlite3 refuses a string holding more than one statement.
        cur = self._conn.execute(sql, tuple(params or ()))
        try:
            if cur.description is None:
                return [], []
            return [c[0] for c in cur.description], list(cur.fetchmany(max_rows))
        finally:
            cur.close()

    def _interrupt(self) -> None:
        self._conn.interrupt()

    def close(self) -> None:
        self._conn.close()


class DuckDBSession(ReadOnlySession):
    """DuckDB: read-only file, external access and extension loading off, config locked."""

    dialect = "duckdb"
    paramstyle = "qmark"

    def __init__(self, path: str, timeout_s: float, secrets: Sequence[str | None]) -> None:
        super().__init__(timeout_s, secrets)
        self._conn = duckdb.connect(
            path,
            read_only=True,
            config={
                "enable_external_access": False,
                "autoinstall_known_extensions": False,
                "autoload_known_extensions": False,
                "allow_community_extensions": False,
                "allow_unsigned_extensions": False,
                "memory_limit": DUCKDB_MEMORY_LIMIT,
                "threads": DUCKDB_THREADS,
                "lock_configuration": True,
            },
        )
        try:
            row = self._conn.execute("SELECT version()").fetchone()
            self.server_version = str(row[0]) if row else duckdb.__version__
        except BaseException:
            self._conn.close()
            raise

    def _run(self, sql: str, params: Sequence[Any] | None, max_rows: int) -> tuple[list[str], Rows]:
        # DuckDB's execute() would run every statement in the string: split it with DuckDB's
        # own parser and send exactly one, and only a SELECT.
        statements = self._conn.extract_statements(sql)
        if len(statements) != 1:
            raise DataAgentError(
                ErrorCode.SQL_POLICY_VIOLATION,
                f"The database refused the statement: exactly one statement is allowed; "
                f"found {len(statements)}.",
            )
        statement = statements[0]
        if statement.type != duckdb.StatementType.SELECT:
            raise DataAgentError(
                ErrorCode.SQL_POLICY_VIOLATION,
                f"The database refused the statement: only SELECT statements run here, "
                f"not {statement.type.name}.",
            )
        cur = self._conn.execute(statement, list(params) if params else None)
        if cur.description is None:
            return [], []
        return [c[0] for c in cur.description], list(cur.fetchmany(max_rows))

    def _interrupt(self) -> None:
        self._conn.interrupt()

    def close(self) -> None:
        self._conn.close()
