"""`dataagent mcp` over stdio, a child process driven by the SDK's own client: the tools as
the user of DATAAGENT_TOKEN (or --token-file), the guard's refusal, another user's ontology,
`ask` answered by the agent (the scripted OpenAI-compatible server as its model), and a
missing or bad token refused before anything is served."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from mcp import Client
from tests.fakes.openai_server import FakeOpenAIServer, Step, tool
from tests.integration.api.conftest import World
from tests.integration.mcp.conftest import (
    data_of,
    error_of,
    stdio_client,
    stdio_parameters,
    token_of,
)

from dataagent.config import Settings

# One app database is enough here: the child process reaches it through the same services.
pytestmark = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)


async def test_the_tools_act_as_the_tokens_user(
    world: World, settings: Settings, tmp_path: Path
) -> None:
    mine = str(await world.make_ontology(world.contributor, name="Shop"))
    theirs = str(await world.make_ontology(world.other, name="Theirs"))
    async with stdio_client(settings, tmp_path, token_of(world.contributor)) as client:
        tools = await client.list_tools()
        assert {t.name for t in tools.tools} == {
            "list_ontologies",
            "search_datasets",
            "describe_dataset",
            "run_query",
            "ask",
        }
        listed = data_of(await client.call_tool("list_ontologies", {}))
        assert [o["id"] for o in listed["ontologies"]] == [mine]
        found = data_of(
            await client.call_tool("search_datasets", {"ontology_id": mine, "query": "cities"})
        )
        assert [hit["name"] for hit in found["datasets"]] == ["customers"]
        described = data_of(
            await client.call_tool(
                "describe_dataset", {"ontology_id": mine, "dataset": "customers"}
            )
        )
        assert {f["name"] for f in described["fields"]} == {"id", "name", "city"}
        ran = data_of(
            await client.call_tool(
                "run_query",
                {"ontology_id": "Shop", "sql": "SELECT city FROM customers ORDER BY city"},
            )
        )
        assert ran["rows"] == [["Oslo"], ["Rome"]]
        refused = await client.call_tool(
            "run_query", {"ontology_id": mine, "sql": "DELETE FROM customers"}
        )
        assert error_of(refused).startswith("SQL_POLICY_VIOLATION: ")
        for name, arguments in (
            ("describe_dataset", {"dataset": "customers"}),
            ("run_query", {"sql": "SELECT name FROM customers"}),
        ):
            result = await client.call_tool(name, {"ontology_id": theirs, **arguments})
            assert error_of(result).startswith("NOT_FOUND: "), name
    capsule = await world.contributor.client.get(f"/api/runs/{ran['runId']}")
    assert capsule.status_code == 200


async def test_ask_answers_with_the_agent(world: World, settings: Settings, tmp_path: Path) -> None:
    ontology_id = str(await world.make_ontology(world.contributor))
    sql = "SELECT COUNT(*) AS customers FROM customers"
    script = [
        Step(tool_calls=[tool("query_database", "q", sql=sql)]),
        Step(text="There are 2 customers."),
    ]
    token_file = tmp_path / "token"
    token_file.write_text(token_of(world.contributor) + "\n", encoding="utf-8")
    with FakeOpenAIServer(script) as model:
        parameters = stdio_parameters(
            settings,
            tmp_path,
            {"OPENAI_API_KEY": "sk-test-not-used", "OPENAI_BASE_URL": model.url},
        )
        parameters.args += ["--token-file", str(token_file)]
        async with Client(parameters) as client:
            answer = data_of(
                await client.call_tool(
                    "ask",
                    {
                        "ontology_id": ontology_id,
                        "question": "How many customers?",
                        "mode": "react",
                    },
                )
            )
    assert (answer["status"], answer["narrative"]) == ("complete", "There are 2 customers.")
    assert answer["sql"] == [sql]
    # The ReAct agent's results are kept as the markdown its model read: cells are text.
    assert answer["result"] == {
        "columns": ["customers"],
        "rows": [["2"]],
        "rowCount": 1,
        "truncated": False,
    }
    chat = await world.contributor.client.get(f"/api/data-agent/chats/{answer['chatId']}")
    assert chat.status_code == 200


def test_a_missing_or_bad_token_stops_before_serving(settings: Settings, tmp_path: Path) -> None:
    # (An expired token is refused by the same check: see test_http.)
    for token, code in (("", 2), ("not-a-token", 1)):
        parameters = stdio_parameters(settings, tmp_path, {"DATAAGENT_TOKEN": token})
        done = subprocess.run(
            [sys.executable, *parameters.args],
            env=parameters.env,
            cwd=tmp_path,
            input="",
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == code, done.stderr
        assert done.stdout == ""  # nothing on the protocol's channel
        expected = "no API token" if code == 2 else "token is missing, invalid or expired"
        assert expected in done.stderr
