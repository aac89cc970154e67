"""Search over HTTP finds metrics next to datasets once the semantic model has metrics and
the ontology is built from it; a metric without a vector is re-embedded by the backfill."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import select, update
from tests.fixtures.metrics import RETAIL_METRICS, yaml_with_metrics
from tests.integration.api.conftest import World, built

from dataagent.demo import DemoData
from dataagent.demo.loaders import write_sqlite
from dataagent.services import ontologies, semantic_models
from dataagent.store import ontologies as store
from dataagent.store.models import Ontology, OntologyMetric


async def _search(
    client: httpx.AsyncClient, ontology_id: str, q: str, k: int = 5
) -> dict[str, Any]:
    response = await client.get(f"/api/ontologies/{ontology_id}/search", params={"q": q, "k": k})
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()["data"]
    return data


async def test_search_returns_metrics_and_the_datasets_they_read(
    world: World, demo_data: DemoData, tmp_path: Path
) -> None:
    client = world.contributor.client
    path = tmp_path / "retail.db"
    write_sqlite(demo_data, path)
    connection = await client.post(
        "/api/connections",
        json={"name": "retail", "dialect": "sqlite", "database": str(path)},
    )
    assert connection.status_code == 201, connection.text
    model = await client.post(
        "/api/semantic-models",
        json={"connectionId": connection.json()["data"]["id"], "name": "retail"},
    )
    assert model.status_code == 201, model.text
    model_id = model.json()["data"]["id"]
    ontology = await client.post(
        "/api/ontologies", json={"semanticModelId": model_id, "name": "Retail"}
    )
    ontology_id = ontology.json()["data"]["id"]
    assert (await built(client, ontology_id))["status"] == "ready"

    # Built before the retail metrics were written: none of them is found.
    mine = {m["name"] for m in RETAIL_METRICS}
    before = await _search(client, ontology_id, "margin")
    assert not mine & {m["name"] for m in before["metrics"]}
    assert before["datasets"]

    patched = await client.patch(
        f"/api/semantic-models/{model_id}",
        json={"yaml": yaml_with_metrics(model.json()["data"]["yaml"])},
    )
    assert patched.status_code == 200, patched.text
    # The ontology keeps the model it was built from until it is rebuilt.
    assert (await _search(client, ontology_id, "margin")) == before
    rebuilt = await client.post(f"/api/ontologies/{ontology_id}/rebuild")
    assert rebuilt.status_code == 202
    assert (await built(client, ontology_id))["status"] == "ready"

    margin = await _search(client, ontology_id, "margin")
    assert {m["name"] for m in margin["metrics"][:2]} == {"gross_margin", "margin_pct"}
    first = margin["metrics"][0]
    assert set(first) == {
        "name",
        "label",
        "description",
        "format",
        "datasets",
        "score",
        "cosine",
        "keyword",
    }
    assert first["datasets"] == ["order_items", "products", "orders"]
    top = margin["datasets"][:3]
    assert {"order_items", "products"} <= {d["name"] for d in top}
    assert {d["viaMetric"] for d in top} <= {"gross_margin", "margin_pct"}
    assert all(d["score"] == first["score"] for d in top if d["viaMetric"] == first["name"])

    rate = await _search(client, ontology_id, "return rate", k=3)
    assert len(rate["metrics"]) == 3 and len(rate["datasets"]) == 3
    hit = rate["metrics"][0]
    assert (hit["name"], hit["label"], hit["format"], hit["datasets"]) == (
        "return_rate",
        "Return rate",
        "percent",
        ["orders"],
    )
    assert hit["description"] == "Share of orders that were returned."
    assert rate["datasets"][0] == {
        **rate["datasets"][0],
        "name": "orders",
        "viaMetric": "return_rate",
    }

    # The welcome screen now offers the metrics first.
    suggested = await client.get(f"/api/ontologies/{ontology_id}/suggestions")
    assert suggested.status_code == 200
    assert [s["title"].split(" ")[0] for s in suggested.json()["data"][:2]] == ["Revenue", "Gross"]

    # Someone else's ontology stays a 404, metrics or not.
    other = await world.other.client.get(
        f"/api/ontologies/{ontology_id}/search", params={"q": "margin"}
    )
    assert other.status_code == 404


async def test_the_search_response_is_in_the_openapi_document(world: World) -> None:
    schema = (await world.anon.get("/openapi.json")).json()
    operation = schema["paths"]["/api/ontologies/{ontology_id}/search"]["get"]
    assert operation["operationId"] == "searchOntology"
    result = schema["components"]["schemas"]["SearchResult"]
    assert set(result["properties"]) == {"datasets", "metrics"}
    metric = schema["components"]["schemas"]["MetricHit"]
    assert metric["properties"]["format"] == {"$ref": "#/components/schemas/MetricFormat"}
    assert "viaMetric" in schema["components"]["schemas"]["SearchHit"]["properties"]


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_a_metric_without_a_vector_makes_its_ontology_stale(world: World) -> None:
    ctx = world.context
    owner = world.contributor
    ontology_id = await world.make_ontology(owner)
    customers = [
        {
            "name": "customer_count",
            "label": "Customers",
            "dataset": "customers",
            "aggregation": "count",
        }
    ]
    async with world.database.session() as session:
        ontology = await session.get(Ontology, ontology_id)
        assert ontology is not None and ontology.semantic_model_id is not None
        record = await semantic_models.get_semantic_model(
            session, owner.id, ontology.semantic_model_id
        )
        await semantic_models.update_semantic_model(
            session, owner.id, record.id, None, None, yaml_with_metrics(record.yaml, customers)
        )
        await ontologies.rebuild_ontology(ctx, session, owner.id, ontology_id)
    await ctx.builds.wait(ontology_id)
    provider_name = ctx.embeddings.name
    async with world.database.session() as session:
        assert ontology_id not in await store.stale_ontology_ids(session, provider_name)
        await session.execute(update(OntologyMetric).values(embedding=None))
        await session.commit()
        assert ontology_id in await store.stale_ontology_ids(session, provider_name)
    assert await ontologies.backfill_stale(ctx) == 1
    async with world.database.session() as session:
        (vector,) = (await session.scalars(select(OntologyMetric.embedding))).all()
        assert vector
    found = await _search(owner.client, str(ontology_id), "how many customers")
    assert [m["name"] for m in found["metrics"]] == ["customer_count"]
    assert found["datasets"][0]["name"] == "customers"
