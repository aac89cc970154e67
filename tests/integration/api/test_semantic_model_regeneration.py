"""Regenerating a semantic model over HTTP: the database changed, people's edits stay."""

from __future__ import annotations

import sqlite3
import uuid
from pathlib import Path
from typing import Any

import duckdb
import pytest
import yaml
from sqlalchemy import select, update
from tests.integration.api.conftest import World

from dataagent.store.models import AuditEvent, SemanticModelRecord

TABLES = (
    "CREATE TABLE customers (id INTEGER PRIMARY KEY, name VARCHAR(50))",
    "CREATE TABLE orders (id INTEGER PRIMARY KEY,"
    " customer_id INTEGER REFERENCES customers (id), total DECIMAL(10,2))",
    "CREATE TABLE order_items (id INTEGER PRIMARY KEY,"
    " order_id INTEGER REFERENCES orders (id), quantity INTEGER, unit_price DECIMAL(10,2))",
    "CREATE TABLE stores (id INTEGER PRIMARY KEY, city VARCHAR(50))",
    "INSERT INTO customers VALUES (1, 'Ana'), (2, 'Bo')",
    "INSERT INTO orders VALUES (1, 1, 150.00), (2, 2, 20.50)",
    "INSERT INTO order_items VALUES (1, 1, 3, 50.00), (2, 2, 1, 20.50)",
    "INSERT INTO stores VALUES (1, 'Oslo')",
)
# The database changes under the model: a new column, a table gone.
CHANGES = ("ALTER TABLE orders ADD COLUMN note VARCHAR(200)", "DROP TABLE stores")


def run(dialect: str, path: Path, statements: tuple[str, ...]) -> None:
    """Run DDL/DML on the test's own database file (not through Data Agent: it only reads)."""
    if dialect == "sqlite":
        with sqlite3.connect(path) as db:
            for statement in statements:
                db.execute(statement)
        db.close()
    else:
        with duckdb.connect(str(path)) as db:
            for statement in statements:
                db.execute(statement)


def edit(text: str) -> str:
    """A person's edits: a generated metric re-described, a metric of their own, and a
    generated field (with the metric over it) deleted."""
    data: dict[str, Any] = yaml.safe_load(text)
    orders_count = next(m for m in data["metrics"] if m["name"] == "orders_count")
    orders_count["description"] = "Orders placed, whatever their status."
    data["metrics"].append(
        {
            "name": "big_orders",
            "label": "Big orders",
            "dataset": "orders",
            "aggregation": "count",
            "filter": "total > 100",
        }
    )
    data["metrics"] = [m for m in data["metrics"] if m["name"] != "total_line_amount"]
    items = next(d for d in data["datasets"] if d["name"] == "order_items")
    items["fields"] = [f for f in items["fields"] if f["name"] != "line_amount"]
    return yaml.safe_dump(data, sort_keys=False)


def parsed(record: dict[str, Any]) -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(record["yaml"])
    return data


def field_names(data: dict[str, Any], dataset: str) -> list[str]:
    return [f["name"] for d in data["datasets"] if d["name"] == dataset for f in d["fields"]]


def metric(data: dict[str, Any], name: str) -> dict[str, Any] | None:
    return next((m for m in data["metrics"] if m["name"] == name), None)


@pytest.mark.parametrize("dialect", ["sqlite", "duckdb"])
async def test_regenerate_keeps_edits_and_follows_the_database(
    world: World, tmp_path: Path, dialect: str
) -> None:
    client = world.contributor.client
    path = tmp_path / f"shop.{dialect}"
    run(dialect, path, TABLES)
    connection = await client.post(
        "/api/connections", json={"name": "shop", "dialect": dialect, "database": str(path)}
    )
    assert connection.status_code == 201, connection.text
    created = await client.post(
        "/api/semantic-models",
        json={"connectionId": connection.json()["data"]["id"], "name": "shop"},
    )
    assert created.status_code == 201, created.text
    model_id = created.json()["data"]["id"]
    generated = parsed(created.json()["data"])
    assert "line_amount" in field_names(generated, "order_items")
    assert metric(generated, "stores_count") is not None
    assert metric(generated, "total_line_amount") is not None

    edited = await client.patch(
        f"/api/semantic-models/{model_id}", json={"yaml": edit(created.json()["data"]["yaml"])}
    )
    assert edited.status_code == 200, edited.text
    run(dialect, path, CHANGES)

    response = await client.post(f"/api/semantic-models/{model_id}/regenerate")
    assert response.status_code == 200, response.text
    record = response.json()["data"]
    data = parsed(record)
    # the person's edits are kept
    described = metric(data, "orders_count")
    assert described is not None
    assert described["description"] == "Orders placed, whatever their status."
    assert "generated" not in described  # edited by a person: no longer a proposal
    assert metric(data, "big_orders") is not None
    assert "line_amount" not in field_names(data, "order_items")
    assert metric(data, "total_line_amount") is None
    # the database's changes are followed
    assert "note" in field_names(data, "orders")
    assert "stores" not in {d["name"] for d in data["datasets"]}
    assert metric(data, "stores_count") is None
    assert record["datasetCount"] == 3
    changes = {(c["kind"], c["name"]): c for c in record["changes"]}
    assert {key: c["change"] for key, c in changes.items()} == {
        ("metric", "orders_count"): "kept_edit",
        ("field", "order_items.line_amount"): "kept_deletion",
        ("metric", "total_line_amount"): "kept_deletion",
        ("field", "orders.note"): "added",
        ("dataset", "stores"): "removed",
        ("metric", "stores_count"): "removed",
    }
    assert changes[("metric", "orders_count")]["reason"] == "edited by you (description)"
    assert "main.stores" in changes[("dataset", "stores")]["reason"]

    # what was stored is what was answered; a second regeneration changes nothing more
    stored = (await client.get(f"/api/semantic-models/{model_id}")).json()["data"]
    assert stored["yaml"] == record["yaml"]
    again = (await client.post(f"/api/semantic-models/{model_id}/regenerate")).json()["data"]
    assert again["yaml"] == record["yaml"]
    assert {c["change"] for c in again["changes"]} == {"kept_edit", "kept_deletion"}
    kept = next(c for c in again["changes"] if c["name"] == "orders_count")
    assert kept["reason"] == "edited by you (description)"

    async with world.database.session() as session:
        actions = await session.scalars(
            select(AuditEvent.action).where(AuditEvent.object_id == model_id)
        )
        assert list(actions).count("semantic_model.regenerate") == 2


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_a_model_stored_without_its_generation_regenerates_too(
    world: World, tmp_path: Path
) -> None:
    client = world.contributor.client
    path = tmp_path / "shop.sqlite"
    run("sqlite", path, TABLES)
    connection = await client.post(
        "/api/connections", json={"name": "shop", "dialect": "sqlite", "database": str(path)}
    )
    created = await client.post(
        "/api/semantic-models",
        json={"connectionId": connection.json()["data"]["id"], "name": "shop"},
    )
    model_id = created.json()["data"]["id"]
    data = parsed(created.json()["data"])
    customers = next(d for d in data["datasets"] if d["name"] == "customers")
    customers["fields"][1]["description"] = "Full name, as written on the card."
    await client.patch(
        f"/api/semantic-models/{model_id}", json={"yaml": yaml.safe_dump(data, sort_keys=False)}
    )
    # as stored before regeneration existed: no generation kept
    async with world.database.session() as session:
        await session.execute(
            update(SemanticModelRecord)
            .where(SemanticModelRecord.id == uuid.UUID(model_id))
            .values(generated_yaml=None)
        )
        await session.commit()
    run("sqlite", path, CHANGES)

    response = await client.post(f"/api/semantic-models/{model_id}/regenerate")
    assert response.status_code == 200, response.text
    record = response.json()["data"]
    data = parsed(record)
    name = next(f for f in data["datasets"][0]["fields"] if f["name"] == "name")
    assert name["description"] == "Full name, as written on the card."
    assert "note" in field_names(data, "orders")
    changes = {(c["kind"], c["name"]): c["change"] for c in record["changes"]}
    assert changes[("field", "customers.name")] == "kept_edit"
    assert changes[("dataset", "stores")] == "removed"


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_regenerate_needs_the_owner_a_writer_and_a_connection(
    world: World, tmp_path: Path
) -> None:
    client = world.contributor.client
    path = tmp_path / "shop.sqlite"
    run("sqlite", path, TABLES)
    connection = await client.post(
        "/api/connections", json={"name": "shop", "dialect": "sqlite", "database": str(path)}
    )
    connection_id = connection.json()["data"]["id"]
    created = await client.post(
        "/api/semantic-models", json={"connectionId": connection_id, "name": "shop"}
    )
    model_id = created.json()["data"]["id"]

    assert (
        await world.viewer.client.post(f"/api/semantic-models/{model_id}/regenerate")
    ).status_code == 403
    foreign = await world.other.client.post(f"/api/semantic-models/{model_id}/regenerate")
    assert foreign.status_code == 404
    missing = await client.post(f"/api/semantic-models/{uuid.uuid4()}/regenerate")
    assert missing.status_code == 404

    assert (await client.delete(f"/api/connections/{connection_id}")).status_code == 204
    orphaned = await client.post(f"/api/semantic-models/{model_id}/regenerate")
    assert orphaned.status_code == 400, orphaned.text
    error = orphaned.json()["error"]
    assert error["code"] == "VALIDATION_ERROR"
    assert "no connection" in error["message"]
    # nothing was lost
    kept = await client.get(f"/api/semantic-models/{model_id}")
    assert kept.json()["data"]["yaml"] == created.json()["data"]["yaml"]
