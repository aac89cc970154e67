"""`GET /api/ontologies/{id}/suggestions`: questions drawn from a ready ontology's model."""

from __future__ import annotations

import sqlite3
import uuid

import pytest
from sqlalchemy import select
from tests.integration.api.conftest import Account, World

from dataagent.semantic.suggestions import suggest_questions
from dataagent.semantic.yaml_io import load_yaml
from dataagent.services import connections, ontologies, semantic_models
from dataagent.store.models import Ontology


async def _shop_ontology(world: World, owner: Account) -> uuid.UUID:
    """A ready ontology of a small shop: customers with a segment, and their dated orders."""
    path = world.context.settings.data_dir.parent / f"shop-{uuid.uuid4().hex[:8]}.db"
    with sqlite3.connect(path) as db:
        db.execute(
            "CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT NOT NULL, "
            "segment TEXT NOT NULL)"
        )
        db.execute(
            "CREATE TABLE orders (id INTEGER PRIMARY KEY, "
            "customer_id INTEGER NOT NULL REFERENCES customers (id), order_date DATE NOT NULL, "
            "status TEXT NOT NULL, amount DECIMAL(10,2) NOT NULL)"
        )
        db.executemany(
            "INSERT INTO customers VALUES (?, ?, ?)",
            [(i, f"Customer {i}", ("consumer", "business")[i % 2]) for i in range(1, 21)],
        )
        db.executemany(
            "INSERT INTO orders VALUES (?, ?, ?, ?, ?)",
            [
                (i, 1 + i % 20, f"2025-{1 + i % 12:02d}-15", ("paid", "refunded")[i % 7 == 0], i)
                for i in range(1, 201)
            ],
        )
    db.close()
    async with world.database.session() as session:
        connection = await connections.create_connection(
            world.context, session, owner.id, "Shop", {"dialect": "sqlite", "database": str(path)}
        )
        model = await semantic_models.create_from_connection(
            world.context, session, owner.id, connection.id, "shop", None
        )
        ontology = await ontologies.create_ontology(
            world.context, session, owner.id, model.id, "Shop", None
        )
        await world.context.builds.wait(ontology.id)
        return ontology.id


async def test_a_ready_ontology_suggests_questions_from_its_model(world: World) -> None:
    ontology_id = await _shop_ontology(world, world.contributor)
    response = await world.contributor.client.get(f"/api/ontologies/{ontology_id}/suggestions")
    assert response.status_code == 200, response.text
    found = response.json()["data"]
    assert len(found) == 4  # the default limit
    assert [s["title"] for s in found] == [
        "Top customers by amount",
        "Customers by segment",
        "Total amount per month",
        "Total amount by status",
    ]
    assert found[0] == {
        "title": "Top customers by amount",
        "description": "The 10 customers with the highest total amount of orders.",
        "prompt": "Show the top 10 customers by total amount of orders.",
    }
    # Exactly the pure function of the model the ontology was built from.
    async with world.database.session() as session:
        stored = await session.scalar(select(Ontology).where(Ontology.id == ontology_id))
        assert stored is not None and stored.model_yaml
        model = load_yaml(stored.model_yaml)
    assert found == [
        {"title": s.title, "description": s.description, "prompt": s.prompt}
        for s in suggest_questions(model, 4)
    ]
    # And the same on every call.
    again = await world.contributor.client.get(f"/api/ontologies/{ontology_id}/suggestions")
    assert again.json()["data"] == found


async def test_limit_takes_1_to_8(world: World) -> None:
    ontology_id = await _shop_ontology(world, world.contributor)
    url = f"/api/ontologies/{ontology_id}/suggestions"
    one = await world.contributor.client.get(url, params={"limit": 1})
    eight = await world.contributor.client.get(url, params={"limit": 8})
    assert len(one.json()["data"]) == 1
    assert 1 < len(eight.json()["data"]) <= 8
    assert eight.json()["data"][0] == one.json()["data"][0]
    for bad in ("0", "9", "-1", "x", ""):
        response = await world.contributor.client.get(url, params={"limit": bad})
        assert response.status_code == 400, bad
        error = response.json()["error"]
        assert error["code"] == "VALIDATION_ERROR" and error["details"][0]["field"] == "limit"


async def test_a_small_table_is_offered_to_explore(world: World) -> None:
    ontology_id = await world.make_ontology(world.contributor)
    response = await world.contributor.client.get(f"/api/ontologies/{ontology_id}/suggestions")
    assert response.json()["data"] == [
        {
            "title": "Explore customers",
            "description": "A first look at the customers data: a few of its rows.",
            "prompt": "Show a few customers.",
        }
    ]


@pytest.mark.parametrize("status", ["building", "failed"])
async def test_an_ontology_that_is_not_ready_is_a_400(world: World, status: str) -> None:
    ontology_id = await world.make_ontology(world.contributor, status=status)
    response = await world.contributor.client.get(f"/api/ontologies/{ontology_id}/suggestions")
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "VALIDATION_ERROR" and status in error["message"]


async def test_someone_elses_or_no_ontology_is_a_404(world: World) -> None:
    theirs = await world.make_ontology(world.other)
    for ontology_id in (theirs, uuid.uuid4()):
        response = await world.contributor.client.get(f"/api/ontologies/{ontology_id}/suggestions")
        assert response.status_code == 404
        assert response.json()["error"]["code"] == "NOT_FOUND"


async def test_a_viewer_reads_suggestions_of_their_ontology(world: World) -> None:
    ontology_id = await world.make_ontology(world.viewer)
    response = await world.viewer.client.get(f"/api/ontologies/{ontology_id}/suggestions")
    assert response.status_code == 200
    assert response.json()["data"][0]["title"] == "Explore customers"


async def test_signing_in_is_required(world: World) -> None:
    ontology_id = await world.make_ontology(world.contributor)
    response = await world.anon.get(f"/api/ontologies/{ontology_id}/suggestions")
    assert response.status_code == 401


async def test_the_route_is_in_the_openapi_document(world: World) -> None:
    paths = (await world.anon.get("/openapi.json")).json()["paths"]
    operation = paths["/api/ontologies/{ontology_id}/suggestions"]["get"]
    assert operation["operationId"] == "getOntologySuggestions"
    limit = next(p for p in operation["parameters"] if p["name"] == "limit")
    assert {k: limit["schema"][k] for k in ("type", "minimum", "maximum", "default")} == {
        "type": "integer",
        "minimum": 1,
        "maximum": 8,
        "default": 4,
    }
