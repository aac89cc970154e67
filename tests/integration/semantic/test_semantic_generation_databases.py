"""Semantic models generated from real databases: the demo retailer and Spider's SQLite files."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import LOCAL, SPIDER_SQLITE, postgres_reader

from dataagent.demo import DemoData, load_postgres, write_duckdb, write_sqlite
from dataagent.semantic.generation import generate_semantic_model
from dataagent.semantic.model import Cardinality, RelationshipSource, SemanticModel
from dataagent.semantic.yaml_io import dump_dataset_yaml, dump_yaml, load_yaml
from dataagent.sources.engines import ConnectionSpec
from dataagent.sources.introspection import introspect

SPIDER = SPIDER_SQLITE
DEMO_TABLES = {"stores", "customers", "categories", "products", "orders", "order_items"}
DEMO_LINKS = {
    ("products", "category_id", "categories", "id"),
    ("orders", "customer_id", "customers", "id"),
    ("orders", "store_id", "stores", "id"),
    ("order_items", "order_id", "orders", "id"),
    ("order_items", "product_id", "products", "id"),
}


def check_demo(model: SemanticModel) -> None:
    assert {d.name for d in model.datasets} == DEMO_TABLES
    declared = {
        (r.from_dataset, r.from_columns[0], r.to_dataset, r.to_columns[0])
        for r in model.relationships
        if r.source is RelationshipSource.FOREIGN_KEY
    }
    assert declared == DEMO_LINKS
    assert all(r.cardinality is Cardinality.MANY_TO_ONE for r in model.relationships)
    assert load_yaml(dump_yaml(model)) == model
    for dataset in model.datasets:
        assert dataset.primary_key == ["id"]
        assert dataset.row_count and dataset.row_count > 0
        assert dataset.description
    customers = model.dataset("customers")
    assert customers is not None
    segment = customers.field("segment")
    assert segment is not None and segment.sample_values  # a low-cardinality category


def test_demo_duckdb(demo_data: DemoData, tmp_path: Path) -> None:
    path = tmp_path / "demo.duckdb"
    write_duckdb(demo_data, path)
    model = generate_semantic_model(
        introspect(ConnectionSpec(dialect="duckdb", database=str(path)), LOCAL), "demo"
    )
    check_demo(model)
    assert model.dataset("orders").source == "main.orders"  # type: ignore[union-attr]
    # the same database always gives the same YAML
    assert dump_yaml(
        generate_semantic_model(
            introspect(ConnectionSpec(dialect="duckdb", database=str(path)), LOCAL), "demo"
        )
    ) == (dump_yaml(model))


def test_demo_sqlite(demo_data: DemoData, tmp_path: Path) -> None:
    path = tmp_path / "demo.sqlite"
    write_sqlite(demo_data, path)
    check_demo(
        generate_semantic_model(
            introspect(ConnectionSpec(dialect="sqlite", database=str(path)), LOCAL), "demo"
        )
    )


@pytest.mark.postgres
def test_demo_postgresql(demo_data: DemoData, postgres_db: str) -> None:
    load_postgres(demo_data, postgres_db)
    with postgres_reader(postgres_db) as reader:
        spec = ConnectionSpec(dialect="postgresql", url=reader)  # type: ignore[arg-type]
        model = generate_semantic_model(introspect(spec, LOCAL), "demo")
    check_demo(model)
    assert model.dataset("orders").source == "public.orders"  # type: ignore[union-attr]


def spider_databases() -> list[Any]:
    """Every Spider database; without the data one placeholder, which the `evaldata` fixture
    skips (or fails in CI) rather than leaving an empty, silently skipped parameter set."""
    found = sorted(SPIDER.glob("*.sqlite")) if SPIDER.is_dir() else []
    return found or [pytest.param(SPIDER / "absent.sqlite", id="evaldata-absent")]


@pytest.mark.usefixtures("evaldata")
def test_spider_concert_singer() -> None:
    model = generate_semantic_model(
        introspect(
            ConnectionSpec(dialect="sqlite", database=str(SPIDER / "concert_singer.sqlite")), LOCAL
        ),
        "concert_singer",
    )
    assert [d.name for d in model.datasets] == ["concert", "singer", "singer_in_concert", "stadium"]
    links = {(r.from_dataset, tuple(r.from_columns), r.to_dataset) for r in model.relationships}
    assert links == {
        ("concert", ("Stadium_ID",), "stadium"),
        ("singer_in_concert", ("concert_ID",), "concert"),
        ("singer_in_concert", ("Singer_ID",), "singer"),
    }
    singer = model.dataset("singer")
    assert singer is not None
    assert singer.field("Country").sample_values == [  # type: ignore[union-attr]
        "France",
        "Netherlands",
        "United States",
    ]
    text = dump_dataset_yaml(singer, model.relationships)
    assert text.startswith("name: singer\ndescription: Singer table with 6 rows.\n")


@pytest.mark.usefixtures("evaldata")
@pytest.mark.parametrize("path", spider_databases(), ids=lambda p: p.stem)
def test_spider_every_declared_foreign_key_becomes_a_relationship(path: Path) -> None:
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        declared = sum(
            len({row[0] for row in conn.execute(f'PRAGMA foreign_key_list("{t}")')}) for t in tables
        )
    conn.close()
    model = generate_semantic_model(
        introspect(ConnectionSpec(dialect="sqlite", database=str(path)), LOCAL), path.stem
    )
    assert len(model.datasets) == len(tables)
    fks = [r for r in model.relationships if r.source is RelationshipSource.FOREIGN_KEY]
    assert len(fks) == declared
    assert load_yaml(dump_yaml(model)) == model
