"""The adversarial SQL suite, against real SQLite, DuckDB, PostgreSQL and MariaDB databases.

For every dialect: every harmful statement in tests/fixtures/sql_guard/harmful.yaml is
refused by the guard with its reason; with the guard switched off, the read-only database
layer alone refuses every write and file/program statement and the time limit stops every
sleep (the server no longer runs it once the call returns); and afterwards every table, the
database file, the server settings we watch and a scratch directory the attacks aim at are
unchanged. Every legitimate statement in legitimate.yaml runs, gives its expected result,
and gives the same result as on another dialect. No check measures time: the sleeps ask for
a day, and a thread's join is only a hang guard.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import stat
import threading
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any
from urllib.parse import urlsplit

import psycopg
import pymysql
import pytest
import yaml
from tests.conftest import LOCAL, mysql_reader, postgres_reader

from dataagent.errors import ErrorCode
from dataagent.sources.access import AccessPolicy
from dataagent.sources.engines import ConnectionSpec
from dataagent.sources.executor import execute_query
from dataagent.sources.results import QueryError, QueryResult

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "sql_guard"
DIALECTS = ("sqlite", "duckdb", "postgresql", "mysql")
REFUSED = {ErrorCode.SQL_POLICY_VIOLATION, ErrorCode.QUERY_FAILED}
# Writes the read-only transaction alone stops, whatever the account's privileges.
TRANSACTION_BLOCKED_CLASSES = {
    "multiple-statements",
    "dml",
    "ddl",
    "data-modifying-cte",
    "select-into",
    "sequence",
}
ATTACK_TIMEOUT_S = 1.0
# The admin-only setting that lets a privileged account connect (DATAAGENT_ALLOW_PRIVILEGED_...).
ADMIN_ALLOWED = AccessPolicy(allow_privileged=True)
# A hang guard only, never a measure: the sleeps ask for a day, so a statement the time limit
# does not stop would keep its call waiting; past this the test fails instead of hanging.
HANG_GUARD_S = 300.0


def _load_shop() -> ModuleType:
    spec = importlib.util.spec_from_file_location("sql_guard_shop", FIXTURES / "shop.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


shop = _load_shop()
HARMFUL: list[dict[str, Any]] = yaml.safe_load((FIXTURES / "harmful.yaml").read_text())
LEGITIMATE: list[dict[str, Any]] = yaml.safe_load((FIXTURES / "legitimate.yaml").read_text())


def for_dialect(entries: list[dict[str, Any]], dialect: str) -> list[dict[str, Any]]:
    """The fixture entries that apply to one dialect."""
    return [e for e in entries if e["dialects"] == "all" or dialect in e["dialects"]]


def database_expectation(entry: dict[str, Any], dialect: str) -> str:
    """What the database layer alone does with an entry on a dialect."""
    expected = entry["database"]
    return str(expected[dialect] if isinstance(expected, dict) else expected)


@dataclass
class Target:
    """One real database with the shop schema, and ways to check it did not change."""

    dialect: str
    spec: ConnectionSpec  # the account queries run as (SELECT only)
    admin_spec: ConnectionSpec  # a privileged account, for the "even as admin" checks
    snapshot: Callable[[], Any]
    out_dir: Path
    dsn: str = ""
    # The statements the query account still runs on the server. SQLite and DuckDB run in a
    # child process that the executor kills on timeout before it returns: nothing is left.
    running: Callable[[], list[str]] = list

    def sql(self, entry: dict[str, Any]) -> str:
        """The entry's SQL with its placeholders filled in."""
        return entry["sql"].replace("__OUT__", str(self.out_dir)).replace("__DSN__", self.dsn)


@pytest.fixture
def out_dir() -> Iterator[Path]:
    """A world-writable scratch directory: a database server could write here if let."""
    path = Path("/tmp") / f"da_adv_{uuid.uuid4().hex[:12]}"
    path.mkdir()
    path.chmod(stat.S_IRWXU | stat.S_IRWXG | stat.S_IRWXO)
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def _file_target(dialect: str, tmp_path: Path, out_dir: Path) -> Target:
    path = tmp_path / f"shop.{dialect}"
    if dialect == "sqlite":
        shop.build_sqlite(path)
    else:
        shop.build_duckdb(path)
    spec = ConnectionSpec(dialect=dialect, database=str(path))  # type: ignore[arg-type]
    return Target(dialect, spec, spec, lambda: shop.file_state(path), out_dir)


def _postgres_snapshot(url: str) -> Any:
    with psycopg.connect(url) as conn:
        tables = {
            t: conn.execute(f"SELECT * FROM {t} ORDER BY id").fetchall() for t in shop.ALL_TABLES
        }
        state = [
            conn.execute(
                "SELECT n.nspname, c.relname, c.relkind, c.relacl::text FROM pg_class c"
                " JOIN pg_namespace n ON n.oid = c.relnamespace"
                " WHERE n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast')"
                " AND n.nspname NOT LIKE 'pg\\_%temp%' ORDER BY 1, 2"
            ).fetchall(),
            conn.execute("SELECT count(*) FROM pg_largeobject_metadata").fetchall(),
            conn.execute("SELECT extname FROM pg_extension ORDER BY 1").fetchall(),
            conn.execute("SELECT last_value, is_called FROM order_numbers").fetchall(),
            conn.execute(
                "SELECT name, setting FROM pg_file_settings WHERE sourcefile LIKE '%auto.conf'"
            ).fetchall(),
        ]
    return shop.digest(tables), state


def _postgres_running(admin_url: str, reader_url: str) -> list[str]:
    with psycopg.connect(admin_url) as conn:
        rows = conn.execute(
            "SELECT query FROM pg_stat_activity WHERE usename = %s AND state = 'active'",
            (urlsplit(reader_url).username,),
        ).fetchall()
    return [str(row[0]) for row in rows]


def _mysql_running(admin_url: str, reader_url: str) -> list[str]:
    conn = _mysql_connect(admin_url)
    try:
        with conn.cursor() as cur:
            cur.execute(
                "SELECT info FROM information_schema.processlist"
                " WHERE user = %s AND command = 'Query'",
                (urlsplit(reader_url).username,),
            )
            return [str(row[0]) for row in cur.fetchall()]
    finally:
        conn.close()


def _mysql_connect(url: str) -> Any:
    parts = urlsplit(url)
    return pymysql.connect(
        host=parts.hostname,
        port=parts.port or 3306,
        user=parts.username or "root",
        password=parts.password or "",
        database=parts.path.lstrip("/"),
    )


def _mysql_snapshot(url: str) -> Any:
    conn = _mysql_connect(url)
    try:
        with conn.cursor() as cur:
            tables = {}
            for table in shop.ALL_TABLES:
                cur.execute(f"SELECT * FROM {table} ORDER BY id")
                tables[table] = cur.fetchall()
            cur.execute("SHOW FULL TABLES")
            listing = sorted(cur.fetchall())
            cur.execute(
                "SELECT @@global.max_connections, @@global.general_log, @@global.read_only,"
                " @@global.max_statement_time, @@global.local_infile,"
                " (SELECT COUNT(*) FROM information_schema.SCHEMATA"
                "  WHERE SCHEMA_NAME = 'da_adv_must_not_exist')"
            )
            settings = cur.fetchall()
    finally:
        conn.close()
    return shop.digest(tables), listing, settings


@pytest.fixture
def sqlite_target(tmp_path: Path, out_dir: Path) -> Target:
    return _file_target("sqlite", tmp_path, out_dir)


@pytest.fixture
def duckdb_target(tmp_path: Path, out_dir: Path) -> Target:
    return _file_target("duckdb", tmp_path, out_dir)


@pytest.fixture
def postgresql_target(postgres_db: str, out_dir: Path) -> Iterator[Target]:
    shop.build_postgres(postgres_db)
    parts = urlsplit(postgres_db)
    dsn = f"dbname={parts.path.lstrip('/')} host={parts.hostname} user={parts.username}"
    with postgres_reader(postgres_db) as reader_url:
        yield Target(
            "postgresql",
            ConnectionSpec(dialect="postgresql", url=reader_url),  # type: ignore[arg-type]
            ConnectionSpec(dialect="postgresql", url=postgres_db),  # type: ignore[arg-type]
            lambda: _postgres_snapshot(postgres_db),
            out_dir,
            dsn,
            lambda: _postgres_running(postgres_db, reader_url),
        )


@pytest.fixture
def mysql_target(mysql_db: str, out_dir: Path) -> Iterator[Target]:
    shop.build_mysql(lambda: _mysql_connect(mysql_db))
    with mysql_reader(mysql_db) as reader_url:
        yield Target(
            "mysql",
            ConnectionSpec(dialect="mysql", url=reader_url),  # type: ignore[arg-type]
            ConnectionSpec(dialect="mysql", url=mysql_db),  # type: ignore[arg-type]
            lambda: _mysql_snapshot(mysql_db),
            out_dir,
            running=lambda: _mysql_running(mysql_db, reader_url),
        )


@pytest.fixture(params=DIALECTS)
def target(request: pytest.FixtureRequest) -> Target:
    """Each real database in turn."""
    return request.getfixturevalue(f"{request.param}_target")  # type: ignore[no-any-return]


@dataclass
class Outcome:
    result: QueryResult | None
    error: QueryError | None

    @property
    def code(self) -> ErrorCode | None:
        return self.error.code if self.error else None


def run(spec: ConnectionSpec, sql: str, **options: Any) -> Outcome:
    """Run one statement through the executor and keep whatever happened (in a thread, so a
    statement nothing stops fails the test at the hang guard instead of hanging it)."""
    outcome: list[Outcome] = []

    def call() -> None:
        try:
            options.setdefault("policy", LOCAL)
            result = execute_query(spec, sql, allowed_tables=shop.ALLOWED_TABLES, **options)
            outcome.append(Outcome(result, None))
        except QueryError as error:
            outcome.append(Outcome(None, error))

    worker = threading.Thread(target=call, daemon=True)
    worker.start()
    worker.join(HANG_GUARD_S)
    if worker.is_alive():
        pytest.fail(f"still running past the hang guard: nothing stopped {sql!r}")
    return outcome[0]


def describe(outcome: Outcome) -> str:
    if outcome.error is not None:
        return f"{outcome.code}: {outcome.error.message}"
    assert outcome.result is not None
    return f"ran, {outcome.result.row_count} rows: {outcome.result.rows[:2]}"


def database_problem(entry: dict[str, Any], target: Target, outcome: Outcome) -> str | None:
    """Why an outcome with the guard off breaks the entry's expectation, or None."""
    expected = database_expectation(entry, target.dialect)
    if expected == "refused" and outcome.code not in REFUSED:
        return f"expected the database to refuse it; got {describe(outcome)}"
    if expected == "timeout":
        if outcome.code is not ErrorCode.QUERY_TIMEOUT:
            return f"expected the time limit to stop it; got {describe(outcome)}"
        if still := target.running():  # given up on, but not stopped
            return f"reported a timeout, but the server still runs {still}"
    rows = outcome.result.rows if outcome.result is not None else []
    if expected == "null" and any(v is not None for row in rows for v in row):
        return f"expected nothing but NULLs; got {rows}"
    if expected == "null" and outcome.error is not None and outcome.code not in REFUSED:
        return f"expected NULLs or a refusal; got {describe(outcome)}"
    if expected == "harmless" and outcome.code is ErrorCode.QUERY_TIMEOUT:
        return "a harmless read should not time out"
    return None


def assert_unchanged(target: Target, before: Any) -> None:
    assert target.snapshot() == before, "the database changed"
    assert sorted(os.listdir(target.out_dir)) == [], "a file was written"


def test_guard_refuses_every_harmful_statement(target: Target) -> None:
    before = target.snapshot()
    problems = []
    for entry in for_dialect(HARMFUL, target.dialect):
        outcome = run(target.spec, target.sql(entry), timeout_s=ATTACK_TIMEOUT_S)
        if entry["verdict"] == "allow":  # passes the guard; the limits must stop it
            if outcome.code is not ErrorCode.QUERY_TIMEOUT:
                problems.append(f"{entry['id']}: expected a timeout; got {describe(outcome)}")
            continue
        reason = entry["reason"].lower()
        if outcome.code is not ErrorCode.SQL_POLICY_VIOLATION or outcome.error is None:
            problems.append(f"{entry['id']}: not refused by the guard: {describe(outcome)}")
        elif reason not in outcome.error.message.lower():
            problems.append(f"{entry['id']}: reason {outcome.error.message!r} lacks {reason!r}")
        elif outcome.error.result.executed_sql is not None:
            problems.append(f"{entry['id']}: a refused statement reached the database")
    assert problems == []
    assert_unchanged(target, before)


def test_database_layer_alone_blocks_writes_files_and_sleeps(target: Target) -> None:
    """Defence in depth: the guard is off (test-only switch); the database layer holds."""
    before = target.snapshot()
    problems = []
    for entry in for_dialect(HARMFUL, target.dialect):
        outcome = run(
            target.spec, target.sql(entry), timeout_s=ATTACK_TIMEOUT_S, guard_enabled=False
        )
        problem = database_problem(entry, target, outcome)
        if problem:
            problems.append(f"{entry['id']}: {problem}")
    assert problems == []
    assert_unchanged(target, before)


@pytest.mark.parametrize("dialect", ["postgresql", "mysql"])
def test_read_only_transaction_blocks_writes_even_for_admin_accounts(
    dialect: str, request: pytest.FixtureRequest
) -> None:
    target: Target = request.getfixturevalue(f"{dialect}_target")
    before = target.snapshot()
    entries = [
        e
        for e in for_dialect(HARMFUL, dialect)
        if e["class"] in TRANSACTION_BLOCKED_CLASSES
        and database_expectation(e, dialect) == "refused"
    ]
    assert len(entries) >= 15
    problems = []
    for entry in entries:
        outcome = run(
            target.admin_spec,
            target.sql(entry),
            timeout_s=5,
            guard_enabled=False,
            policy=ADMIN_ALLOWED,
        )
        if outcome.code not in REFUSED:
            problems.append(f"{entry['id']}: {describe(outcome)}")
    assert problems == []
    assert_unchanged(target, before)


def normalized(result: QueryResult) -> list[tuple[Any, ...]]:
    """Rows comparable across dialects: numbers to 2 decimals, booleans as numbers."""

    def value(v: Any) -> Any:
        if isinstance(v, bool):
            return int(v)
        if isinstance(v, int | float):
            return round(float(v), 2)
        return v

    return [tuple(value(v) for v in row) for row in result.rows]


def test_legitimate_statements_run_and_agree(target: Target, tmp_path: Path) -> None:
    reference_dialect = "duckdb" if target.dialect == "sqlite" else "sqlite"
    reference_dir = tmp_path / "reference"
    reference_dir.mkdir()
    reference = _file_target(reference_dialect, reference_dir, target.out_dir)
    before = target.snapshot()
    problems = []
    ran = 0
    for entry in for_dialect(LEGITIMATE, target.dialect):
        outcome = run(target.spec, entry["sql"], timeout_s=20)
        if outcome.result is None:
            problems.append(f"{entry['id']}: {describe(outcome)}")
            continue
        ran += 1
        result, expect = outcome.result, entry.get("expect", {})
        if "rows" in expect and normalized(result) != normalized_rows(expect["rows"]):
            problems.append(f"{entry['id']}: rows {result.rows} != {expect['rows']}")
        if "row_count" in expect and result.row_count != expect["row_count"]:
            problems.append(f"{entry['id']}: {result.row_count} rows, not {expect['row_count']}")
        if result.truncated != expect.get("truncated", False):
            problems.append(f"{entry['id']}: truncated={result.truncated}")
        if entry["dialects"] == "all" and entry.get("portable", True):
            other = run(reference.spec, entry["sql"], timeout_s=20)
            if other.result is None or normalized(other.result) != normalized(result):
                theirs = describe(other) if other.result is None else normalized(other.result)
                problems.append(
                    f"{entry['id']}: {normalized(result)} differs from {reference_dialect}'s "
                    f"{theirs}"
                )
    assert problems == []
    assert ran == len(for_dialect(LEGITIMATE, target.dialect))
    assert_unchanged(target, before)


def normalized_rows(rows: list[list[Any]]) -> list[tuple[Any, ...]]:
    return [tuple(round(float(v), 2) if isinstance(v, int | float) else v for v in r) for r in rows]


def test_fixture_counts_meet_the_bar() -> None:
    """At least 60 harmful and 40 legitimate statements, across all four dialects."""
    assert len({e["id"] for e in HARMFUL}) == len(HARMFUL) >= 60
    assert len({e["id"] for e in LEGITIMATE}) == len(LEGITIMATE) >= 40
    for dialect in DIALECTS:
        assert for_dialect(HARMFUL, dialect) and for_dialect(LEGITIMATE, dialect)
    # Every write and file/program class is stopped by the database layer, never "harmless".
    for entry in HARMFUL:
        if entry["class"] in TRANSACTION_BLOCKED_CLASSES | {
            "file-write",
            "program",
            "attach",
            "extension",
            "large-object",
            "dblink",
        }:
            for dialect in DIALECTS:
                if entry["dialects"] == "all" or dialect in entry["dialects"]:
                    expected = database_expectation(entry, dialect)
                    assert expected in {"refused", "timeout", "rolled-back"}, entry


ISSUE_TS_STAT = (
    "SELECT ts_stat('SELECT to_tsvector(replace(pg_read_file(''/etc/passwd''),'':'','' ''))')",
    "SELECT ts_stat('SELECT to_tsvector(s) FROM (SELECT set_config(''role'', current_user,"
    " true) AS s) AS t')",
)


@pytest.mark.parametrize("sql", ISSUE_TS_STAT)
def test_sql_hidden_in_a_string_is_refused_even_for_an_admin_account(
    postgresql_target: Target, sql: str
) -> None:
    """ts_stat runs its argument as SQL, where set_config('role', ...) undoes the privilege
    drop of a superuser session: only the guard can stop that, before any connection."""
    before = postgresql_target.snapshot()
    outcome = run(postgresql_target.admin_spec, sql, timeout_s=5)
    assert outcome.error is not None, describe(outcome)
    assert outcome.code is ErrorCode.SQL_POLICY_VIOLATION
    assert "function ts_stat() is not allowed" in outcome.error.message
    assert outcome.error.result.executed_sql is None
    assert_unchanged(postgresql_target, before)


def test_mysql_queries_stay_in_the_connection_database(
    mysql_target: Target, mysql_admin_url: str
) -> None:
    """An account that may read two databases, and no ontology allow-list: the guard keeps a
    query inside the database the connection uses."""
    other = f"da_other_{uuid.uuid4().hex[:10]}"
    reader = urlsplit(mysql_target.spec.url.get_secret_value()).username  # type: ignore[union-attr]
    conn = _mysql_connect(mysql_admin_url)
    try:
        with conn.cursor() as cur:
            cur.execute(f"CREATE DATABASE `{other}`")
            cur.execute(f"CREATE TABLE `{other}`.secrets (id INTEGER PRIMARY KEY, v VARCHAR(20))")
            cur.execute(f"INSERT INTO `{other}`.secrets VALUES (1, 'the other database')")
            cur.execute(f"GRANT SELECT ON `{other}`.* TO '{reader}'@'%'")
        conn.commit()
        sql = f"SELECT v FROM {other}.secrets"
        # The attack: the database layer alone lets this account read the other database.
        unguarded = execute_query(
            mysql_target.spec, sql, guard_enabled=False, timeout_s=5, policy=LOCAL
        )
        assert unguarded.rows == [["the other database"]]
        with pytest.raises(QueryError) as caught:
            execute_query(mysql_target.spec, sql, timeout_s=5, policy=LOCAL)
        assert caught.value.code is ErrorCode.SQL_POLICY_VIOLATION
        assert f"table {other}.secrets is outside this connection's database" in (
            caught.value.message
        )
        assert caught.value.result.executed_sql is None
    finally:
        with conn.cursor() as cur:
            cur.execute(f"DROP DATABASE IF EXISTS `{other}`")
        conn.close()
