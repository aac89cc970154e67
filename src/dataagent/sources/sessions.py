"""Read-only database sessions, one class per dialect, each hardened at the database layer.

Every session is opened for one unit of work and closed after it: no connection, and so no
session state, is ever reused across queries. Each `stream` runs exactly one statement through
a protocol that cannot carry two, under a server-side time limit plus a client-side watchdog,
and hands rows over one at a time, so a caller that stops at its caps never holds the rest.
Sessions for accounts that could step outside a read-only transaction (superusers, FILE,
SUPER) are refused unless the caller allows them.
"""

from __future__ import annotations

import functools
import itertools
import json
import logging
import math
import re
import sqlite3
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Generator, Iterator, Sequence
from types import TracebackType
from typing import Any, ClassVar, TypeVar, cast
from urllib.parse import quote

import duckdb
import psycopg
import pymysql
import pymysql.cursors
from psycopg import sql as pgsql
from psycopg.adapt import Buffer, Loader

from dataagent.dialects import Dialect
from dataagent.errors import DataAgentError, ErrorCode
from dataagent.sources.access import privileged_account_error
from dataagent.sources.driver_errors import TIMEOUT_MESSAGE, query_error
from dataagent.sources.functions import is_allowed_function

log = logging.getLogger(__name__)

DRIVER_ERRORS: tuple[type[BaseException], ...] = (
    psycopg.Error,
    pymysql.err.MySQLError,
    sqlite3.Error,
    duckdb.Error,
)
Rows = list[tuple[Any, ...]]
Row = tuple[Any, ...]
T = TypeVar("T")
# What a streaming caller does with the columns and the row iterator.
Consumer = Callable[[list[str], Iterator[Row]], T]

# Memory an embedded engine may use (DuckDB memory_limit; SQLite's process-wide heap limit).
DEFAULT_MEMORY_MB = 512
DUCKDB_THREADS = 2
# Bytes of a bytea value a server sends: results show only its size, exact up to this.
BYTEA_READ_BYTES = 1 << 20
# SQLite: how many virtual-machine steps between two looks at the clock.
SQLITE_PROGRESS_STEPS = 1000
# PRAGMAs that only read the schema, allowed when a session is opened for introspection.
SQLITE_CATALOG_PRAGMAS = frozenset(
    {"table_info", "table_xinfo", "index_list", "index_info", "index_xinfo", "foreign_key_list"}
)
# Flags SQLAlchemy's reflection reads (never sets) when it connects.
SQLITE_READ_PRAGMAS = frozenset({"read_uncommitted", "database_list"})


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

    _conn: Any

    dialect: ClassVar[Dialect]
    paramstyle: ClassVar[str]
    # Extra seconds the client-side watchdog waits for the server-side limit to act first.
    watchdog_grace_s: ClassVar[float] = 0.0
    server_version: str = ""

    def __init__(self, timeout_s: float, secrets: Sequence[str | None]) -> None:
        self.timeout_s = timeout_s
        self.secrets = list(secrets)

    def stream(
        self,
        sql: str,
        consume: Consumer[T],
        *,
        params: Sequence[Any] | None = None,
        max_chars: int | None = None,
    ) -> T:
        """Run one statement and hand its columns and rows, fetched one by one, to `consume`.

        The time limit covers the fetching too. Rows `consume` does not read are never
        fetched: the statement is stopped when it returns. With `max_chars` (the caller's
        cell cap), a text value longer than that may arrive cut to `max_chars + 1`
        characters (still longer than the cap, so the cut is seen), never whole.
        """
        started = time.monotonic()
        watchdog = Watchdog(self.timeout_s + self.watchdog_grace_s, self._interrupt)
        try:
            with watchdog:
                result = self._run(sql, params, consume, max_chars)
        except DRIVER_ERRORS as exc:
            timed_out = watchdog.fired or time.monotonic() - started >= self.timeout_s
            raise query_error(exc, self.dialect, self.secrets, timed_out=timed_out) from None
        if watchdog.fired or time.monotonic() - started >= self.timeout_s:
            # Some servers end an interrupted SLEEP or BENCHMARK with a normal row.
            raise DataAgentError(ErrorCode.QUERY_TIMEOUT, TIMEOUT_MESSAGE)
        return result

    def fetch(
        self, sql: str, *, max_rows: int, params: Sequence[Any] | None = None
    ) -> tuple[list[str], Rows]:
        """Run one statement; return its column names and at most `max_rows` rows."""

        def take(columns: list[str], rows: Iterator[Row]) -> tuple[list[str], Rows]:
            return columns, list(itertools.islice(rows, max_rows))

        return self.stream(sql, take, params=params)

    @abstractmethod
    def _run(
        self,
        sql: str,
        params: Sequence[Any] | None,
        consume: Consumer[T],
        max_chars: int | None,
    ) -> T:
        """Execute one statement and pass its columns and a lazy row iterator to `consume`."""

    @abstractmethod
    def _interrupt(self) -> None:
        """Stop the running statement (called from the watchdog thread)."""

    @property
    def raw_connection(self) -> Any:
        """The driver's connection, hardened as this session is: for trusted catalog code
        (introspection) only. What runs on it is NOT checked by the guard."""
        return self._conn

    @abstractmethod
    def close(self) -> None:
        """Roll back and close the connection."""


@functools.cache
def _capped_loaders(max_chars: int) -> tuple[tuple[str, type[Loader]], ...]:
    """psycopg loaders that never decode more of a value than a cell can show."""
    keep = max_chars + 1  # one character over the cap: the cell cap sees, and counts, the cut

    def capped_text(data: Buffer) -> str:
        # Four bytes cover any UTF-8 character.
        return bytes(data[: keep * 4]).decode("utf-8", "replace")[:keep]

    class CappedText(Loader):
        def load(self, data: Buffer) -> str:
            return capped_text(data)

    class CappedJson(Loader):
        # JSON parsed when short; longer documents stay (capped) text for the cell cap.
        def load(self, data: Buffer) -> Any:
            return json.loads(bytes(data)) if len(data) <= keep else capped_text(data)

    class ByteaSize(Loader):
        # The placeholder results show, without decoding the bytes.
        def load(self, data: Buffer) -> str:
            size = len(data)
            if bytes(data[:2]) == b"\\x":  # hex output: two characters per byte
                size = (size - 2) // 2
            if size >= BYTEA_READ_BYTES:
                return f"<binary: more than {BYTEA_READ_BYTES} bytes>"
            return f"<binary: {size} bytes>"

    return (
        *((name, CappedText) for name in ("text", "varchar", "bpchar", "name", "xml")),
        *((name, CappedJson) for name in ("json", "jsonb")),
        ("bytea", ByteaSize),
    )


# How a long value of each type is cut on the server (see PostgresSession._capped_statement).
_PG_TEXT_CAP = pgsql.SQL("left({value}::text, {limit})")
_PG_CAPPED_OIDS: dict[int, pgsql.SQL] = {
    **dict.fromkeys((25, 1043, 1042, 19, 142), _PG_TEXT_CAP),  # text, varchar, char, name, xml
    **{
        oid: pgsql.SQL(
            "CASE WHEN octet_length({value}::text) > {limit}"
            f" THEN to_json(left({{value}}::text, {{limit}}))::{name} ELSE {{value}} END"
        )
        for oid, name in ((114, "json"), (3802, "jsonb"))
    },
    17: pgsql.SQL(  # bytea
        "CASE WHEN octet_length({value}) > {bytes} THEN substr({value}, 1, {bytes})"
        " ELSE {value} END"
    ),
}


class PostgresSession(ReadOnlySession):
    """PostgreSQL: READ ONLY transaction, SET LOCAL limits, prepared single statements."""

    dialect = "postgresql"
    paramstyle = "format"
    watchdog_grace_s = 1.0
    superuser = False
    privileged: str | None = None

    def __init__(
        self,
        params: dict[str, Any],
        timeout_s: float,
        secrets: Sequence[str | None],
        *,
        allow_privileged: bool = False,
        database_role: str | None = None,
    ) -> None:
        super().__init__(timeout_s, secrets)
        self._allow_privileged = allow_privileged
        self._database_role = database_role
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
            cur.execute(_PG_SESSION_FACTS)
            superuser, version, version_num, schemas, createrole, file_roles = cur.fetchone() or (
                "off",
                "",
                0,
                [],
                False,
                [],
            )
            self.server_version = str(version)
            self.superuser = superuser == "on"
            self.privileged = _pg_privilege(self.superuser, bool(createrole), file_roles or [])
            if self.privileged is not None:
                if not self._allow_privileged:
                    raise privileged_account_error(self.privileged)
                log.warning(
                    "running a query as a privileged PostgreSQL account (%s); allowed by "
                    "DATAAGENT_ALLOW_PRIVILEGED_ACCOUNTS",
                    self.privileged,
                )
            role = self._database_role
            if role is not None:
                self._check_role(cur, role)
            elif self.superuser and version_num >= 140000:
                # Drop superuser powers (server files, programs) for this transaction.
                role = "pg_read_all_data"
            if role is not None:
                # Keep the search path the login role had ("$user" would change meaning).
                cur.execute(pgsql.SQL("SET LOCAL ROLE {}").format(pgsql.Identifier(role)))
                if schemas:
                    path = pgsql.SQL(", ").join(pgsql.Identifier(str(n)) for n in schemas)
                    cur.execute(pgsql.SQL("SET LOCAL search_path = {}").format(path))

    def _check_role(self, cur: psycopg.Cursor[Any], role: str) -> None:
        """FORBIDDEN unless the account may assume `role` and the role is an ordinary one:
        no superuser, CREATEROLE, BYPASSRLS or REPLICATION, no server-file role, not one of
        PostgreSQL's own `pg_` roles (checked at every open, as the account is)."""
        cur.execute(_PG_ROLE_FACTS, (role,))
        facts = cur.fetchone()
        problem = role_problem(role, facts)
        if problem is not None:
            raise DataAgentError(ErrorCode.FORBIDDEN, problem)

    def _run(
        self,
        sql: str,
        params: Sequence[Any] | None,
        consume: Consumer[T],
        max_chars: int | None,
    ) -> T:
        if max_chars is not None and not params:
            sql = self._capped_statement(sql, max_chars + 1)
        with self._conn.cursor() as cur:
            if max_chars is not None:
                for type_name, loader in _capped_loaders(max_chars):
                    cur.adapters.register_loader(type_name, loader)
            # stream() always uses the extended protocol (Parse/Bind/Execute), which cannot
            # carry a second statement, and receives rows one at a time (single-row mode);
            # leaving it early cancels the statement and drops what is still in flight.
            rows = cast(Generator[Row, None, None], cur.stream(sql, params))
            try:
                first = next(rows, None)
                columns = [c.name for c in cur.description or ()]
                head = () if first is None else (first,)
                return consume(columns, itertools.chain(head, rows))
            finally:
                rows.close()

    def _capped_statement(self, sql: str, keep_chars: int) -> str:
        """The statement with long text and JSON cut to `keep_chars`, bytea to
        BYTEA_READ_BYTES, by the server.

        A PostgreSQL value may be up to 1 GB and the client receives a row whole, so values
        are cut before they are sent: the statement is parsed and described (not run) to
        learn its column types, then wrapped. Other columns pass through unchanged.
        """
        pgconn = self._conn.pgconn
        parsed = pgconn.prepare(b"", sql.encode())
        if parsed.status != psycopg.pq.ExecStatus.COMMAND_OK:
            raise psycopg.errors.error_from_result(parsed, encoding=self._conn.info.encoding)
        described = pgconn.describe_prepared(b"")
        oids = [described.ftype(i) for i in range(described.nfields)]
        if not any(oid in _PG_CAPPED_OIDS for oid in oids):
            return sql
        names = [
            (described.fname(i) or b"?column?").decode(self._conn.info.encoding, "replace")
            for i in range(described.nfields)
        ]
        limit = pgsql.Literal(keep_chars)
        byte_limit = pgsql.Literal(BYTEA_READ_BYTES)
        columns = []
        for i, oid in enumerate(oids):
            value = pgsql.SQL("{}.{}").format(pgsql.Identifier("_da_c"), pgsql.Identifier(f"c{i}"))
            template = _PG_CAPPED_OIDS.get(oid, pgsql.SQL("{value}"))
            expression = template.format(value=value, limit=limit, bytes=byte_limit)
            columns.append(pgsql.SQL("{} AS {}").format(expression, pgsql.Identifier(names[i])))
        wrapped = pgsql.SQL("SELECT {} FROM ({}) AS {}({})").format(
            pgsql.SQL(", ").join(columns),
            pgsql.SQL(sql),  # the approved, re-generated statement
            pgsql.Identifier("_da_c"),
            pgsql.SQL(", ").join(pgsql.Identifier(f"c{i}") for i in range(len(oids))),
        )
        return wrapped.as_string(self._conn)

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
    privileged: str | None = None

    def __init__(
        self,
        params: dict[str, Any],
        timeout_s: float,
        secrets: Sequence[str | None],
        *,
        allow_privileged: bool = False,
    ) -> None:
        super().__init__(timeout_s, secrets)
        self._allow_privileged = allow_privileged
        self._abandoned = False
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
            self.privileged = _mysql_privilege(cur)
            if self.privileged is not None:
                if not self._allow_privileged:
                    raise privileged_account_error(self.privileged)
                log.warning(
                    "running a query as a privileged MySQL/MariaDB account (%s); allowed by "
                    "DATAAGENT_ALLOW_PRIVILEGED_ACCOUNTS",
                    self.privileged,
                )
            cur.execute("SET SESSION TRANSACTION READ ONLY")
            if self.mariadb:
                cur.execute("SET SESSION max_statement_time = %s", (float(self.timeout_s),))
            else:
                cur.execute("SET SESSION max_execution_time = %s", (int(self.timeout_s * 1000),))
            cur.execute("SET SESSION lock_wait_timeout = %s", (wait_s,))
            cur.execute("SET SESSION innodb_lock_wait_timeout = %s", (wait_s,))
            cur.execute("START TRANSACTION READ ONLY")

    def _run(
        self,
        sql: str,
        params: Sequence[Any] | None,
        consume: Consumer[T],
        max_chars: int | None,
    ) -> T:
        # An unbuffered cursor reads rows off the socket as they are asked for. Stopping
        # early leaves the rest unread, so the connection is then closed, never reused.
        cur = self._conn.cursor(pymysql.cursors.SSCursor)
        self._abandoned = True
        cur.execute(sql, params)
        columns = [c[0] for c in cur.description or ()]
        rows: Iterator[Row] = iter(cur.fetchone, None) if cur.description else iter(())
        result = consume(columns, rows)
        if cur.description is None or cur.fetchone() is None:
            self._abandoned = False  # the whole result was read: the connection is clean
        return result

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
        if self._abandoned:
            # Unread rows are still on the socket: drop the connection (the server rolls the
            # transaction back) rather than reading them all to send a ROLLBACK.
            self._conn._force_close()
            return
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
        memory_mb: int = DEFAULT_MEMORY_MB,
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
            # SQLite's heap limit is process-wide (every SQLite connection of the server
            # counts against it); the length limit bounds any one string or blob, so a
            # query cannot build a value bigger than this however it tries.
            self._conn.execute(f"PRAGMA hard_heap_limit = {int(memory_mb) << 20}")
            self._conn.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, max(1, int(memory_mb) << 17))
            # Read the schema now: a file that is not a database fails here, at open, with
            # the same message as a missing one.
            self._conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
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
        if action == sqlite3.SQLITE_SAVEPOINT and self._catalog_access:
            # Introspection isolates each of its statements in a savepoint; nothing to write.
            return sqlite3.SQLITE_OK
        if action == sqlite3.SQLITE_PRAGMA and self._catalog_access:
            name = (arg1 or "").lower()
            # A flag is allowed only without an argument: `PRAGMA flag = 1` would set it.
            allowed = name in SQLITE_CATALOG_PRAGMAS or (
                name in SQLITE_READ_PRAGMAS and arg2 is None
            )
            return sqlite3.SQLITE_OK if allowed else sqlite3.SQLITE_DENY
        return sqlite3.SQLITE_DENY

    def _past_deadline(self) -> int:
        return 1 if time.monotonic() > self._deadline else 0

    def _run(
        self,
        sql: str,
        params: Sequence[Any] | None,
        consume: Consumer[T],
        max_chars: int | None,
    ) -> T:
        self._deadline = time.monotonic() + self.timeout_s
        # Python's sqlite3 refuses a string holding more than one statement; its cursor
        # steps the statement one row at a time as it is iterated.
        cur = self._conn.execute(sql, tuple(params or ()))
        try:
            columns = [c[0] for c in cur.description or ()]
            return consume(columns, iter(cur) if cur.description else iter(()))
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

    def __init__(
        self,
        path: str,
        timeout_s: float,
        secrets: Sequence[str | None],
        *,
        memory_mb: int = DEFAULT_MEMORY_MB,
    ) -> None:
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
                "memory_limit": f"{int(memory_mb)}MB",
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

    def _run(
        self,
        sql: str,
        params: Sequence[Any] | None,
        consume: Consumer[T],
        max_chars: int | None,
    ) -> T:
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
        columns = [c[0] for c in cur.description or ()]
        return consume(columns, iter(cur.fetchone, None) if cur.description else iter(()))

    def _interrupt(self) -> None:
        self._conn.interrupt()

    def close(self) -> None:
        self._conn.close()


# --- privileged accounts --------------------------------------------------------------------

# Login facts read before the user's statement. Membership in the file roles, or CREATEROLE
# (which can grant itself those roles), reaches server files from inside a read-only session.
_PG_SESSION_FACTS = """
SELECT current_setting('is_superuser'), current_setting('server_version'),
       current_setting('server_version_num')::int, current_schemas(false),
       r.rolcreaterole,
       ARRAY(SELECT f.rolname::text FROM pg_roles f
             WHERE f.rolname IN ('pg_read_server_files', 'pg_write_server_files',
                                 'pg_execute_server_program')
               AND pg_has_role(current_user, f.oid, 'MEMBER'))
FROM pg_roles r WHERE r.rolname = current_user
"""


# What decides whether a session may run under a role (`PostgresSession._check_role`).
_PG_ROLE_FACTS = """
SELECT r.rolsuper, r.rolcreaterole, r.rolbypassrls, r.rolreplication,
       pg_has_role(session_user, r.oid, 'MEMBER'),
       ARRAY(SELECT f.rolname::text FROM pg_roles f
             WHERE f.rolname IN ('pg_read_server_files', 'pg_write_server_files',
                                 'pg_execute_server_program')
               AND pg_has_role(r.oid, f.oid, 'MEMBER'))
FROM pg_roles r WHERE r.rolname = %s
"""


def role_problem(role: str, facts: Sequence[Any] | None) -> str | None:
    """Why a session may not run under `role` (from `_PG_ROLE_FACTS`), or None."""
    if facts is None:
        return f"The database role {role!r} does not exist."
    superuser, createrole, bypassrls, replication, member, file_roles = facts
    if not member:
        return (
            f"The connection's database account is not a member of the role {role!r}, so "
            "it cannot assume it (GRANT the role to the account; see docs/teams.md)."
        )
    if role.startswith("pg_") or superuser or createrole or bypassrls or replication:
        return (
            f"The database role {role!r} is privileged (a superuser, CREATEROLE, BYPASSRLS, "
            "REPLICATION or one of PostgreSQL's own roles): a share can only name an "
            "ordinary role whose grants and row-level security policies limit what it reads."
        )
    if file_roles:
        return f"The database role {role!r} may reach the server's files ({', '.join(file_roles)})."
    return None


def _pg_privilege(superuser: bool, createrole: bool, file_roles: Sequence[str]) -> str | None:
    if superuser:
        return "is a PostgreSQL superuser"
    if file_roles:
        return f"is a member of {', '.join(sorted(file_roles))}"
    if createrole:
        return "has CREATEROLE (it can grant itself the server-file roles)"
    return None


# Global privileges a read-only account may hold; anything else on *.* is too much.
_MYSQL_SAFE_GLOBAL = frozenset({"USAGE", "SELECT", "SHOW VIEW", "SHOW DATABASES"})
_MYSQL_GRANT = re.compile(r"^GRANT\s+(?P<privs>.+?)\s+ON\s+(?P<target>\S+)\s+TO\s", re.I | re.S)
_MYSQL_ROLE_GRANT = re.compile(r"^GRANT\s+(?P<roles>`[^`]+`(?:\s*,\s*`[^`]+`)*)\s+TO\s", re.I)


def _mysql_privilege(cur: Any) -> str | None:
    """Why the account's grants reach past a read-only session, or None when they do not."""
    pending: list[str | None] = [None]  # None: the account itself; then its roles
    seen: set[str] = set()
    while pending:
        role = pending.pop()
        try:
            if role is None:
                cur.execute("SHOW GRANTS")
            else:
                cur.execute("SHOW GRANTS FOR %s", (role,))
        except pymysql.err.MySQLError:
            return f"holds role {role}, whose grants cannot be read"
        for (line,) in cur.fetchall():
            text = str(line)
            roles = _MYSQL_ROLE_GRANT.match(text)
            if roles is not None:
                for name in re.findall(r"`([^`]+)`", roles.group("roles")):
                    if name not in seen:
                        seen.add(name)
                        pending.append(name)
                continue
            grant = _MYSQL_GRANT.match(text)
            if grant is None:
                continue
            privileges = {
                p.strip().upper() for p in re.sub(r"\([^)]*\)", "", grant.group("privs")).split(",")
            }
            if "PROXY" in privileges:
                return "may act as other accounts (PROXY)"
            if grant.group("target") == "*.*" and not privileges <= _MYSQL_SAFE_GLOBAL:
                extra = sorted(privileges - _MYSQL_SAFE_GLOBAL)
                return f"holds the server-wide privilege {', '.join(extra)}"
    return None
