"""The data layer over HTTP: connection -> semantic model -> ontology -> search, joins, SQL."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import yaml
from tests.conftest import postgres_reader
from tests.integration.api.conftest import World, built

from dataagent.demo import DemoData, load_postgres, write_duckdb
from dataagent.demo.facts import DemoFacts
from dataagent.sources.datasets import DatasetFiles

DEMO_TABLES = {"stores", "customers", "categories", "products", "orders", "order_items"}
DEMO_LINKS = {
    ("products", "categories"),
    ("orders", "customers"),
    ("orders", "stores"),
    ("order_items", "orders"),
    ("order_items", "products"),
}


@pytest.fixture
def target(
    request: pytest.FixtureRequest, tmp_path: Path, demo_data: DemoData
) -> Iterator[dict[str, object]]:
    """The demo retailer in DuckDB, or in a fresh PostgreSQL database (by host/port/...)."""
    if request.param == "duckdb":
        path = tmp_path / "retail.duckdb"
        write_duckdb(demo_data, path)
        yield {"dialect": "duckdb", "database": str(path)}
        return
    url: str = request.getfixturevalue("postgres_db")
    load_postgres(demo_data, url)
    with postgres_reader(url) as reader:
        parts = urlsplit(reader)
        yield {
            "dialect": "postgresql",
            "host": parts.hostname,
            "port": parts.port,
            "database": parts.path.lstrip("/"),
            "username": parts.username,
            "password": "not-needed-with-trust-auth",
        }


async def _build(world: World, body: dict[str, object]) -> tuple[str, str]:
    client = world.contributor.client
    created = await client.post("/api/connections", json={"name": "retail", **body})
    assert created.status_code == 201, created.text
    connection = created.json()["data"]
    assert "password" not in created.text and "not-needed" not in created.text
    model = await client.post(
        "/api/semantic-models", json={"connectionId": connection["id"], "name": "retail"}
    )
    assert model.status_code == 201, model.text
    ontology = await client.post(
        "/api/ontologies", json={"semanticModelId": model.json()["data"]["id"], "name": "Retail"}
    )
    assert ontology.status_code == 201, ontology.text
    ontology_id = ontology.json()["data"]["id"]
    assert ontology.json()["data"]["status"] == "building"  # the build runs in the background
    status = await built(client, ontology_id)
    assert status["status"] == "ready", status
    return connection["id"], ontology_id


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
@pytest.mark.parametrize("target", ["duckdb", "postgresql"], indirect=True)
async def test_end_to_end(world: World, target: dict[str, object]) -> None:
    client = world.contributor.client
    connection_id, ontology_id = await _build(world, target)

    tested = await client.post(f"/api/connections/{connection_id}/test")
    assert tested.json()["data"]["ok"] is True
    assert tested.json()["data"]["serverVersion"]

    graph = (await client.get(f"/api/ontologies/{ontology_id}/graph")).json()["data"]
    assert {n["id"] for n in graph["nodes"]} == DEMO_TABLES
    assert {(e["source"], e["target"]) for e in graph["edges"]} >= DEMO_LINKS

    hits = await client.get(
        f"/api/ontologies/{ontology_id}/search", params={"q": "which product categories sell best"}
    )
    names = [h["name"] for h in hits.json()["data"]["datasets"]]
    assert {"categories", "products"} & set(names[:3])

    detail = await client.get(f"/api/ontologies/{ontology_id}/datasets/orders")
    assert detail.status_code == 200
    assert "customer_id" in detail.json()["data"]["yaml"]

    paths = await client.post(
        f"/api/ontologies/{ontology_id}/join-paths", json={"datasets": ["order_items", "stores"]}
    )
    assert paths.status_code == 200, paths.text
    assert paths.json()["data"][0]["datasets"]

    plan = {
        "datasets": ["orders", "stores"],
        "measures": [{"field": "orders.id", "aggregation": "count", "alias": "orders"}],
        "dimensions": [{"field": "stores.city", "alias": "city"}],
        "order": [{"by": "city", "direction": "asc"}],
    }
    compiled = await client.post(
        f"/api/ontologies/{ontology_id}/compile", json={"plan": plan, "execute": True}
    )
    assert compiled.status_code == 200, compiled.text
    result = compiled.json()["data"]["result"]
    assert result["rowCount"] == 10
    assert sum(row[1] for row in result["rows"]) == 33_000

    query = await client.post(
        "/api/query",
        json={"ontologyId": ontology_id, "sql": "SELECT COUNT(*) AS n FROM order_items"},
    )
    assert query.status_code == 200, query.text
    data = query.json()["data"]
    assert data["rows"] == [[100_942]]
    run = (await client.get(f"/api/runs/{data['runId']}")).json()["data"]
    assert run["status"] == "succeeded"
    assert run["mode"] == "sql"
    assert (await world.other.client.get(f"/api/runs/{data['runId']}")).status_code == 404

    capped = await client.post(
        "/api/query",
        json={"connectionId": connection_id, "sql": "SELECT id FROM orders", "maxRows": 7},
    )
    assert capped.json()["data"]["rowCount"] == 7
    assert capped.json()["data"]["truncated"] is True

    refused = await client.post(
        "/api/query", json={"ontologyId": ontology_id, "sql": "DELETE FROM orders"}
    )
    assert refused.status_code == 400
    assert refused.json()["error"]["code"] == "SQL_POLICY_VIOLATION"
    failed_run = refused.json()["error"]["details"]["runId"]
    assert (await client.get(f"/api/runs/{failed_run}")).json()["data"]["status"] == "failed"

    chat = await client.post(
        "/api/data-agent/chats", json={"name": "Houston", "ontologyId": ontology_id}
    )
    assert chat.status_code == 201
    assert (await client.delete(f"/api/ontologies/{ontology_id}")).status_code == 204
    chat_id = chat.json()["data"]["id"]
    assert (await client.get(f"/api/data-agent/chats/{chat_id}")).status_code == 404


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_connection_rules(world: World, tmp_path: Path) -> None:
    client = world.contributor.client
    secret = "s3cr3t-Pa55"
    created = await client.post(
        "/api/connections",
        json={
            "name": "pg",
            "dialect": "postgresql",
            "url": f"postgresql://ana:{secret}@db.internal:5432/sales",
        },
    )
    assert created.status_code == 201, created.text
    connection_id = created.json()["data"]["id"]
    for response in (
        created,
        await client.get("/api/connections"),
        await client.get(f"/api/connections/{connection_id}"),
    ):
        assert secret not in response.text
    unreachable = await client.post(f"/api/connections/{connection_id}/test")
    assert unreachable.json()["data"]["ok"] is False
    assert secret not in unreachable.text and "db.internal" not in unreachable.text

    assert (await world.other.client.get(f"/api/connections/{connection_id}")).status_code == 404
    viewer = await world.viewer.client.post(
        "/api/connections", json={"name": "x", "dialect": "sqlite", "database": "x.db"}
    )
    assert viewer.status_code == 403
    for bad in (
        {"name": "x", "dialect": "oracle", "database": "x"},
        {"name": "x", "dialect": "postgresql", "database": "sales"},
        {"name": "x", "dialect": "postgresql", "url": "mysql://a@b/c"},
    ):
        response = await client.post("/api/connections", json=bad)
        assert response.status_code == 400, (bad, response.text)
    own_file = {"name": "x", "dialect": "sqlite", "database": str(tmp_path / "data" / "secret_key")}
    response = await client.post("/api/connections", json=own_file)
    assert response.status_code == 403, response.text
    renamed = await client.patch(f"/api/connections/{connection_id}", json={"name": "renamed"})
    assert renamed.json()["data"]["name"] == "renamed"
    assert (await client.delete(f"/api/connections/{connection_id}")).status_code == 204
    assert (await client.get(f"/api/connections/{uuid.uuid4()}")).status_code == 404


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_semantic_model_yaml_errors_point_at_line(world: World, tmp_path: Path) -> None:
    client = world.contributor.client
    path = tmp_path / "tiny.duckdb"
    import duckdb

    with duckdb.connect(str(path)) as db:
        db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, name VARCHAR)")
    connection = await client.post(
        "/api/connections", json={"name": "t", "dialect": "duckdb", "database": str(path)}
    )
    model = await client.post(
        "/api/semantic-models",
        json={"connectionId": connection.json()["data"]["id"], "name": "tiny"},
    )
    record = model.json()["data"]
    broken = record["yaml"].replace("data_type: integer", "data_type: banana", 1)
    response = await client.patch(f"/api/semantic-models/{record['id']}", json={"yaml": broken})
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "VALIDATION_ERROR"
    line = next(i for i, text in enumerate(broken.splitlines(), 1) if "banana" in text)
    assert any(d.get("line") == line for d in error["details"]), error
    listed = await client.get("/api/semantic-models")
    assert [m["name"] for m in listed.json()["data"]] == ["tiny"]


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_file_datasets(world: World) -> None:
    client = world.contributor.client
    csv = b"city,revenue,opened\nHouston,10.5,2020-01-02\nDallas,20.25,2021-03-04\n"
    uploaded = await client.post(
        "/api/datasets",
        data={"name": "Store revenue", "description": "by city"},
        files={"files": ("stores.csv", csv, "text/csv")},
    )
    assert uploaded.status_code == 201, uploaded.text
    dataset = uploaded.json()["data"]
    assert dataset["versionHash"]
    assert dataset["prompts"]

    listed = (await client.get("/api/datasets")).json()["data"]
    assert [d["id"] for d in listed] == [dataset["id"]]
    assert (await world.other.client.get("/api/datasets")).json()["data"] == []

    schema = await client.get(f"/api/datasets/{dataset['id']}/schema", params={"sampleRows": 5})
    assert schema.status_code == 200, schema.text
    table = schema.json()["data"]["tables"][0]
    assert [c["name"] for c in table["columns"]] == ["city", "revenue", "opened"]
    assert len(table["sample_rows"]) == 2

    query = await client.post(
        "/api/query",
        json={
            "connectionId": dataset["connectionId"],
            "sql": f"SELECT SUM(revenue) AS total FROM {table['name']}",
        },
    )
    assert query.status_code == 200, query.text
    assert query.json()["data"]["rows"] == [[30.75]]

    bad = await client.post(
        "/api/datasets",
        data={"name": "broken"},
        files={"files": ("data.parquet", b"this is not parquet", "application/octet-stream")},
    )
    assert bad.status_code == 400
    assert bad.json()["error"]["code"] == "VALIDATION_ERROR"
    assert len((await client.get("/api/datasets")).json()["data"]) == 1

    foreign = await world.other.client.get(f"/api/datasets/{dataset['id']}/schema")
    assert foreign.status_code == 404
    assert (await client.delete(f"/api/datasets/{dataset['id']}")).status_code == 204
    assert (await client.get("/api/datasets")).json()["data"] == []
    gone = await client.post(
        "/api/query", json={"connectionId": dataset["connectionId"], "sql": "SELECT 1"}
    )
    assert gone.status_code == 404


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_a_dataset_deleted_while_its_schema_is_read_is_not_found(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A delete that removes the files after the schema read found the row (schemathesis,
    two workers) answered 502 CONNECTION_FAILED; the dataset is gone: 404."""
    client = world.contributor.client
    uploaded = await client.post(
        "/api/datasets", data={"name": "gone"}, files={"files": ("a.csv", b"a\n1\n", "text/csv")}
    )
    assert uploaded.status_code == 201, uploaded.text
    read = DatasetFiles.schema

    def deleted_meanwhile(files: DatasetFiles, dataset_id: str, sample_rows: int = 0) -> Any:
        files.delete(dataset_id)
        return read(files, dataset_id, sample_rows)

    monkeypatch.setattr(DatasetFiles, "schema", deleted_meanwhile)
    response = await client.get(f"/api/datasets/{uploaded.json()['data']['id']}/schema")
    assert response.status_code == 404, response.text
    assert response.json()["error"]["code"] == "NOT_FOUND"


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_an_ontology_queries_only_while_its_connection_exists(world: World) -> None:
    client = world.contributor.client
    ontology_id = await world.make_ontology(world.contributor)
    body = {"ontologyId": str(ontology_id), "sql": "SELECT COUNT(*) FROM customers"}
    assert (await client.post("/api/query", json=body)).json()["data"]["rows"] == [[2]]
    # Not through someone else's ontology.
    assert (await world.other.client.post("/api/query", json=body)).status_code == 404

    connection_id = (await client.get("/api/connections")).json()["data"][0]["id"]
    assert (await client.delete(f"/api/connections/{connection_id}")).status_code == 204
    orphaned = await client.post("/api/query", json=body)
    assert orphaned.status_code == 400, orphaned.text
    assert orphaned.json()["error"]["code"] == "VALIDATION_ERROR"
    assert "no connection" in orphaned.json()["error"]["message"]


NEW_METRICS = [
    {
        "name": "net_sales",
        "description": "Sales of completed orders after discounts.",
        "synonyms": ["revenue"],
        "format": "currency",
        "dataset": "order_items",
        "aggregation": "sum",
        "expression": "quantity * unit_price * (1 - discount)",
        "filter": "orders.status = 'completed'",
    },
    {
        "name": "completed_order_count",
        "dataset": "orders",
        "aggregation": "count",
        "filter": "status = 'completed'",
    },
    {
        "name": "basket_size",
        "format": "currency",
        "numerator": "net_sales",
        "denominator": "completed_order_count",
    },
]


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
@pytest.mark.parametrize("target", ["duckdb"], indirect=True)
async def test_a_new_metric_from_yaml_to_answer(
    world: World, target: dict[str, object], demo_facts: DemoFacts
) -> None:
    """As a new user would: add a metric to the YAML, rebuild the ontology, ask with it."""
    client = world.contributor.client
    _, ontology_id = await _build(world, target)
    [record] = (await client.get("/api/semantic-models")).json()["data"]
    model_url = f"/api/semantic-models/{record['id']}"
    data = yaml.safe_load((await client.get(model_url)).json()["data"]["yaml"])

    # A first try names a field orders does not have: refused, pointing at the line.
    data["metrics"] = [*(data.get("metrics") or []), *NEW_METRICS]
    data["metrics"][-2] = {**NEW_METRICS[1], "filter": "state = 'completed'"}
    typo = yaml.safe_dump(data, sort_keys=False)
    refused = await client.patch(model_url, json={"yaml": typo})
    assert refused.status_code == 400, refused.text
    problem = refused.json()["error"]["details"][0]
    assert problem["path"] == f"metrics[{len(data['metrics']) - 2}].filter"
    assert "has no field 'state'" in problem["message"]
    assert typo.splitlines()[problem["line"] - 1].strip() == "filter: state = 'completed'"

    data["metrics"][-2] = NEW_METRICS[1]
    saved = await client.patch(model_url, json={"yaml": yaml.safe_dump(data, sort_keys=False)})
    assert saved.status_code == 200, saved.text
    # The ontology keeps its own copy until it is rebuilt from the model.
    plan = {"metrics": [{"name": "basket_size"}], "dimensions": [{"field": "stores.city"}]}
    stale = await client.post(f"/api/ontologies/{ontology_id}/compile", json={"plan": plan})
    assert stale.status_code == 400 and "unknown metric 'basket_size'" in stale.text
    rebuilt = await client.post(f"/api/ontologies/{ontology_id}/rebuild")
    assert rebuilt.status_code == 202
    assert (await built(client, ontology_id))["status"] == "ready"

    compiled = await client.post(
        f"/api/ontologies/{ontology_id}/compile", json={"plan": plan, "execute": True}
    )
    assert compiled.status_code == 200, compiled.text
    body = compiled.json()["data"]
    assert body["columns"] == ["city", "basket_size"]
    rows = {row[0]: row[1] for row in body["result"]["rows"]}
    assert round(rows["Houston"], 2) == demo_facts.houston.average_order_value
