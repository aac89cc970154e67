"""Every golden plan, compiled for each dialect, returns the reference rows on the demo data.

The expected rows come from each case's hand-written `reference_sql`, run on the SQLite
demo database; the compiled SQL must return the same rows on SQLite, DuckDB, PostgreSQL
and MariaDB. Numbers are compared with a small tolerance (SQLite sums money as floats,
MariaDB rounds AVG to four decimals).
"""

from __future__ import annotations

import contextlib
import sqlite3
from pathlib import Path
from typing import Any

import duckdb
import pytest
from tests.conftest import mysql_connect
from tests.fixtures.compiler.compiler_golden import (
    load_cases,
    load_mysql,
    normalise,
    retail_model,
    rows_match,
)

from dataagent.demo.generator import DemoData
from dataagent.demo.loaders import load_postgres, write_duckdb, write_sqlite
from dataagent.semantic.compiler import CompiledQuery, compile_plan
from dataagent.semantic.plan import QueryPlan

CASES = load_cases()
Rows = list[tuple[Any, ...]]


@pytest.fixture(scope="module")
def demo(demo_data: DemoData) -> DemoData:
    """The demo data (the default seed, 7, which the reference results were written for)."""
    return demo_data


@pytest.fixture(scope="module")
def sqlite_path(demo: DemoData, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("compiler") / "demo.sqlite"
    write_sqlite(demo, path)
    return path


@pytest.fixture(scope="module")
def duckdb_path(demo: DemoData, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("compiler") / "demo.duckdb"
    write_duckdb(demo, path)
    return path


def run_sqlite(path: Path, sql: str) -> Rows:
    with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
        return [tuple(r) for r in db.execute(sql).fetchall()]


def run_duckdb(path: Path, sql: str) -> Rows:
    with contextlib.closing(duckdb.connect(str(path), read_only=True)) as db:
        return [tuple(r) for r in db.execute(sql).fetchall()]


@pytest.fixture(scope="module")
def expected(sqlite_path: Path) -> dict[str, Rows]:
    return {c["name"]: run_sqlite(sqlite_path, c["reference_sql"]) for c in CASES}


def check(case: dict[str, Any], compiled: CompiledQuery, actual: Rows, want: Rows) -> str | None:
    """None when `actual` answers the case like the reference does."""
    ordered = bool(case["plan"].get("order"))
    problem = rows_match(normalise(actual, False), normalise(want, False))
    if problem is None and ordered:
        # Ties and text collations differ by database: check the first sort key's sequence.
        first = case["plan"]["order"][0]["by"]
        column = compiled.columns.index(first) if first in compiled.columns else 0
        problem = rows_match(
            [(r[column],) for r in normalise(actual, True)],
            [(r[column],) for r in normalise(want, True)],
        )
    return None if problem is None else f"{case['name']} ({compiled.dialect}): {problem}"


def compiled_for(case: dict[str, Any], dialect: str) -> CompiledQuery:
    return compile_plan(QueryPlan.model_validate(case["plan"]), retail_model(dialect), dialect)


def test_reference_queries_return_rows(expected: dict[str, Rows]) -> None:
    empty = [name for name, rows in expected.items() if not rows]
    assert not empty, f"reference SQL returned nothing for {empty}"


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_sqlite(case: dict[str, Any], sqlite_path: Path, expected: dict[str, Rows]) -> None:
    compiled = compiled_for(case, "sqlite")
    assert (
        check(case, compiled, run_sqlite(sqlite_path, compiled.sql), expected[case["name"]]) is None
    )


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_duckdb(case: dict[str, Any], duckdb_path: Path, expected: dict[str, Rows]) -> None:
    compiled = compiled_for(case, "duckdb")
    assert (
        check(case, compiled, run_duckdb(duckdb_path, compiled.sql), expected[case["name"]]) is None
    )


@pytest.mark.postgres
def test_postgresql(postgres_db: str, demo: DemoData, expected: dict[str, Rows]) -> None:
    import psycopg

    load_postgres(demo, postgres_db)
    problems = []
    with psycopg.connect(postgres_db) as conn:
        for case in CASES:
            compiled = compiled_for(case, "postgresql")
            rows = [tuple(r) for r in conn.execute(compiled.sql).fetchall()]
            problems.append(check(case, compiled, rows, expected[case["name"]]))
    assert [p for p in problems if p] == []


@pytest.mark.mysql
def test_mysql(mysql_db: str, demo: DemoData, expected: dict[str, Rows]) -> None:
    conn = mysql_connect(mysql_db)
    try:
        load_mysql(conn, demo)
        problems = []
        with conn.cursor() as cur:
            for case in CASES:
                compiled = compiled_for(case, "mysql")
                cur.execute(compiled.sql)
                rows = [tuple(r) for r in cur.fetchall()]
                problems.append(check(case, compiled, rows, expected[case["name"]]))
    finally:
        conn.close()
    assert [p for p in problems if p] == []


TINY = (
    "CREATE TABLE stores (id INTEGER PRIMARY KEY, region VARCHAR, square_feet INTEGER)",
    "CREATE TABLE orders (id INTEGER PRIMARY KEY, store_id INTEGER)",
    "CREATE TABLE order_items (id INTEGER PRIMARY KEY, order_id INTEGER, quantity INTEGER)",
    "INSERT INTO stores VALUES (1, 'West', 100), (2, NULL, 50), (3, NULL, 25)",
    "INSERT INTO orders VALUES (1, 1), (2, 2), (3, NULL)",
    "INSERT INTO order_items VALUES (1, 1, 2), (2, 1, 3), (3, 2, 5), (4, 3, 7)",
)


@pytest.mark.parametrize("dialect", ["sqlite", "duckdb"])
def test_null_dimensions_survive_pre_aggregation(dialect: str, tmp_path: Path) -> None:
    plan = QueryPlan.model_validate(
        {
            "measures": [
                {"field": "stores.square_feet", "aggregation": "sum"},
                {"field": "order_items.quantity", "aggregation": "sum"},
            ],
            "dimensions": [{"field": "stores.region"}],
            "order": [{"by": "region"}],
        }
    )
    compiled = compile_plan(plan, retail_model(dialect), dialect)
    assert compiled.pre_aggregated
    path = tmp_path / f"tiny.{dialect}"
    if dialect == "sqlite":
        with contextlib.closing(sqlite3.connect(path)) as db:
            for statement in TINY:
                db.execute(statement)
            db.commit()
        rows = run_sqlite(path, compiled.sql)
    else:
        with contextlib.closing(duckdb.connect(str(path))) as db:
            for statement in TINY:
                db.execute(statement)
        rows = run_duckdb(path, compiled.sql)
    # A NULL region is one group on both sides (null-safe join), sorted last; the order
    # without a store still counts towards it, as a LEFT JOIN would.
    assert rows == [("West", 100, 5), (None, 75, 12)]
