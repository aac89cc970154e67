"""Introspection against real SQLite, DuckDB, PostgreSQL and MariaDB databases.

One small shop schema is built in each: primary keys, declared foreign keys (one of
them composite), a 1:1 through the primary key and one through a unique key, two
links only the column names reveal, low- and high-cardinality text, and a view.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlsplit

import duckdb
import psycopg
import pymysql
import pytest
import sqlalchemy as sa
from tests.conftest import LOCAL, mysql_reader, postgres_reader

from dataagent.errors import DataAgentError, ErrorCode
from dataagent.semantic.generation import generate_semantic_model
from dataagent.semantic.model import Cardinality, DataType, RelationshipSource, SemanticModel
from dataagent.semantic.yaml_io import dump_yaml, load_yaml
from dataagent.sources import introspection
from dataagent.sources.engines import ConnectionSpec
from dataagent.sources.introspection import IntrospectionOptions, SchemaSnapshot, introspect

SEGMENTS = ("consumer", "business", "public")


def shop_ddl(ts: str = "TIMESTAMP") -> list[str]:
    """The shop schema in SQL every dialect here accepts (`ts`: the timestamp type)."""
    return [
        "CREATE TABLE regions (region_id INTEGER PRIMARY KEY, name VARCHAR(50))",
        "CREATE TABLE customers (id INTEGER PRIMARY KEY, name VARCHAR(100) NOT NULL, "
        "email VARCHAR(200), segment VARCHAR(20), region_id INTEGER)",
        "CREATE TABLE customer_profiles (customer_id INTEGER PRIMARY KEY, bio VARCHAR(500), "
        "FOREIGN KEY (customer_id) REFERENCES customers (id))",
        "CREATE TABLE categories (id INTEGER PRIMARY KEY, name VARCHAR(50))",
        "CREATE TABLE products (id INTEGER PRIMARY KEY, category_id INTEGER, "
        "name VARCHAR(100), price DECIMAL(10, 2))",
        f"CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL, "
        f"status VARCHAR(20), ordered_at {ts}, parent_id INTEGER, "
        "FOREIGN KEY (customer_id) REFERENCES customers (id))",
        "CREATE TABLE order_items (order_id INTEGER NOT NULL, line_no INTEGER NOT NULL, "
        "product_id INTEGER, quantity INTEGER, PRIMARY KEY (order_id, line_no), "
        "FOREIGN KEY (order_id) REFERENCES orders (id), "
        "FOREIGN KEY (product_id) REFERENCES products (id))",
        "CREATE TABLE shipments (id INTEGER PRIMARY KEY, order_id INTEGER, line_no INTEGER, "
        "FOREIGN KEY (order_id, line_no) REFERENCES order_items (order_id, line_no))",
        "CREATE TABLE invoices (id INTEGER PRIMARY KEY, order_id INTEGER UNIQUE, "
        "FOREIGN KEY (order_id) REFERENCES orders (id))",
        "CREATE VIEW open_orders AS SELECT id, status FROM orders WHERE status = 'open'",
    ]


def shop_rows() -> list[str]:
    """Rows: 25 customers (names and emails too many to sample), 3 segments, 2 statuses."""
    rows = ["INSERT INTO regions VALUES (1, 'North'), (2, 'South')"]
    rows.append(
        "INSERT INTO customers VALUES "
        + ", ".join(
            f"({i}, 'Customer {i}', 'c{i}@example.com', '{SEGMENTS[i % 3]}', {1 + i % 2})"
            for i in range(1, 26)
        )
    )
    rows += [
        "INSERT INTO customer_profiles VALUES (1, 'Likes tea')",
        "INSERT INTO categories VALUES (1, 'Books'), (2, 'Toys')",
        "INSERT INTO products VALUES (1, 1, 'Novel', 12.50), (2, 2, 'Kite', 30.00)",
        "INSERT INTO orders VALUES (1, 1, 'open', '2024-01-02 10:00:00', NULL), "
        "(2, 2, 'shipped', '2024-01-03 11:00:00', 1), (3, 3, 'open', NULL, NULL)",
        "INSERT INTO order_items VALUES (1, 1, 1, 2), (1, 2, 2, 1), (2, 1, 2, 5)",
        "INSERT INTO shipments VALUES (1, 1, 1)",
        "INSERT INTO invoices VALUES (1, 1), (2, 2)",
    ]
    return rows


FK_LINKS = {
    ("customer_profiles", ("customer_id",), "customers", ("id",), Cardinality.ONE_TO_ONE),
    ("orders", ("customer_id",), "customers", ("id",), Cardinality.MANY_TO_ONE),
    ("order_items", ("order_id",), "orders", ("id",), Cardinality.MANY_TO_ONE),
    ("order_items", ("product_id",), "products", ("id",), Cardinality.MANY_TO_ONE),
    (
        "shipments",
        ("order_id", "line_no"),
        "order_items",
        ("order_id", "line_no"),
        Cardinality.MANY_TO_ONE,
    ),
    ("invoices", ("order_id",), "orders", ("id",), Cardinality.ONE_TO_ONE),
}
INFERRED_LINKS = {
    ("customers", ("region_id",), "regions", ("region_id",), Cardinality.MANY_TO_ONE),
    ("products", ("category_id",), "categories", ("id",), Cardinality.MANY_TO_ONE),
}


def links(model: SemanticModel, source: RelationshipSource) -> set[tuple[object, ...]]:
    return {
        (r.from_dataset, tuple(r.from_columns), r.to_dataset, tuple(r.to_columns), r.cardinality)
        for r in model.relationships
        if r.source is source
    }


def check_shop(snapshot: SchemaSnapshot, dialect: str, schema: str) -> SemanticModel:
    """The assertions every dialect must pass on the shop schema."""
    tables = {t.name: t for t in snapshot.tables}
    assert set(tables) == {
        "regions",
        "customers",
        "customer_profiles",
        "categories",
        "products",
        "orders",
        "order_items",
        "shipments",
        "invoices",
        "open_orders",
    }
    assert tables["open_orders"].kind == "view"
    assert tables["order_items"].primary_key == ["order_id", "line_no"]
    assert tables["customers"].row_estimate == 25
    assert tables["orders"].row_estimate == 3
    customers = {c.name: c for c in tables["customers"].columns}
    assert customers["segment"].sample_values == sorted(SEGMENTS)
    assert customers["segment"].distinct_count == 3
    assert customers["name"].sample_values == []  # 25 distinct: not a category
    assert not customers["name"].nullable
    orders = {c.name: c for c in tables["orders"].columns}
    assert orders["status"].sample_values == ["open", "shipped"]
    assert ["order_id"] in tables["invoices"].unique_keys

    model = generate_semantic_model(snapshot, "shop", dialect)
    assert load_yaml(dump_yaml(model)) == model
    assert model.dialect == dialect
    assert len(model.datasets) == 10
    ds = model.dataset("orders")
    assert ds is not None and ds.source == f"{schema}.orders"
    assert ds.description == "Orders table with 3 rows."
    types = {f.name: f.data_type for f in ds.fields}
    assert types == {
        "id": DataType.INTEGER,
        "customer_id": DataType.INTEGER,
        "status": DataType.VARCHAR,
        "ordered_at": DataType.TIMESTAMP,
        "parent_id": DataType.INTEGER,
    }
    price = model.dataset("products").field("price")  # type: ignore[union-attr]
    assert price is not None and price.data_type is DataType.DECIMAL
    assert links(model, RelationshipSource.FOREIGN_KEY) == FK_LINKS
    assert links(model, RelationshipSource.INFERRED) == INFERRED_LINKS
    return model


def run_statements(execute: Callable[[str], object], statements: list[str]) -> None:
    for statement in statements:
        execute(statement)


def test_sqlite(tmp_path: Path) -> None:
    path = tmp_path / "shop.db"
    with sqlite3.connect(path) as conn:
        run_statements(conn.execute, shop_ddl() + shop_rows())
    conn.close()
    check_shop(
        introspect(ConnectionSpec(dialect="sqlite", database=str(path)), LOCAL), "sqlite", "main"
    )
    check_shop(
        introspect(ConnectionSpec(dialect="sqlite", url=f"sqlite:///{path}"), LOCAL),
        "sqlite",
        "main",
    )


def test_duckdb(tmp_path: Path) -> None:
    path = tmp_path / "shop.duckdb"
    with duckdb.connect(str(path)) as conn:
        run_statements(conn.execute, shop_ddl() + shop_rows())
    check_shop(
        introspect(ConnectionSpec(dialect="duckdb", database=str(path)), LOCAL), "duckdb", "main"
    )
    assert (
        len(introspect(ConnectionSpec(dialect="duckdb", url=f"duckdb:///{path}"), LOCAL).tables)
        == 10
    )  # an absolute path
    assert (
        len(introspect(ConnectionSpec(dialect="duckdb", **{"database": str(path)}), LOCAL).tables)
        == 10
    )


@pytest.mark.postgres
def test_postgresql(postgres_db: str) -> None:
    with psycopg.connect(postgres_db, autocommit=True) as conn:
        run_statements(conn.execute, shop_ddl() + shop_rows())
        # the same table name in a second schema, a mixed-case table, an enum and a comment
        run_statements(
            conn.execute,
            [
                "CREATE SCHEMA sales",
                "CREATE TYPE sales.tier AS ENUM ('gold', 'silver')",
                "CREATE TABLE sales.orders (id integer PRIMARY KEY, tier sales.tier, "
                '"Order Date" date)',
                "INSERT INTO sales.orders VALUES (1, 'gold', '2024-01-01'), (2, 'silver', NULL)",
                "COMMENT ON TABLE sales.orders IS 'Orders of the sales team.'",
                'CREATE TABLE public."MixedCase" (id integer PRIMARY KEY, "Value" text)',
                # partitions are not datasets of their own; a type SQLAlchemy does not know
                "CREATE TABLE sales.events (id integer, at date, spot point) "
                "PARTITION BY RANGE (at)",
                "CREATE TABLE sales.events_2024 PARTITION OF sales.events "
                "FOR VALUES FROM ('2024-01-01') TO ('2025-01-01')",
                "INSERT INTO sales.events VALUES (1, '2024-05-01', '(1,2)')",
            ],
        )
    with postgres_reader(postgres_db, schemas=("public", "sales")) as reader:
        spec = ConnectionSpec(dialect="postgresql", url=reader)  # type: ignore[arg-type]
        snapshot = introspect(spec, LOCAL)
        public = introspect(spec, LOCAL, IntrospectionOptions(schemas=["public"]))
    assert snapshot.database == urlsplit(postgres_db).path.lstrip("/")
    model = generate_semantic_model(snapshot, "shop")
    sales = model.dataset("sales_orders")
    assert sales is not None and sales.source == "sales.orders"
    assert sales.description == "Orders of the sales team."
    tier = sales.field("tier")
    assert tier is not None and tier.native_type == "ENUM(sales.tier)"
    assert tier.sample_values == ["gold", "silver"] and tier.data_type is DataType.VARCHAR
    assert sales.field("Order_Date").expression == '"Order Date"'  # type: ignore[union-attr]
    assert model.dataset("public_orders") is not None
    events = model.dataset("events")
    assert events is not None and events.row_count == 1
    assert events.field("spot").native_type == "point"  # type: ignore[union-attr]
    assert model.dataset("events_2024") is None
    mixed = model.dataset("MixedCase")
    assert mixed is not None and mixed.field("Value").expression == '"Value"'  # type: ignore[union-attr]

    public.tables = [t for t in public.tables if t.name != "MixedCase"]
    check_shop(public, "postgresql", "public")


@pytest.mark.postgres
def test_postgresql_reads_the_catalog_in_a_bounded_number_of_statements(
    postgres_db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """120 tables cost about as many statements as 10: reflection and sampling are batched."""
    with psycopg.connect(postgres_db, autocommit=True) as conn:
        conn.execute(
            ";".join(
                f"CREATE TABLE t{i} (id integer PRIMARY KEY, kind text, "
                f"prev_id integer REFERENCES t{max(i - 1, 0)} (id)); "
                f"INSERT INTO t{i} VALUES (1, 'a', NULL), (2, 'b', 1)"
                for i in range(120)
            )
        )
    statements: list[str] = []
    create_engine = sa.create_engine

    def counting_engine(*args: object, **kwargs: object) -> sa.Engine:
        engine = create_engine(*args, **kwargs)  # type: ignore[arg-type]
        sa.event.listen(
            engine, "before_cursor_execute", lambda *a: statements.append(a[2]), named=False
        )
        return engine

    monkeypatch.setattr(introspection.sa, "create_engine", counting_engine)
    with postgres_reader(postgres_db) as reader:
        spec = ConnectionSpec(dialect="postgresql", url=reader)  # type: ignore[arg-type]
        snapshot = introspect(spec, LOCAL)
    assert len(snapshot.tables) == 120
    assert all(t.row_estimate == 2 for t in snapshot.tables)
    assert all(t.columns[1].sample_values == ["a", "b"] for t in snapshot.tables)
    assert len(statements) <= 30, len(statements)
    model = generate_semantic_model(snapshot, "many")
    assert len(model.relationships) == 120


@pytest.mark.mysql
def test_mariadb(mysql_db: str) -> None:
    parts = urlsplit(mysql_db)
    database = parts.path.lstrip("/")
    conn = pymysql.connect(
        host=parts.hostname, port=parts.port or 3306, user=parts.username, database=database
    )
    try:
        with conn.cursor() as cur:
            run_statements(cur.execute, shop_ddl("DATETIME") + shop_rows())
        conn.commit()
    finally:
        conn.close()
    with mysql_reader(mysql_db) as reader:
        snapshot = introspect(ConnectionSpec(dialect="mysql", url=reader), LOCAL)  # type: ignore[arg-type]
        by_parts = ConnectionSpec(
            dialect="mysql",
            host=parts.hostname,
            port=parts.port,
            username=urlsplit(reader).username,
            database=database,
        )
        assert len(introspect(by_parts, LOCAL).tables) == 10
    assert snapshot.database == database
    check_shop(snapshot, "mysql", database)


def test_a_missing_database_is_a_connection_failure(tmp_path: Path) -> None:
    for dialect in ("sqlite", "duckdb"):
        with pytest.raises(DataAgentError) as caught:
            introspect(
                ConnectionSpec(dialect=dialect, database=str(tmp_path / "missing.db")), LOCAL
            )  # type: ignore[arg-type]
        assert caught.value.code is ErrorCode.CONNECTION_FAILED
        assert str(tmp_path) not in caught.value.message
    assert not (tmp_path / "missing.db").exists()  # read-only: nothing created


def test_introspection_never_writes(tmp_path: Path) -> None:
    path = tmp_path / "shop.db"
    with sqlite3.connect(path) as conn:
        run_statements(conn.execute, shop_ddl() + shop_rows())
    conn.close()
    before = path.read_bytes()
    introspect(ConnectionSpec(dialect="sqlite", database=str(path)), LOCAL)
    assert path.read_bytes() == before


@pytest.mark.postgres
def test_url_parameters_are_kept_so_a_connection_that_tests_also_introspects(
    postgres_db: str,
) -> None:
    """Introspection opens through the executor's own opener: URL parameters reach libpq."""
    with psycopg.connect(postgres_db, autocommit=True) as conn:
        run_statements(conn.execute, shop_ddl() + shop_rows())
    with postgres_reader(postgres_db) as reader:
        url = f"{reader}?sslmode=disable&keepalives=1&target_session_attrs=any"
        spec = ConnectionSpec(dialect="postgresql", url=url)  # type: ignore[arg-type]
        assert spec.endpoint().params["sslmode"] == "disable"
        check_shop(introspect(spec, LOCAL), "postgresql", "public")
        bad = ConnectionSpec(dialect="postgresql", url=f"{reader}?sslmode=require")  # type: ignore[arg-type]
        with pytest.raises(DataAgentError) as caught:  # the parameter took effect: no TLS here
            introspect(bad, LOCAL)
        assert caught.value.code is ErrorCode.CONNECTION_FAILED


def test_privileged_accounts_are_refused_for_introspection_too(postgres_db: str) -> None:
    admin = ConnectionSpec(dialect="postgresql", url=postgres_db)  # type: ignore[arg-type]
    with pytest.raises(DataAgentError) as caught:
        introspect(admin, LOCAL)
    assert caught.value.code is ErrorCode.FORBIDDEN


def test_options_turn_off_samples_counts_and_views(tmp_path: Path) -> None:
    path = tmp_path / "shop.db"
    with sqlite3.connect(path) as conn:
        run_statements(conn.execute, shop_ddl() + shop_rows())
    conn.close()
    options = IntrospectionOptions(sample_values=False, count_rows=False, include_views=False)
    snapshot = introspect(ConnectionSpec(dialect="sqlite", database=str(path)), LOCAL, options)
    assert "open_orders" not in {t.name for t in snapshot.tables}
    assert all(t.row_estimate is None for t in snapshot.tables)
    assert all(not c.sample_values for t in snapshot.tables for c in t.columns)
    few = introspect(
        ConnectionSpec(dialect="sqlite", database=str(path)),
        LOCAL,
        IntrospectionOptions(sample_max_distinct=2),
    )
    customers = next(t for t in few.tables if t.name == "customers")
    assert next(c for c in customers.columns if c.name == "segment").sample_values == []
