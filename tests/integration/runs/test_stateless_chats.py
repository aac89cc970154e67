"""The stateless chat as this process's work (issue 21, finding 2): it holds no database
connection while it streams, takes a run slot while it answers (queued behind others with
heartbeats), and one person streams one at a time."""

from __future__ import annotations

import asyncio
import contextlib
import json

import httpx
import pytest
from tests.fakes.scripted_model import Reply, ScriptedChatModel
from tests.integration.api.conftest import World
from tests.integration.runs.conftest import (
    GatedModel,
    Live,
    Scripted,
    checked_out,
    new_chat,
    parse,
    read_frames,
    stateless_body,
    stateless_frames,
    until,
)

from dataagent.runs.sse import HEARTBEAT
from dataagent.runs.system import RunSystem

CHAT = "/api/agent/chat"
# Bounds for what must be answered at once while streams wait: generous, never a timing
# assert (an answer held behind the pool would take its 30 s time-out, then fail).
ANSWERED_WITHIN_S = 10.0


async def _true(value: bool) -> bool:
    return value


async def _streams(
    stack: contextlib.AsyncExitStack, client: httpx.AsyncClient, body: dict[str, object], n: int
) -> list[httpx.Response]:
    """`n` stateless chats asked at once; each response as soon as its headers arrive."""
    return list(
        await asyncio.gather(
            *(stack.enter_async_context(client.stream("POST", CHAT, json=body)) for _ in range(n))
        )
    )


@pytest.mark.parametrize("run_overrides", [{"run_heartbeat_s": 0.05}])
async def test_one_person_streams_one_chat_at_a_time(
    world: World, live: Live, gated: GatedModel
) -> None:
    body = stateless_body(await world.make_ontology(world.contributor))
    client = live.clients["contributor"]
    async with contextlib.AsyncExitStack() as stack:
        responses = await _streams(stack, client, body, 4)
        statuses = sorted(r.status_code for r in responses)
        assert statuses == [200, 429, 429, 429]
        for refused in (r for r in responses if r.status_code == 429):
            # Refused before anything streamed: a JSON error, not an event stream.
            assert refused.headers["content-type"] == "application/json"
            error = json.loads(await refused.aread())["error"]
            assert error["code"] == "RATE_LIMITED"
            assert "already have a chat answer streaming" in error["message"]
        (streaming,) = (r for r in responses if r.status_code == 200)
        assert streaming.headers["content-type"].startswith("text/event-stream")

        # Another person is not held back by it.
        theirs = stateless_body(await world.make_ontology(world.other))
        other = await stack.enter_async_context(
            live.clients["other"].stream("POST", CHAT, json=theirs)
        )
        assert other.status_code == 200

        gated.gate.set()
        assert stateless_frames(await read_frames(streaming))[-1] == (
            "done",
            {"status": "completed"},
        )
        # Whoever has read `done` may ask again at once: the chat ended before it was sent.
        async with client.stream("POST", CHAT, json=body) as again:
            assert again.status_code == 200
            assert stateless_frames(await read_frames(again))[-1][0] == "done"
        assert stateless_frames(await read_frames(other))[-1][0] == "done"


@pytest.mark.parametrize("run_overrides", [{"run_heartbeat_s": 0.05}])
async def test_a_streaming_chat_holds_no_database_connection(
    world: World, live: Live, gated: GatedModel
) -> None:
    body = stateless_body(await world.make_ontology(world.contributor))
    async with live.clients["contributor"].stream("POST", CHAT, json=body) as response:
        assert response.status_code == 200
        assert await read_frames(response, stop_at=HEARTBEAT) == HEARTBEAT  # the first bytes
        await until(lambda: _true(gated.entered == 1), "the answer waits for the model")
        # The request's session (its sign-in's connection) was closed before the first byte.
        await until(lambda: _true(checked_out(world) == 0), "no connection is checked out")
        gated.gate.set()
        assert stateless_frames(await read_frames(response))[-1][0] == "done"


@pytest.mark.parametrize(
    "run_overrides",
    [{"run_max_concurrency": 2, "agent_chat_max_per_user": 16, "run_heartbeat_s": 0.05}],
)
async def test_sixteen_streams_of_one_person_leave_the_server_answering(
    world: World, live: Live, gated: GatedModel, system: RunSystem
) -> None:
    """The attack of finding 2 (16 streams against a slow model): they wait for run slots,
    holding no connections, and everyone else is answered meanwhile."""
    body = stateless_body(await world.make_ontology(world.contributor))
    theirs = await new_chat(world, world.other)
    async with contextlib.AsyncExitStack() as stack:
        responses = await _streams(stack, live.clients["contributor"], body, 16)
        assert [r.status_code for r in responses] == [200] * 16

        async def two_answer_and_fourteen_wait() -> bool:
            return gated.entered == 2 and system.runner.queued == 14

        await until(two_answer_and_fourteen_wait, "two chats answer, fourteen wait for a slot")
        await until(lambda: _true(checked_out(world) == 0), "no connection is checked out")
        other = live.clients["other"]
        health = await asyncio.wait_for(other.get("/api/health"), ANSWERED_WITHIN_S)
        assert health.status_code == 200, health.text
        chats = await asyncio.wait_for(other.get("/api/data-agent/chats"), ANSWERED_WITHIN_S)
        assert chats.status_code == 200, chats.text
        asked = await asyncio.wait_for(theirs.ask("Anyone there?"), ANSWERED_WITHIN_S)
        assert asked
        # The waiting streams are kept alive.
        assert await read_frames(responses[-1], stop_at=HEARTBEAT) == HEARTBEAT

        gated.gate.set()
        for response in responses:
            assert stateless_frames(await read_frames(response))[-1][0] == "done"
    assert system.runner.queued == 0


@pytest.mark.parametrize("run_overrides", [{"run_max_concurrency": 1, "run_heartbeat_s": 0.05}])
async def test_a_chat_waiting_for_a_slot_gets_it_when_one_frees(
    world: World, live: Live, scripted: Scripted, system: RunSystem
) -> None:
    model = ScriptedChatModel(default=Reply(text="Two customers."))
    world.context.chat_model_factory = lambda info: model
    # Another person's durable answer holds the one slot (at its gate).
    theirs = await new_chat(world, world.other)
    message_id = await theirs.ask()
    body = stateless_body(await world.make_ontology(world.contributor))
    async with (
        live.clients["other"].stream("POST", theirs.url(message_id, "stream")) as answer,
        live.clients["contributor"].stream("POST", CHAT, json=body) as chat,
    ):
        assert (answer.status_code, chat.status_code) == (200, 200)
        await until(lambda: _true(system.runner.queued == 1), "the chat waits for the slot")
        # Heartbeats while it waits, and nothing asked of the model yet.
        assert await read_frames(chat, stop_at=HEARTBEAT) == HEARTBEAT
        assert await read_frames(chat, stop_at=HEARTBEAT) == HEARTBEAT
        assert model.calls == []
        scripted.gate.set()
        assert parse(await read_frames(answer))[-1][1] == "message_complete"
        events = stateless_frames(await read_frames(chat))
    assert [e for e, _ in events if e != "chunk"] == ["done"]
    assert "".join(d["content"] for e, d in events if e == "chunk") == "Two customers."
    assert len(model.calls) == 1


async def test_the_openapi_document_names_the_429(world: World) -> None:
    operation = (await world.anon.get("/openapi.json")).json()["paths"][CHAT]["post"]
    assert {"200", "429", "503"} <= set(operation["responses"])
