"""A question answered end to end over HTTP: claim, run, agent, tools, SQL, sandbox, charts,
traces, with the model an OpenAI-compatible server the test scripts."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
from sqlalchemy import select
from tests.fakes.openai_server import FakeOpenAIServer, FakeToolCall, Step, tool
from tests.integration.api.conftest import World
from tests.integration.runs.conftest import (
    Live,
    message_of,
    new_chat,
    parse,
    read_frames,
    run_of,
    until,
)

from dataagent.store.models import QueryRecord

CITY_COUNTS = "SELECT city, COUNT(*) AS customers FROM customers GROUP BY city ORDER BY city"
PLOT = """\
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
plt.bar(df["city"], df["customers"])
plt.savefig("customers.png")
print(df.to_string())
"""


async def _answer(world: World, live: Live, question: str) -> tuple[str, list[Any], str]:
    """Ask in a fresh chat and stream the answer to its end: (message id, frames, chat id)."""
    chat = await new_chat(world, world.contributor)
    message_id = await chat.ask(question)
    client = live.clients["contributor"]
    async with client.stream("POST", chat.url(message_id, "stream")) as response:
        assert response.status_code == 200, await response.aread()
        assert response.headers["content-type"].startswith("text/event-stream")
        frames = parse(await read_frames(response))
    return message_id, frames, chat.id


def _events(frames: list[Any]) -> list[str]:
    return [event for _, event, _ in frames]


def _payloads(frames: list[Any], name: str) -> list[dict[str, Any]]:
    return [json.loads(data) for _, event, data in frames if event == name]


@pytest.mark.sandbox
async def test_a_question_answered_with_a_query_and_a_python_chart(
    world: World, live: Live, openai_server: FakeOpenAIServer
) -> None:
    openai_server.push(
        Step(tool_calls=[tool("query_database", sql=CITY_COUNTS)]),
        Step(text="Let me draw that.", tool_calls=[tool("run_python", code=PLOT)]),
        Step(text="Oslo and Rome have one customer each.", piece=5),
    )
    message_id, frames, chat_id = await _answer(world, live, "Customers per city?")
    events = _events(frames)
    assert events[0] == "message_start" and events[-1] == "message_complete"
    assert [seq for seq, _, _ in frames] == list(range(1, len(frames) + 1))
    assert events.count("llm_call_start") == events.count("llm_call_end") == 3
    calls = _payloads(frames, "tool_call")
    assert [c["name"] for c in calls] == ["query_database", "run_python"]
    results = _payloads(frames, "tool_result")
    assert [r["id"] for r in results] == [c["id"] for c in calls]
    assert "| Oslo | 1 |" in results[0]["result"] and not results[0]["isError"]
    (chart,) = _payloads(frames, "chart")
    assert events.index("clear_streaming") < events.index("tool_call", events.index("chart") - 2)
    chunks = "".join(p["chunk"] for p in _payloads(frames, "message_chunk"))
    assert chunks.endswith("Oslo and Rome have one customer each.")

    (complete,) = _payloads(frames, "message_complete")
    assert complete["content"] == "Oslo and Rome have one customer each."
    metadata = complete["metadata"]
    assert [c["name"] for c in metadata["toolCalls"]] == ["query_database", "run_python"]
    assert metadata["tokensUsed"] == {"prompt": 33, "completion": 21, "total": 54}
    assert metadata["charts"][0]["url"] == chart["url"]
    assert metadata["agentMode"] == "react" and metadata["durationMs"] >= 0

    message = await message_of(world, message_id)
    assert (message.status, message.content) == ("complete", complete["content"])
    client = live.clients["contributor"]
    image = await client.get(chart["url"])
    assert image.status_code == 200 and image.content.startswith(b"\x89PNG")

    # The model saw the query's table and the sandbox's output as tool results.
    tool_messages = [m for m in openai_server.requests[2]["messages"] if m["role"] == "tool"]
    assert "| Oslo | 1 |" in tool_messages[0]["content"]
    assert "Oslo" in tool_messages[1]["content"] and "/api/charts/" in tool_messages[1]["content"]

    base = f"/api/data-agent/chats/{chat_id}/messages/{message_id}"
    traces = (await client.get(f"{base}/traces")).json()["data"]
    assert [t["callIndex"] for t in traces] == [0, 1, 2]
    assert {t["provider"] for t in traces} == {"openai"}
    assert traces[0]["toolCalls"][0]["name"] == "query_database"
    assert traces[2]["responseContent"] == complete["content"]
    assert (await live.clients["other"].get(f"{base}/traces")).status_code == 404

    run = await run_of(world, message_id)
    async with world.database.session() as session:
        records = list(
            await session.scalars(select(QueryRecord).where(QueryRecord.run_id == run.id))
        )
    assert [(r.sql, r.status, r.row_count) for r in records] == [(CITY_COUNTS, "succeeded", 2)]


async def test_a_rate_limited_model_is_retried_before_anything_is_shown(
    world: World, live: Live, openai_server: FakeOpenAIServer
) -> None:
    openai_server.push(Step(status=429, retry_after=0), Step(text="There are two customers."))
    message_id, frames, _ = await _answer(world, live, "How many customers?")
    assert _events(frames)[-1] == "message_complete"
    assert len(openai_server.requests) == 2
    assert (await message_of(world, message_id)).content == "There are two customers."


@pytest.mark.parametrize("run_overrides", [{"llm_read_timeout_s": 0.3, "llm_max_retries": 0}])
async def test_a_model_that_does_not_answer_fails_the_answer_with_an_error_event(
    world: World, live: Live, openai_server: FakeOpenAIServer
) -> None:
    openai_server.push(Step(delay_s=30, text="Too late."))
    message_id, frames, _ = await _answer(world, live, "How many customers?")
    (error,) = _payloads(frames, "message_error")
    assert error["code"] == "LLM_ERROR" and "did not answer in time" in error["message"]
    message = await message_of(world, message_id)
    assert message.status == "failed"
    run = await run_of(world, message_id)
    assert (run.status, run.error_code) == ("failed", "LLM_ERROR")


async def test_malformed_tool_arguments_go_back_to_the_model_as_an_error(
    world: World, live: Live, openai_server: FakeOpenAIServer
) -> None:
    openai_server.push(
        Step(tool_calls=[FakeToolCall("query_database", "{not json")]),
        Step(text="I could not run that query."),
    )
    message_id, frames, _ = await _answer(world, live, "How many customers?")
    (result,) = _payloads(frames, "tool_result")
    assert result["isError"] and result["name"] == "query_database"
    (tool_message,) = [m for m in openai_server.requests[1]["messages"] if m["role"] == "tool"]
    assert tool_message["content"].startswith("Error")
    assert (await message_of(world, message_id)).status == "complete"


async def test_malformed_tool_calls_without_end_stop_the_answer(
    world: World, live: Live, openai_server: FakeOpenAIServer
) -> None:
    openai_server.default = Step(tool_calls=[FakeToolCall("query_database", "{not json")])
    message_id, frames, _ = await _answer(world, live, "How many customers?")
    (error,) = _payloads(frames, "message_error")
    assert error["code"] == "LLM_ERROR" and "malformed" in error["message"]
    assert len(openai_server.requests) == 3
    assert (await message_of(world, message_id)).status == "failed"


async def test_without_a_model_the_offline_planner_answers(
    world: World, live: Live, openai_server: FakeOpenAIServer
) -> None:
    chat = await new_chat(world, world.contributor)
    message_id = await chat.ask("How many customers?")
    # The model goes away between the question and its stream (a restart without it): the
    # question is answered all the same, by the built-in planner, with no model call.
    world.context.settings = world.context.settings.model_copy(update={"openai_base_url": None})
    async with live.clients["contributor"].stream("POST", chat.url(message_id, "stream")) as got:
        assert got.status_code == 200, await got.aread()
        frames = parse(await read_frames(got))
    [done] = _payloads(frames, "message_complete")
    assert done["status"] == "complete"
    assert done["metadata"]["agentMode"] == "offline"
    assert done["metadata"]["tokensUsed"]["total"] == 0
    assert "offline" in done["metadata"]
    assert openai_server.requests == []
    assert (await message_of(world, message_id)).status == "complete"
    # A new question is stored and answered the same way.
    asked = await live.clients["contributor"].post(
        f"/api/data-agent/chats/{chat.id}/messages", json={"content": "And now?"}
    )
    assert asked.status_code == 201, asked.text


async def test_the_stateless_chat_streams_seed_002_events_with_a_chart(
    world: World, live: Live, openai_server: FakeOpenAIServer
) -> None:
    ontology_id = await world.make_ontology(world.contributor)
    rows = [{"city": "Oslo", "customers": 1}, {"city": "Rome", "customers": 1}]
    openai_server.push(
        Step(
            text="I will chart it.",
            tool_calls=[
                tool(
                    "create_chart",
                    chart_type="bar",
                    title="Customers by city",
                    data=rows,
                    x="city",
                    y=["customers"],
                )
            ],
        ),
        Step(text="Both cities have one customer."),
    )
    client = live.clients["contributor"]
    body = {
        "ontologyId": str(ontology_id),
        "messages": [{"role": "user", "content": "Chart customers by city"}],
    }
    async with client.stream("POST", "/api/agent/chat", json=body) as response:
        assert response.status_code == 200
        raw = (await response.aread()).decode()
    frames = [
        dict(line.split(": ", 1) for line in block.split("\n"))
        for block in raw.split("\n\n")
        if block and not block.startswith(":")
    ]
    events = [f["event"] for f in frames]
    assert events[0] == "chunk" and events[-1] == "done"
    assert events.index("clear_streaming") < events.index("tool_call") < events.index("chart")
    (call,) = [json.loads(f["data"]) for f in frames if f["event"] == "tool_call"]
    assert call["tool"] == "create_chart" and call["thinking"] == "I will chart it."
    assert call["iteration"] == 1 and call["duration_ms"] >= 0
    (chart,) = [json.loads(f["data"]) for f in frames if f["event"] == "chart"]
    assert chart["spec"]["mark"]["type"] == "bar" and chart["chartType"] == "bar"
    image = await client.get(chart["url"])
    assert image.status_code == 200 and image.content.startswith(b"\x89PNG")
    assert (await live.clients["other"].get(chart["url"])).status_code == 404

    # Another user's ontology is a 404 before anything streams.
    theirs = dict(body, ontologyId=str(await world.make_ontology(world.other)))
    assert (await client.post("/api/agent/chat", json=theirs)).status_code == 404
    # A conversation that does not end with the user's question is refused.
    bad = dict(body, messages=[{"role": "assistant", "content": "Hello"}])
    assert (await client.post("/api/agent/chat", json=bad)).status_code == 400
    unknown = dict(body, ontologyId=str(uuid.uuid4()))
    assert (await client.post("/api/agent/chat", json=unknown)).status_code == 404


async def test_a_client_that_leaves_mid_answer_gets_every_event_back_byte_for_byte(
    world: World, live: Live, openai_server: FakeOpenAIServer
) -> None:
    openai_server.push(
        Step(tool_calls=[tool("query_database", sql=CITY_COUNTS)]),
        Step(text="Each of the two cities has one customer.", piece=3, chunk_delay_s=0.02),
    )
    chat = await new_chat(world, world.contributor)
    message_id = await chat.ask("Customers per city?")
    client = live.clients["contributor"]
    async with client.stream("POST", chat.url(message_id, "stream")) as response:
        first = await read_frames(response, count=3)
    # The client hung up after three events; the answer goes on without it.
    seen = parse(first)
    assert len(seen) == 3 and seen[0][1] == "message_start"

    async def answered() -> bool:
        return (await message_of(world, message_id)).status == "complete"

    await until(answered, "the answer completes without its client")
    headers = {"Last-Event-ID": str(seen[-1][0])}
    async with client.stream("GET", chat.url(message_id, "events"), headers=headers) as response:
        rest = await read_frames(response)
    async with client.stream("GET", chat.url(message_id, "events")) as response:
        replay = await read_frames(response)
    assert first + rest == replay
    assert parse(replay)[-1][1] == "message_complete"
    # Replayed, never run again: the model was asked twice in all.
    assert len(openai_server.requests) == 2
