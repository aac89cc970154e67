"""The demo database written to DuckDB and SQLite and loaded into PostgreSQL, checked by SQL."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import duckdb
import psycopg
import pytest
import sqlalchemy as sa

from dataagent.demo import (
    TABLES,
    DemoData,
    DemoFacts,
    load_postgres,
    write_duckdb,
    write_sqlite,
)
from dataagent.errors import DataAgentError, ErrorCode

Run = Callable[[str], list[tuple[Any, ...]]]

FOREIGN_KEYS = {
    ("products", "category_id", "categories"),
    ("orders", "customer_id", "customers"),
    ("orders", "store_id", "stores"),
    ("order_items", "order_id", "orders"),
    ("order_items", "product_id", "products"),
}

LINE_REVENUE = "i.quantity * i.unit_price * (1 - i.discount)"


@pytest.fixture(scope="module")
def duckdb_path(tmp_path_factory: pytest.TempPathFactory, demo_data: DemoData) -> Path:
    path = tmp_path_factory.mktemp("demo") / "demo.duckdb"
    write_duckdb(demo_data, path)
    return path


@pytest.fixture(scope="module")
def sqlite_path(tmp_path_factory: pytest.TempPathFactory, demo_data: DemoData) -> Path:
    path = tmp_path_factory.mktemp("demo") / "demo.sqlite"
    write_sqlite(demo_data, path)
    return path


@pytest.fixture(scope="module", params=["duckdb", "sqlite"])
def run(request: pytest.FixtureRequest) -> Iterator[Run]:
    """A query function on the written DuckDB or SQLite file."""
    path: Path = request.getfixturevalue(f"{request.param}_path")
    if request.param == "duckdb":
        duck = duckdb.connect(str(path), read_only=True)
        yield lambda sql: duck.execute(sql).fetchall()
        duck.close()
    else:
        lite = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        yield lambda sql: lite.execute(sql).fetchall()
        lite.close()


def _assert_row_counts(run: Run, data: DemoData) -> None:
    for table, expected in data.row_counts().items():
        assert run(f"SELECT COUNT(*) FROM {table}") == [(expected,)], table


def _assert_foreign_keys_resolve(run: Run) -> None:
    for child, column, parent in FOREIGN_KEYS:
        orphans = run(
            f"SELECT COUNT(*) FROM {child} c LEFT JOIN {parent} p ON p.id = c.{column} "
            "WHERE p.id IS NULL"
        )
        assert orphans == [(0,)], (child, column)


def _store_figures(run: Run) -> dict[str, dict[str, float]]:
    """Per city: revenue (total and by year), AOV, return rate, revenue per square foot."""
    revenue = {
        store_id: (float(total), float(before_2025))
        for store_id, total, before_2025 in run(
            f"SELECT o.store_id, SUM({LINE_REVENUE}), "
            f"SUM(CASE WHEN o.order_date < '2025-01-01' THEN {LINE_REVENUE} ELSE 0 END) "
            "FROM order_items i JOIN orders o ON o.id = i.order_id "
            "WHERE o.status = 'completed' GROUP BY o.store_id"
        )
    }
    figures: dict[str, dict[str, float]] = {}
    for store_id, city, square_feet, orders, completed, returned in run(
        "SELECT s.id, s.city, s.square_feet, COUNT(*), "
        "SUM(CASE WHEN o.status = 'completed' THEN 1 ELSE 0 END), "
        "SUM(CASE WHEN o.status = 'returned' THEN 1 ELSE 0 END) "
        "FROM stores s JOIN orders o ON o.store_id = s.id GROUP BY s.id, s.city, s.square_feet"
    ):
        total, revenue_2024 = revenue[store_id]
        figures[city] = {
            "revenue": total,
            "aov": total / completed,
            "return_rate": returned / orders,
            "per_square_foot": total / square_feet,
            "growth": (total - revenue_2024) / revenue_2024 - 1,
        }
    return figures


def _assert_houston_underperforms(run: Run, facts: DemoFacts) -> None:
    figures = _store_figures(run)
    houston = figures.pop("Houston")
    for measure in ("revenue", "aov", "per_square_foot", "growth"):
        assert houston[measure] < min(peer[measure] for peer in figures.values()), measure
    assert houston["return_rate"] > 2 * max(peer["return_rate"] for peer in figures.values())
    # The SQL figures are the ones the facts (and the docs) report.
    for store in facts.stores:
        row = houston if store.city == "Houston" else figures[store.city]
        assert row["revenue"] == pytest.approx(store.net_revenue, abs=0.01)
        assert row["return_rate"] == pytest.approx(store.return_rate, abs=0.0001)


def _assert_money_is_exact(run: Run, data: DemoData) -> None:
    [(total,)] = run("SELECT SUM(unit_price) FROM products")
    expected = sum(Decimal(f"{value:.2f}") for value in data.products["unit_price"])
    assert Decimal(str(total)).quantize(Decimal("0.01")) == expected


def test_row_counts_match(run: Run, demo_data: DemoData) -> None:
    _assert_row_counts(run, demo_data)


def test_every_foreign_key_resolves(run: Run) -> None:
    _assert_foreign_keys_resolve(run)


def test_houston_underperforms_by_sql(run: Run, demo_facts: DemoFacts) -> None:
    _assert_houston_underperforms(run, demo_facts)


def test_money_is_stored_exactly(run: Run, demo_data: DemoData) -> None:
    _assert_money_is_exact(run, demo_data)


def test_duckdb_declares_its_keys(duckdb_path: Path) -> None:
    with duckdb.connect(str(duckdb_path), read_only=True) as duck:
        rows = duck.execute(
            "SELECT table_name, constraint_type, constraint_column_names, referenced_table "
            "FROM duckdb_constraints() WHERE constraint_type IN ('PRIMARY KEY', 'FOREIGN KEY')"
        ).fetchall()
    assert {(t, c[0], r) for t, kind, c, r in rows if kind == "FOREIGN KEY"} == FOREIGN_KEYS
    assert {t for t, kind, _, _ in rows if kind == "PRIMARY KEY"} == set(TABLES)


def test_sqlite_declares_its_keys(sqlite_path: Path) -> None:
    engine = sa.create_engine(f"sqlite:///{sqlite_path}")
    try:
        inspector = sa.inspect(engine)
        _assert_inspected_keys(inspector, schema=None)
        with engine.connect() as connection:
            assert connection.exec_driver_sql("PRAGMA foreign_key_check").fetchall() == []
    finally:
        engine.dispose()


def _assert_inspected_keys(inspector: sa.Inspector, schema: str | None) -> None:
    found = set()
    for table in TABLES:
        assert inspector.get_pk_constraint(table, schema=schema)["constrained_columns"] == ["id"]
        for key in inspector.get_foreign_keys(table, schema=schema):
            assert key["referred_columns"] == ["id"]
            found.add((table, key["constrained_columns"][0], key["referred_table"]))
    assert found == FOREIGN_KEYS


@pytest.mark.parametrize("writer", [write_duckdb, write_sqlite])
def test_writing_replaces_an_existing_file(
    tmp_path: Path, demo_data: DemoData, writer: Callable[[DemoData, Path], None]
) -> None:
    path = tmp_path / "nested" / "demo.db"
    path.parent.mkdir()
    path.write_bytes(b"not a database")
    writer(demo_data, path)
    writer(demo_data, path)
    assert sorted(p.name for p in path.parent.iterdir()) == ["demo.db"]


@pytest.mark.postgres
def test_postgres_load(postgres_db: str, demo_data: DemoData, demo_facts: DemoFacts) -> None:
    load_postgres(demo_data, postgres_db)
    load_postgres(demo_data, postgres_db)  # again: drops and recreates its own tables
    with psycopg.connect(postgres_db) as connection:

        def run(sql: str) -> list[tuple[Any, ...]]:
            return connection.execute(sql).fetchall()

        _assert_row_counts(run, demo_data)
        _assert_foreign_keys_resolve(run)
        _assert_houston_underperforms(run, demo_facts)
        _assert_money_is_exact(run, demo_data)
        [(comment,)] = run("SELECT obj_description('public.orders'::regclass)")
        assert "orders" in comment.lower()
    engine = sa.create_engine(postgres_db.replace("postgresql://", "postgresql+psycopg://", 1))
    try:
        _assert_inspected_keys(sa.inspect(engine), schema="public")
    finally:
        engine.dispose()


@pytest.mark.postgres
def test_postgres_load_into_another_schema(postgres_db: str, demo_data: DemoData) -> None:
    load_postgres(demo_data, postgres_db.replace("postgresql://", "postgresql+psycopg://"), "Sales")
    with psycopg.connect(postgres_db) as connection:
        tables = connection.execute(
            "SELECT table_schema, COUNT(*) FROM information_schema.tables "
            "WHERE table_schema NOT IN ('pg_catalog', 'information_schema') GROUP BY 1"
        ).fetchall()
        assert tables == [("Sales", len(TABLES))]
        [(count,)] = connection.execute('SELECT COUNT(*) FROM "Sales".order_items').fetchall()
        assert count == len(demo_data.order_items)


def test_postgres_unreachable_is_a_clean_error(demo_data: DemoData) -> None:
    with pytest.raises(DataAgentError) as raised:
        load_postgres(demo_data, "postgresql://root@127.0.0.1:1/nowhere")
    assert raised.value.code == ErrorCode.CONNECTION_FAILED
    assert "127.0.0.1" not in raised.value.message
