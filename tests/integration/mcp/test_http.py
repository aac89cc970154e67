"""The MCP server over streamable HTTP at `/mcp`, with the SDK's own client: each tool as the
bearer token's user, the guard's refusal, another user's ontology, and no or a bad token."""

from __future__ import annotations

import httpx
import pytest
from mcp import MCPError
from tests.fakes.scripted_model import Reply, ScriptedChatModel, call
from tests.integration.api.conftest import World
from tests.integration.mcp.conftest import (
    data_of,
    error_of,
    expired_token,
    http_client,
    token_of,
)

TOOLS = {"list_ontologies", "search_datasets", "describe_dataset", "run_query", "ask"}


async def test_each_tool_answers_as_the_tokens_user(world: World, mcp_url: str) -> None:
    owner = world.contributor
    ontology_id = str(await world.make_ontology(owner, name="Shop"))
    async with http_client(mcp_url, token_of(owner)) as client:
        tools = await client.list_tools()
        assert {t.name for t in tools.tools} == TOOLS
        assert all(t.description for t in tools.tools)

        listed = data_of(await client.call_tool("list_ontologies", {}))
        assert listed["ontologies"] == [
            {
                "id": ontology_id,
                "name": "Shop",
                "description": None,
                "status": "ready",
                "datasetCount": 1,
                "access": "owner",
                "owner": owner.email,
            }
        ]

        found = data_of(
            await client.call_tool(
                "search_datasets", {"ontology_id": ontology_id, "query": "customer city", "k": 3}
            )
        )
        assert [hit["name"] for hit in found["datasets"]] == ["customers"]

        # By name as well as by id.
        described = data_of(
            await client.call_tool(
                "describe_dataset", {"ontology_id": "shop", "dataset": "customers"}
            )
        )
        assert described["name"] == "customers"
        assert {f["name"] for f in described["fields"]} == {"id", "name", "city"}
        assert "customers" in described["yaml"]

        ran = data_of(
            await client.call_tool(
                "run_query",
                {"ontology_id": ontology_id, "sql": "SELECT name FROM customers ORDER BY id"},
            )
        )
        assert (ran["columns"], ran["rows"], ran["rowCount"]) == (["name"], [["Ana"], ["Bo"]], 2)
    # The run is kept as a run capsule, the caller's own, as POST /api/query keeps it.
    capsule = await owner.client.get(f"/api/runs/{ran['runId']}")
    assert capsule.status_code == 200
    assert capsule.json()["data"]["status"] == "succeeded"


async def test_a_refused_statement_is_a_policy_violation(world: World, mcp_url: str) -> None:
    owner = world.contributor
    ontology_id = str(await world.make_ontology(owner))
    async with http_client(mcp_url, token_of(owner)) as client:
        refused = await client.call_tool(
            "run_query", {"ontology_id": ontology_id, "sql": "DELETE FROM customers"}
        )
        assert error_of(refused).startswith("SQL_POLICY_VIOLATION: ")
        still = data_of(
            await client.call_tool(
                "run_query",
                {"ontology_id": ontology_id, "sql": "SELECT COUNT(*) AS n FROM customers"},
            )
        )
    assert still["rows"] == [[2]]


async def test_another_users_ontology_is_not_found(world: World, mcp_url: str) -> None:
    ontology_id = str(await world.make_ontology(world.contributor, name="Mine"))
    async with http_client(mcp_url, token_of(world.other)) as client:
        assert data_of(await client.call_tool("list_ontologies", {}))["ontologies"] == []
        for name, arguments in (
            ("search_datasets", {"query": "customers"}),
            ("describe_dataset", {"dataset": "customers"}),
            ("run_query", {"sql": "SELECT 1"}),
            ("ask", {"question": "How many customers?"}),
        ):
            for ref in (ontology_id, "Mine"):
                result = await client.call_tool(name, {"ontology_id": ref, **arguments})
                assert error_of(result).startswith("NOT_FOUND: "), (name, ref)


async def test_an_ontology_shared_with_the_caller_is_listed_read_and_queried(
    world: World, mcp_url: str
) -> None:
    owner, grantee = world.contributor, world.other
    ontology_id = str(await world.make_ontology(owner, name="Shop"))
    shared = await owner.client.post(
        f"/api/ontologies/{ontology_id}/shares", json={"userId": str(grantee.id)}
    )
    assert shared.status_code == 201, shared.text
    async with http_client(mcp_url, token_of(grantee)) as client:
        [listed] = data_of(await client.call_tool("list_ontologies", {}))["ontologies"]
        assert (listed["id"], listed["access"], listed["owner"]) == (
            ontology_id,
            "shared",
            owner.email,
        )
        ran = data_of(
            await client.call_tool(
                "run_query", {"ontology_id": "Shop", "sql": "SELECT COUNT(*) AS n FROM customers"}
            )
        )
        assert ran["rows"] == [[2]]
        revoked = await owner.client.delete(
            f"/api/ontologies/{ontology_id}/shares/{shared.json()['data']['id']}"
        )
        assert revoked.status_code == 204
        again = await client.call_tool("run_query", {"ontology_id": ontology_id, "sql": "SELECT 1"})
        assert error_of(again).startswith("NOT_FOUND: ")
    # The query ran as the grantee's: its capsule is theirs, not the owner's.
    assert (await grantee.client.get(f"/api/runs/{ran['runId']}")).status_code == 200
    assert (await owner.client.get(f"/api/runs/{ran['runId']}")).status_code == 404


async def test_a_viewer_may_read_but_not_ask(world: World, mcp_url: str) -> None:
    async with http_client(mcp_url, token_of(world.viewer)) as client:
        assert data_of(await client.call_tool("list_ontologies", {}))["ontologies"] == []
        refused = await client.call_tool("ask", {"ontology_id": "x", "question": "Hello?"})
    assert error_of(refused).startswith("FORBIDDEN: ")


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_no_or_a_bad_token_is_refused_with_401(world: World, mcp_url: str) -> None:
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "test", "version": "1"},
        },
    }
    headers = {"Accept": "application/json, text/event-stream"}
    async with httpx.AsyncClient() as plain:
        for token in (None, "not-a-token", expired_token(world, world.contributor)):
            sent = headers | ({"Authorization": f"Bearer {token}"} if token else {})
            response = await plain.post(mcp_url, json=initialize, headers=sent)
            assert response.status_code == 401, token
            assert response.json()["error"]["code"] == "UNAUTHORIZED"
        accepted = await plain.post(
            mcp_url,
            json=initialize,
            headers=headers | {"Authorization": f"Bearer {token_of(world.contributor)}"},
        )
        assert accepted.status_code == 200, accepted.text
    # The SDK's client gives up on a refused token (its task group raises the group).
    with pytest.raises(ExceptionGroup) as refused:
        async with http_client(mcp_url, "not-a-token") as client:
            await client.list_tools()
    assert refused.group_contains(MCPError, depth=None)
    # /mcp is the MCP server's, not part of the HTTP API's OpenAPI document.
    document = (await world.anon.get("/openapi.json")).json()
    assert not any(path.startswith("/mcp") for path in document["paths"])


async def test_ask_answers_with_the_agent_in_a_chat(world: World, mcp_url: str) -> None:
    owner = world.contributor
    ontology_id = str(await world.make_ontology(owner))
    sql = "SELECT city, COUNT(*) AS customers FROM customers GROUP BY city ORDER BY city"
    model = ScriptedChatModel(
        script=[
            Reply(tool_calls=[call("query_database", "q", sql=sql)]),
            Reply(text="One customer lives in Oslo and one in Rome."),
        ]
    )
    world.context.chat_model_factory = lambda info: model
    async with http_client(mcp_url, token_of(owner)) as client:
        answer = data_of(
            await client.call_tool(
                "ask",
                {"ontology_id": ontology_id, "question": "Customers by city?", "mode": "react"},
            )
        )
    assert answer["status"] == "complete"
    assert answer["narrative"] == "One customer lives in Oslo and one in Rome."
    assert answer["sql"] == [sql]
    assert answer["result"]["columns"] == ["city", "customers"]
    assert [row[0] for row in answer["result"]["rows"]] == ["Oslo", "Rome"]
    # The chat is the user's, as one started in the web page.
    chat = await owner.client.get(f"/api/data-agent/chats/{answer['chatId']}")
    messages = chat.json()["data"]["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant"]
    assert messages[1]["id"] == answer["messageId"]


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_a_token_signed_out_stops_working_at_once(world: World, mcp_url: str) -> None:
    viewer = world.viewer
    async with http_client(mcp_url, token_of(viewer)) as client:
        assert data_of(await client.call_tool("list_ontologies", {}))["ontologies"] == []
        assert (await viewer.client.post("/api/auth/logout")).status_code == 204
        # The next request is refused (401) before it reaches a tool.
        with pytest.raises(MCPError):
            await client.call_tool("list_ontologies", {})
