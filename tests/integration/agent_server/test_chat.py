"""`POST /api/chat` and `/api/chat/stream` with no model: the offline planner writes the plan,
the person's SQL runs as written, and the errors are seed 004's."""

from __future__ import annotations

import math

import pytest
from tests.integration.agent_server.conftest import new_id, sse_events, upload_csv
from tests.integration.api.conftest import World

from dataagent.config import Settings
from dataagent.demo import DemoFacts

REVENUE_BY_REGION = "What is the net revenue by region?"
SLOW_SQL = (
    "Run this SQL: WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n "
    "WHERE i < 1000000000) SELECT count(*) FROM n"
)


async def test_a_question_on_the_demo_is_answered_with_a_plan_and_its_capsule(
    world: World, demo_id: str, demo_facts: DemoFacts
) -> None:
    client = world.contributor.client
    response = await client.post(
        "/api/chat", json={"ontologyId": demo_id, "message": REVENUE_BY_REGION}
    )
    assert response.status_code == 200, response.text
    answer = response.json()["data"]
    assert answer["status"] == "succeeded"
    assert answer["details"]["queryMode"] == "plan"
    assert answer["details"]["planJson"]["metrics"][0]["name"] == "revenue"
    assert "SELECT" in answer["details"]["compiledSql"].upper()
    result = answer["result"]
    assert result["rowCount"] == len(result["rows"]) > 1 and result["error"] is None
    revenue = result["columns"].index("revenue")
    total = sum(float(row[revenue]) for row in result["rows"])
    assert math.isclose(total, demo_facts.net_revenue, abs_tol=0.05)

    capsule = await client.get(f"/api/runs/{answer['runId']}")
    assert capsule.status_code == 200, capsule.text
    record = capsule.json()["data"]
    assert record["mode"] == "plan" and record["status"] == "succeeded"
    assert record["question"] == REVENUE_BY_REGION
    assert record["rowCount"] == result["rowCount"]
    # Nobody else reads it.
    assert (await world.other.client.get(f"/api/runs/{answer['runId']}")).status_code == 404


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_the_stream_says_each_stage_then_the_result(world: World, demo_id: str) -> None:
    response = await world.contributor.client.post(
        "/api/chat/stream", json={"ontologyId": demo_id, "message": REVENUE_BY_REGION}
    )
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/event-stream")
    events = sse_events(response.text)
    assert [(e, d.get("stage")) for e, d in events] == [
        ("status", "planning"),
        ("status", "validating"),
        ("status", "executing"),
        ("result", None),
        ("done", None),
    ]
    result = events[3][1]
    assert result["status"] == "succeeded" and result["result"]["rowCount"] > 1
    assert events[4][1] == {"status": "succeeded"}
    capsule = await world.contributor.client.get(f"/api/runs/{result['runId']}")
    assert capsule.status_code == 200 and capsule.json()["data"]["mode"] == "plan"


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_an_uploaded_csv_is_answered(world: World) -> None:
    client = world.contributor.client
    dataset_id = await upload_csv(
        client, "Sales", b"region,amount\nNorth,10\nSouth,20\nNorth,5\nWest,7\n"
    )
    response = await client.post(
        "/api/chat", json={"datasetId": dataset_id, "message": "total amount by region"}
    )
    assert response.status_code == 200, response.text
    answer = response.json()["data"]
    assert answer["status"] == "succeeded", answer["message"]
    rows = {row[0]: float(row[1]) for row in answer["result"]["rows"]}
    assert rows == {"North": 15.0, "South": 20.0, "West": 7.0}
    capsule = (await client.get(f"/api/runs/{answer['runId']}")).json()["data"]
    assert capsule["mode"] == "plan" and capsule["datasetVersion"]

    # The person's own SQL, when they ask for SQL.
    sql = await client.post(
        "/api/chat",
        json={"datasetId": dataset_id, "message": "SQL: SELECT count(*) AS n FROM sales"},
    )
    assert sql.status_code == 200, sql.text
    assert sql.json()["data"]["result"]["rows"] == [[4]]
    assert sql.json()["data"]["details"]["queryMode"] == "sql"


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_a_statement_that_writes_is_refused(world: World, demo_id: str) -> None:
    client = world.contributor.client
    for path in ("/api/chat", "/api/chat/stream"):
        response = await client.post(
            path, json={"ontologyId": demo_id, "message": "Run this SQL: DELETE FROM orders"}
        )
        if path == "/api/chat":
            assert response.status_code == 400, response.text
            error = response.json()["error"]
        else:
            assert response.status_code == 200, response.text
            events = sse_events(response.text)
            assert [e for e, _ in events][-1] == "error"
            error = events[-1][1]
        assert error["code"] == "SQL_POLICY_VIOLATION"
        run_id = error["details"]["runId"] if "details" in error else error["runId"]
        capsule = (await client.get(f"/api/runs/{run_id}")).json()["data"]
        assert capsule["status"] == "failed" and capsule["mode"] == "sql"
    # The orders are all there.
    count = await client.post(
        "/api/chat", json={"ontologyId": demo_id, "message": "SQL: SELECT count(*) FROM orders"}
    )
    assert count.status_code == 200 and count.json()["data"]["result"]["rows"][0][0] > 0


@pytest.fixture
def api_settings(api_settings: Settings) -> Settings:
    """A short query time limit, so a slow query times out in a test."""
    return api_settings.model_copy(update={"query_timeout_s": 1.0})


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_a_query_that_takes_too_long_is_a_runner_timeout(world: World, demo_id: str) -> None:
    response = await world.contributor.client.post(
        "/api/chat", json={"ontologyId": demo_id, "message": SLOW_SQL}
    )
    assert response.status_code == 408, response.text
    error = response.json()["error"]
    assert error["code"] == "RUNNER_TIMEOUT"
    capsule = await world.contributor.client.get(f"/api/runs/{error['details']['runId']}")
    assert capsule.json()["data"]["status"] == "failed"


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_a_question_it_cannot_place_is_an_abstention(world: World, demo_id: str) -> None:
    response = await world.contributor.client.post(
        "/api/chat",
        json={"ontologyId": demo_id, "message": "How fast does an unladen swallow fly?"},
    )
    assert response.status_code == 200, response.text
    answer = response.json()["data"]
    assert answer["status"] == "abstained"
    assert answer["runId"] is None and answer["result"]["rows"] == []
    assert "configure a language model" in answer["message"]


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_another_users_ontology_dataset_and_thread_are_not_found(
    world: World, demo_id: str
) -> None:
    mine = world.contributor.client
    dataset_id = await upload_csv(mine, "Sales", b"region,amount\nNorth,10\n")
    first = await mine.post("/api/chat", json={"ontologyId": demo_id, "message": REVENUE_BY_REGION})
    thread_id = first.json()["data"]["threadId"]
    theirs = world.other.client
    for body in (
        {"ontologyId": demo_id, "message": REVENUE_BY_REGION},
        {"datasetId": dataset_id, "message": "total amount"},
        {"ontologyId": new_id(), "message": REVENUE_BY_REGION},
    ):
        for path in ("/api/chat", "/api/chat/stream"):
            response = await theirs.post(path, json=body)
            assert response.status_code == 404, response.text
            assert response.json()["error"]["code"] == "NOT_FOUND"
    # Their thread, or one that never was, on an ontology of one's own.
    other_ontology = str(await world.make_ontology(world.other))
    for thread in (thread_id, new_id()):
        response = await theirs.post(
            "/api/chat",
            json={"ontologyId": other_ontology, "threadId": thread, "message": "customers"},
        )
        assert response.status_code == 404, response.text
    # A thread is about one source.
    elsewhere = await mine.post(
        "/api/chat",
        json={"datasetId": dataset_id, "threadId": thread_id, "message": "total amount"},
    )
    assert elsewhere.status_code == 400, elsewhere.text
    assert "another ontology" in elsewhere.json()["error"]["message"]
    # The owner continues the thread.
    again = await mine.post(
        "/api/chat",
        json={"ontologyId": demo_id, "threadId": thread_id, "message": REVENUE_BY_REGION},
    )
    assert again.status_code == 200 and again.json()["data"]["threadId"] == thread_id


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_exactly_one_source(world: World, demo_id: str) -> None:
    client = world.contributor.client
    for body in (
        {"message": REVENUE_BY_REGION},
        {"ontologyId": demo_id, "datasetId": new_id(), "message": REVENUE_BY_REGION},
        {"ontologyId": demo_id, "message": ""},
        {"ontologyId": demo_id, "message": "x" * 10_001},
    ):
        response = await client.post("/api/chat", json=body)
        assert response.status_code == 400, response.text
        assert response.json()["error"]["code"] == "VALIDATION_ERROR"
    viewer = await world.viewer.client.post(
        "/api/chat", json={"ontologyId": demo_id, "message": REVENUE_BY_REGION}
    )
    assert viewer.status_code == 403


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_a_value_the_question_names_is_a_filter(
    world: World, demo_id: str, demo_facts: DemoFacts
) -> None:
    houston = next(store for store in demo_facts.stores if store.city == "Houston")
    response = await world.contributor.client.post(
        "/api/chat",
        json={"ontologyId": demo_id, "message": "What is the net revenue of the Houston store?"},
    )
    assert response.status_code == 200, response.text
    answer = response.json()["data"]
    assert answer["status"] == "succeeded", answer["message"]
    filters = answer["details"]["planJson"]["filters"]
    assert any(f.get("value") == "Houston" for f in filters), filters
    assert answer["result"]["rowCount"] == 1
    assert math.isclose(float(answer["result"]["rows"][0][-1]), houston.net_revenue, abs_tol=0.05)
