"""`POST /api/chat` with a model: the scripted OpenAI-compatible server drives seed 004's
five tools over a real socket, and the thread's earlier turns reach it."""

from __future__ import annotations

import asyncio
import json
import math
import threading
from typing import Any

import pytest
from tests.fakes.openai_server import FakeOpenAIServer, Step, question_and_tool_results, tool
from tests.integration.agent_server.conftest import sse_events, upload_csv
from tests.integration.api.conftest import World

from dataagent.demo import DemoFacts
from dataagent.services.users import STOPPED_SIGNED_OUT

pytestmark = [
    pytest.mark.parametrize("use_model", [True]),
    pytest.mark.parametrize("database_url", ["sqlite"], indirect=True),
]

PLAN = {"metrics": [{"name": "revenue"}], "dimensions": [{"field": "stores.region"}]}


def _tool_result(body: dict[str, Any]) -> dict[str, Any]:
    _, results = question_and_tool_results(body)
    parsed: dict[str, Any] = json.loads(results[-1])
    return parsed


async def test_the_model_runs_a_plan_then_answers(
    world: World, demo_id: str, demo_facts: DemoFacts, openai_server: FakeOpenAIServer
) -> None:
    seen: list[dict[str, Any]] = []

    def answer(body: dict[str, Any]) -> Step:
        seen.append(_tool_result(body))
        return Step(text="West leads on net revenue.")

    openai_server.push(
        Step(tool_calls=[tool("list_datasets")]),
        Step(tool_calls=[tool("get_dataset_schema", dataset="stores")]),
        Step(tool_calls=[tool("execute_query_plan", plan_json=PLAN)]),
        answer,
    )
    client = world.contributor.client
    response = await client.post(
        "/api/chat", json={"ontologyId": demo_id, "message": "Revenue by region?"}
    )
    assert response.status_code == 200, response.text
    data = response.json()["data"]
    assert data["status"] == "succeeded" and data["message"] == "West leads on net revenue."
    assert data["details"]["queryMode"] == "plan" and data["details"]["planJson"] == PLAN
    revenue = data["result"]["columns"].index("revenue")
    total = sum(float(r[revenue]) for r in data["result"]["rows"])
    assert math.isclose(total, demo_facts.net_revenue, abs_tol=0.05)
    # The model read the same run capsule the response names.
    assert seen[0]["runId"] == data["runId"]
    assert seen[0]["rowCount"] == data["result"]["rowCount"]
    capsule = (await client.get(f"/api/runs/{data['runId']}")).json()["data"]
    assert capsule["mode"] == "plan" and capsule["status"] == "succeeded"
    # The tools the model was offered: seed 004's five.
    offered = {t["function"]["name"] for t in openai_server.requests[0]["tools"]}
    assert offered == {
        "list_datasets",
        "get_dataset_schema",
        "execute_query_plan",
        "execute_sql",
        "get_run_status",
    }
    schema_text = question_and_tool_results(openai_server.requests[2])[1][-1]
    assert "stores.region" in schema_text

    # The thread goes on: the model reads the earlier turn, and checks the run's status.
    openai_server.push(
        Step(tool_calls=[tool("get_run_status", run_id=data["runId"])]),
        Step(text="Nothing new."),
    )
    again = await client.post(
        "/api/chat/stream",
        json={"ontologyId": demo_id, "threadId": data["threadId"], "message": "And that run?"},
    )
    events = sse_events(again.text)
    assert [e for e, _ in events] == ["status", "result", "done"]
    result = events[1][1]
    assert result["status"] == "answered" and result["runId"] is None
    assert result["threadId"] == data["threadId"]
    body = openai_server.requests[-2]
    said = [m.get("content") for m in body["messages"]]
    assert "Revenue by region?" in said and "West leads on net revenue." in said
    status = _tool_result(openai_server.requests[-1])
    assert status["runId"] == data["runId"] and status["status"] == "succeeded"


async def test_sql_only_when_asked_and_a_refusal_is_the_error(
    world: World, demo_id: str, openai_server: FakeOpenAIServer
) -> None:
    client = world.contributor.client
    # Not asked for SQL: the tool refuses, the model turns to a plan.
    openai_server.push(
        Step(tool_calls=[tool("execute_sql", sql="SELECT count(*) FROM orders")]),
        Step(tool_calls=[tool("execute_query_plan", plan_json={"metrics": [{"name": "orders"}]})]),
        Step(text="Counted."),
    )
    counted = await client.post(
        "/api/chat", json={"ontologyId": demo_id, "message": "How many orders?"}
    )
    assert counted.status_code == 200, counted.text
    assert counted.json()["data"]["details"]["queryMode"] == "plan"
    refused = question_and_tool_results(openai_server.requests[1])[1][-1]
    assert "SQL runs only when the person asks for SQL" in refused

    # Asked for SQL that writes: every query failed, so the answer is that failure.
    openai_server.push(
        Step(tool_calls=[tool("execute_sql", sql="DELETE FROM orders")]),
        Step(text="I could not run that."),
    )
    response = await client.post(
        "/api/chat",
        json={"ontologyId": demo_id, "message": "Run this SQL: DELETE FROM orders"},
    )
    assert response.status_code == 400, response.text
    assert response.json()["error"]["code"] == "SQL_POLICY_VIOLATION"


async def test_the_model_answers_about_an_uploaded_csv(
    world: World, openai_server: FakeOpenAIServer
) -> None:
    client = world.contributor.client
    dataset_id = await upload_csv(client, "Sales", b"region,amount\nNorth,10\nSouth,20\nNorth,5\n")
    plan = {
        "measures": [{"field": "sales.amount", "aggregation": "sum", "alias": "total"}],
        "dimensions": [{"field": "sales.region"}],
        "order": [{"by": "total", "direction": "desc"}],
    }
    openai_server.push(
        Step(tool_calls=[tool("execute_query_plan", plan_json=json.dumps(plan))]),
        Step(text="South sold the most."),
    )
    response = await client.post(
        "/api/chat", json={"datasetId": dataset_id, "message": "Which region sold most?"}
    )
    assert response.status_code == 200, response.text
    data = response.json()["data"]
    assert data["result"]["rows"] == [["South", 20], ["North", 15]]
    prompt = openai_server.requests[0]["messages"][0]["content"]
    assert "sales" in prompt


@pytest.mark.parametrize("fast_path", [True])
async def test_a_question_the_planner_is_sure_of_costs_no_model_call(
    world: World, demo_id: str, openai_server: FakeOpenAIServer, fast_path: bool
) -> None:
    response = await world.contributor.client.post(
        "/api/chat", json={"ontologyId": demo_id, "message": "What is the net revenue by region?"}
    )
    assert response.status_code == 200, response.text
    data = response.json()["data"]
    assert data["status"] == "succeeded" and data["details"]["queryMode"] == "plan"
    assert data["result"]["rowCount"] > 1
    assert openai_server.requests == []


def hold(server: FakeOpenAIServer, text: str) -> tuple[threading.Event, threading.Event]:
    """The model's next answer waits at a gate: (set once it is asked, the gate to open)."""
    asked, gate = threading.Event(), threading.Event()

    def held(body: dict[str, Any]) -> Step:
        asked.set()
        gate.wait(60)
        return Step(text=text)

    server.push(held)
    return asked, gate


async def test_one_request_at_a_time_per_person(
    world: World, demo_id: str, openai_server: FakeOpenAIServer
) -> None:
    asked, gate = hold(openai_server, "Nothing new.")
    client = world.contributor.client
    body = {"ontologyId": demo_id, "message": "Anything new?"}
    first = asyncio.create_task(client.post("/api/chat", json=body))
    try:
        assert await asyncio.to_thread(asked.wait, 60)
        second = await client.post("/api/chat/stream", json=body)
        assert second.status_code == 429, second.text
        assert second.json()["error"]["code"] == "RATE_LIMITED"
    finally:
        gate.set()
    assert (await first).status_code == 200
    # Its share is free again once it has answered.
    openai_server.push(Step(text="Still nothing."))
    again = await client.post("/api/chat", json=body)
    assert again.status_code == 200 and again.json()["data"]["message"] == "Still nothing."


async def test_an_admins_sign_out_stops_a_request_in_flight(
    world: World, demo_id: str, openai_server: FakeOpenAIServer
) -> None:
    asked, gate = hold(openai_server, "Too late.")
    body = {"ontologyId": demo_id, "message": "Anything new?"}
    streaming = asyncio.create_task(world.contributor.client.post("/api/chat/stream", json=body))
    try:
        assert await asyncio.to_thread(asked.wait, 60)
        signed_out = await world.admin.client.post(f"/api/users/{world.contributor.id}/sign-out")
        assert signed_out.status_code == 204, signed_out.text
    finally:
        gate.set()
    events = sse_events((await streaming).text)
    assert events[-1][0] == "error", events
    assert events[-1][1]["code"] == "CANCELLED"
    assert events[-1][1]["message"] == STOPPED_SIGNED_OUT
    assert "result" not in [name for name, _ in events]
