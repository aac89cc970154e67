"""`ask` over MCP on a server with no model provider at all: the curated demo retailer answered
by the offline planner (no model call), over streamable HTTP with the SDK's client."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.integration.api.conftest import World
from tests.integration.mcp.conftest import data_of, http_client, token_of
from tests.integration.pipeline_routes.conftest import demo_ontology

from dataagent.demo import DemoData

pytestmark = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)


async def test_ask_answers_offline_with_no_provider(
    world: World, mcp_url: str, demo_data: DemoData, tmp_path: Path
) -> None:
    ontology_id = str(await demo_ontology(world, demo_data, tmp_path / "retail.duckdb"))
    context = world.context
    context.settings = context.settings.model_copy(update={"openai_api_key": None})
    context.chat_model_factory = None
    phases: list[tuple[float, str | None]] = []

    async def progress(done: float, total: float | None, message: str | None) -> None:
        phases.append((done, message))

    async with http_client(mcp_url, token_of(world.contributor)) as client:
        answer = data_of(
            await client.call_tool(
                "ask",
                {"ontology_id": ontology_id, "question": "What was revenue by region in 2025?"},
                progress_callback=progress,
            )
        )
        unsure = await client.call_tool(
            "ask",
            {"ontology_id": ontology_id, "question": "Write me a poem about the weather on Mars"},
        )
    assert answer["status"] == "complete"
    # A progress notification as each phase started.
    assert phases[0] == (1, "planner") and phases[-1] == (len(phases), "explainer")
    [sql] = answer["sql"]
    assert "revenue" in sql.lower() or "sum" in sql.lower()
    result = answer["result"]
    assert any("revenue" in column.lower() for column in result["columns"])
    assert result["rowCount"] == len(result["rows"]) >= 2
    assert answer["narrative"]
    chat = await world.contributor.client.get(f"/api/data-agent/chats/{answer['chatId']}")
    [_, message] = chat.json()["data"]["messages"]
    assert message["metadata"]["tokensUsed"]["total"] == 0  # no model call
    # Unsure, the planner does not guess: no SQL ran, and the answer says what it can do.
    abstained = data_of(unsure)
    assert abstained["sql"] == [] and abstained["result"] is None
    assert abstained["narrative"]
