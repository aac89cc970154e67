"""The executor against real databases: results, caps, pilot mode, errors, output forms."""

from __future__ import annotations

import datetime as dt
import json
import sqlite3
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import duckdb
import psycopg
import pymysql
import pytest
from pydantic import ValidationError
from tests.conftest import LOCAL, mysql_reader, postgres_reader

from dataagent.errors import DataAgentError, ErrorCode
from dataagent.sources.access import OPEN_FAILED_MESSAGE, AccessPolicy
from dataagent.sources.engines import ConnectionSpec, open_readonly, test_connection
from dataagent.sources.executor import execute_query
from dataagent.sources.results import QueryError, QueryResult, json_safe, to_json, to_markdown

ROWS = 30


@pytest.fixture
def sqlite_spec(tmp_path: Path) -> ConnectionSpec:
    path = tmp_path / "shop.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT, price REAL, blob BLOB)")
    conn.executemany(
        "INSERT INTO items VALUES (?, ?, ?, ?)",
        [(i, f"item|{i}", i * 1.5, b"\x00\x01") for i in range(1, ROWS + 1)],
    )
    conn.commit()
    conn.close()
    return ConnectionSpec(dialect="sqlite", database=str(path))


@pytest.fixture
def duckdb_spec(tmp_path: Path) -> ConnectionSpec:
    path = tmp_path / "shop.duckdb"
    conn = duckdb.connect(str(path))
    conn.execute(
        "CREATE TABLE items AS SELECT range::INTEGER + 1 AS id, 'item ' || range AS name,"
        " ((range + 1) * 1.25)::DECIMAL(10,2) AS price, DATE '2024-01-01' + range::INTEGER AS day"
        f" FROM range({ROWS})"
    )
    conn.close()
    return ConnectionSpec(dialect="duckdb", url=f"duckdb:///{path}")  # type: ignore[arg-type]


@pytest.fixture
def postgresql_spec(postgres_db: str) -> Iterator[ConnectionSpec]:
    with psycopg.connect(postgres_db, autocommit=True) as conn:
        conn.execute(
            "CREATE TABLE items AS SELECT g AS id, 'item ' || g AS name,"
            " (g * 1.25)::numeric(10,2) AS price, DATE '2024-01-01' + g AS day,"
            f" '{{\"k\": 1}}'::jsonb AS doc FROM generate_series(1, {ROWS}) AS g"
        )
    with postgres_reader(postgres_db) as reader:
        yield ConnectionSpec(dialect="postgresql", url=reader)  # type: ignore[arg-type]


@pytest.fixture
def mysql_spec(mysql_db: str) -> Iterator[ConnectionSpec]:
    parts = urlsplit(mysql_db)
    conn = pymysql.connect(
        host=parts.hostname,
        port=parts.port or 3306,
        user=parts.username or "root",
        password=parts.password or "",
        database=parts.path.lstrip("/"),
    )
    try:
        with conn.cursor() as cur:
            cur.execute(
                "CREATE TABLE items (id INT PRIMARY KEY, name VARCHAR(50), price DECIMAL(10,2),"
                " day DATE)"
            )
            cur.executemany(
                "INSERT INTO items VALUES (%s, %s, %s, %s)",
                [
                    (i, f"item {i}", Decimal(i) * Decimal("1.25"), dt.date(2024, 1, i % 28 + 1))
                    for i in range(1, ROWS + 1)
                ],
            )
        conn.commit()
    finally:
        conn.close()
    with mysql_reader(mysql_db) as reader:
        yield ConnectionSpec(dialect="mysql", url=reader)  # type: ignore[arg-type]


@pytest.fixture(params=["sqlite", "duckdb", "postgresql", "mysql"])
def spec(request: pytest.FixtureRequest) -> ConnectionSpec:
    """Each real database in turn, with a 30-row `items` table."""
    return request.getfixturevalue(f"{request.param}_spec")  # type: ignore[no-any-return]


def test_rows_are_capped_and_flagged(spec: ConnectionSpec) -> None:
    result = execute_query(spec, "SELECT * FROM items ORDER BY id", max_rows=7, policy=LOCAL)
    assert result.status == "succeeded"
    assert result.row_count == len(result.rows) == 7
    assert result.truncated and result.truncated_by == "rows"
    assert result.columns[:2] == ["id", "name"]
    assert result.executed_sql is not None and "LIMIT 8" in result.executed_sql
    assert result.tables == ["items"]
    assert result.execution_ms >= 0
    json.dumps(result.rows)  # every value is JSON-safe


def test_a_result_that_fits_is_not_truncated(spec: ConnectionSpec) -> None:
    result = execute_query(spec, "SELECT id FROM items ORDER BY id", max_rows=ROWS, policy=LOCAL)
    assert result.row_count == ROWS and not result.truncated


def test_pilot_mode_returns_ten_rows(spec: ConnectionSpec) -> None:
    result = execute_query(spec, "SELECT id FROM items ORDER BY id", pilot=True, policy=LOCAL)
    assert result.pilot and result.row_count == 10 and result.truncated
    assert [r[0] for r in result.rows] == list(range(1, 11))


def test_values_become_json_safe(spec: ConnectionSpec) -> None:
    if spec.dialect == "sqlite":
        result = execute_query(spec, "SELECT price, blob FROM items WHERE id = 2", policy=LOCAL)
        assert result.rows == [[3.0, "<binary: 2 bytes>"]]
        return
    result = execute_query(spec, "SELECT price, day FROM items WHERE id = 2", policy=LOCAL)
    price, day = result.rows[0]
    assert price == 2.5 and isinstance(price, float)
    assert isinstance(day, str) and dt.date.fromisoformat(day)


def test_postgres_json(postgresql_spec: ConnectionSpec) -> None:
    result = execute_query(postgresql_spec, "SELECT doc FROM items LIMIT 1", policy=LOCAL)
    assert result.rows == [[{"k": 1}]]


def test_postgres_cuts_long_values_at_the_cell_cap_not_before(
    postgresql_spec: ConnectionSpec,
) -> None:
    """The server cuts text one character past the caller's cap: the cut is seen and counted."""
    sql = (
        "SELECT repeat('a', 15000) AS fits, repeat('b', 30000) AS cut,"
        " decode(repeat('ff', 3000), 'hex') AS blob"
    )
    result = execute_query(postgresql_spec, sql, max_cell_chars=20_000, policy=LOCAL)
    fits, cut, blob = result.rows[0]
    assert (len(fits), len(cut), result.cells_cut) == (15_000, 20_000, 1)
    assert blob == "<binary: 3000 bytes>"


def test_an_allowed_superuser_drops_to_read_all_data(postgres_db: str) -> None:
    admin = ConnectionSpec(dialect="postgresql", url=postgres_db)  # type: ignore[arg-type]
    allowed = AccessPolicy(allow_privileged=True)
    # The guard refuses current_user (it names the account); the database layer is the point.
    result = execute_query(admin, "SELECT current_user AS who", policy=allowed, guard_enabled=False)
    assert result.rows == [["pg_read_all_data"]]


def test_byte_cap(spec: ConnectionSpec) -> None:
    result = execute_query(
        spec, "SELECT id, name FROM items ORDER BY id", max_bytes=60, policy=LOCAL
    )
    assert result.truncated and result.truncated_by == "bytes"
    assert 0 < result.row_count < ROWS


def test_cell_cap(sqlite_spec: ConnectionSpec) -> None:
    sql = "SELECT 'abcdefghijklmnopqrstuvwxyz' AS letters FROM items LIMIT 2"
    result = execute_query(sqlite_spec, sql, max_cell_chars=10, policy=LOCAL)
    assert result.rows == [["abcdefghi…"], ["abcdefghi…"]]
    assert result.cells_cut == 2


def test_policy_violation_carries_a_failed_record(spec: ConnectionSpec) -> None:
    with pytest.raises(QueryError) as caught:
        execute_query(spec, "SELECT * FROM items; DELETE FROM items", policy=LOCAL)
    error = caught.value
    assert isinstance(error, DataAgentError) and error.code is ErrorCode.SQL_POLICY_VIOLATION
    assert error.result.status == "failed"
    assert error.result.error_code == "SQL_POLICY_VIOLATION"
    assert error.result.executed_sql is None  # it never reached the database


def test_query_errors_are_reported_without_secrets(spec: ConnectionSpec) -> None:
    with pytest.raises(QueryError) as caught:
        execute_query(spec, "SELECT no_such_column FROM items", policy=LOCAL)
    assert caught.value.code is ErrorCode.QUERY_FAILED
    assert "no_such_column" in caught.value.message
    assert "127.0.0.1" not in caught.value.message
    assert caught.value.result.executed_sql is not None


def test_timeouts_stop_runaway_queries(spec: ConnectionSpec) -> None:
    sql = "SELECT count(*) FROM items a, items b, items c, items d, items e, items f, items g"
    with pytest.raises(QueryError) as caught:
        execute_query(spec, sql, timeout_s=0.5, policy=LOCAL)
    assert caught.value.code is ErrorCode.QUERY_TIMEOUT
    assert caught.value.result.status == "failed"


def test_tables_outside_the_allow_list_are_refused(spec: ConnectionSpec) -> None:
    with pytest.raises(QueryError) as caught:
        execute_query(spec, "SELECT * FROM items", allowed_tables=["orders"], policy=LOCAL)
    assert "not one of the tables" in caught.value.message


def _with_password(url: str, password: str) -> str:
    parts = urlsplit(url)
    netloc = f"{parts.username}:{password}@{parts.hostname}:{parts.port}"
    return urlunsplit((parts.scheme, netloc, "/no_such_database_x", "", ""))


@pytest.mark.parametrize("fixture", ["postgres_db", "mysql_db"])
def test_connection_errors_are_sanitised(fixture: str, request: pytest.FixtureRequest) -> None:
    url = _with_password(request.getfixturevalue(fixture), "s3cret-pw")
    spec = ConnectionSpec(dialect="postgresql" if fixture == "postgres_db" else "mysql", url=url)  # type: ignore[arg-type]
    with pytest.raises(QueryError) as caught:
        execute_query(spec, "SELECT 1", policy=LOCAL)
    message = caught.value.message
    assert caught.value.code is ErrorCode.CONNECTION_FAILED
    assert message.startswith("Could not connect to the database")
    for secret in ("s3cret-pw", "127.0.0.1", "://"):
        assert secret not in message
    check = test_connection(spec, LOCAL)
    assert not check.ok and check.error_code == "CONNECTION_FAILED"
    assert check.error and "s3cret-pw" not in check.error


def test_connection_check_reports_version_and_risks(spec: ConnectionSpec) -> None:
    check = test_connection(spec, LOCAL)
    assert check.ok and check.server_version and check.error is None
    assert check.warnings == []  # a read-only account


def test_missing_database_file_is_a_connection_failure(tmp_path: Path) -> None:
    spec = ConnectionSpec(dialect="duckdb", database=str(tmp_path / "missing.duckdb"))
    check = test_connection(spec, LOCAL)
    assert not check.ok and check.error_code == "CONNECTION_FAILED"
    assert check.error == OPEN_FAILED_MESSAGE


def test_sqlite_catalog_access_is_for_introspection_only(sqlite_spec: ConnectionSpec) -> None:
    with open_readonly(sqlite_spec, LOCAL, catalog_access=True) as session:
        columns, rows = session.fetch("PRAGMA table_info(items)", max_rows=10)
        assert "name" in columns and len(rows) == 4
        _, rows = session.fetch(
            "SELECT name FROM sqlite_master WHERE type = ?", max_rows=5, params=["table"]
        )
        assert rows == [("items",)]
    with open_readonly(sqlite_spec, LOCAL) as session, pytest.raises(DataAgentError):
        session.fetch("SELECT name FROM sqlite_master", max_rows=5)


# --- output forms -------------------------------------------------------------------------


def test_markdown_matches_the_query_tool_format(sqlite_spec: ConnectionSpec) -> None:
    result = execute_query(
        sqlite_spec, "SELECT id, name, NULL AS gap FROM items ORDER BY id LIMIT 3", policy=LOCAL
    )
    text = to_markdown(result)
    lines = text.splitlines()
    assert lines[0] == "| id | name | gap |"
    assert lines[1] == "|---|---|---|"
    assert lines[2] == "| 1 | item\\|1 | NULL |"
    assert lines[-1] == f"(3 rows, {result.execution_ms}ms)"


def test_markdown_says_when_rows_were_cut() -> None:
    result = QueryResult(
        dialect="sqlite",
        sql="x",
        columns=["a"],
        rows=[[1]],
        row_count=1,
        truncated=True,
        truncated_by="rows",
        execution_ms=4,
    )
    assert to_markdown(result).splitlines()[-1].startswith("(1 row, 4ms; truncated")


def test_json_form_round_trips(spec: ConnectionSpec) -> None:
    result = execute_query(spec, "SELECT * FROM items ORDER BY id", max_rows=2, policy=LOCAL)
    body = to_json(result)
    assert json.loads(json.dumps(body)) == body
    assert body["row_count"] == 2 and body["truncated"] is True and body["status"] == "succeeded"


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (Decimal("12.50"), 12.5),
        (Decimal("42"), 42),
        (Decimal("123456789012345678901234.5"), "123456789012345678901234.5"),
        (Decimal("NaN"), "NaN"),
        (float("inf"), "Infinity"),
        (dt.datetime(2024, 5, 1, 12, 30), "2024-05-01T12:30:00"),
        (dt.timedelta(hours=1), "1:00:00"),
        (memoryview(b"abc"), "<binary: 3 bytes>"),
        ([1, Decimal("2.5"), dt.date(2024, 1, 2)], [1, 2.5, "2024-01-02"]),
    ],
)
def test_json_safe_values(value: object, expected: object) -> None:
    assert json_safe(value) == expected


# --- connection specs -----------------------------------------------------------------------


def test_spec_display_hides_the_password() -> None:
    spec = ConnectionSpec(
        dialect="postgres", url="postgresql+psycopg://ann:pw@db.internal:6543/sales?sslmode=require"
    )  # type: ignore[arg-type]
    assert spec.dialect == "postgresql"
    assert spec.display() == "postgresql://ann@db.internal:6543/sales"
    assert "pw" not in repr(spec)
    endpoint = spec.endpoint()
    assert (endpoint.password, endpoint.params) == ("pw", {"sslmode": "require"})


def test_spec_fields_override_the_url() -> None:
    spec = ConnectionSpec(dialect="mysql", url="mysql://ann@db:3306/sales", password="pw")  # type: ignore[arg-type]
    assert spec.endpoint().password == "pw"


@pytest.mark.parametrize(
    "fields",
    [
        {"dialect": "postgresql", "url": "mysql://a@b/c"},
        {"dialect": "postgresql", "host": "db"},
        {"dialect": "sqlite"},
        {"dialect": "oracle", "database": "x"},
    ],
)
def test_invalid_specs_are_refused(fields: dict[str, str]) -> None:
    with pytest.raises(ValidationError):
        ConnectionSpec(**fields)  # type: ignore[arg-type]


def test_file_urls_follow_sqlalchemy() -> None:
    relative = ConnectionSpec(dialect="sqlite", url="sqlite:///data/shop.db")  # type: ignore[arg-type]
    absolute = ConnectionSpec(dialect="duckdb", url="duckdb:////srv/shop.duckdb")  # type: ignore[arg-type]
    assert relative.endpoint().database == "data/shop.db"
    assert absolute.endpoint().database == "/srv/shop.duckdb"
    assert absolute.display() == "duckdb:////srv/shop.duckdb"
