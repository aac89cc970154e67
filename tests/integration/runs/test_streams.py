"""Claiming and streaming an answer: one claim per message, events stored before they are
sent, streams that outlive their client and resume byte for byte."""

from __future__ import annotations

import asyncio
import json
import uuid

import pytest
from tests.integration.api.conftest import World
from tests.integration.runs.conftest import (
    Live,
    Scripted,
    message_of,
    new_chat,
    parse,
    read_frames,
    run_of,
    stored_events,
    until,
)

from dataagent.errors import DataAgentError
from dataagent.runs.event_log import EventLog
from dataagent.runs.system import RunSystem
from dataagent.store import runs


async def test_an_answer_streams_its_stored_events_and_completes_the_message(
    world: World, live: Live, scripted: Scripted
) -> None:
    chat = await new_chat(world, world.contributor)
    message_id = await chat.ask()
    scripted.gate.set()
    client = live.clients["contributor"]
    async with client.stream("POST", chat.url(message_id, "stream")) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        assert response.headers["cache-control"] == "no-cache"
        assert response.headers["x-accel-buffering"] == "no"
        body = await read_frames(response)
    frames = parse(body)
    # "Hel" and "lo" came within one window and are stored as one chunk (runs.md).
    assert [event for _, event, _ in frames] == [
        "message_start",
        "message_chunk",
        "message_chunk",
        "message_complete",
    ]
    assert [json.loads(data)["chunk"] for _, event, data in frames[1:3]] == ["Hello", " world"]
    assert [seq for seq, _, _ in frames] == [1, 2, 3, 4]
    run = await run_of(world, message_id)
    # What was sent is what is stored, byte for byte: frames come from the log only.
    assert frames == await stored_events(world, run.id)
    start = json.loads(frames[0][2])
    assert start["messageId"] == message_id and start["chatId"] == chat.id
    assert start["runId"] == str(run.id) and start["startedAt"]
    assert json.loads(frames[-1][2])["content"] == "Hello world"
    assert (run.status, run.error_code, run.finished_at is not None) == ("succeeded", None, True)
    message = await message_of(world, message_id)
    assert (message.status, message.content) == ("complete", "Hello world")
    # A finished answer is replayed, never run again.
    again = await world.contributor.client.get(chat.url(message_id, "events"))
    assert again.status_code == 200 and again.content == body


async def test_a_message_is_claimed_once(world: World, live: Live, scripted: Scripted) -> None:
    chat = await new_chat(world, world.contributor)
    message_id = await chat.ask()
    client = live.clients["contributor"]
    async with client.stream("POST", chat.url(message_id, "stream")) as first:
        assert first.status_code == 200
        second = await client.post(chat.url(message_id, "stream"))
        assert second.status_code == 409
        assert second.json()["error"] == {
            "code": "CONFLICT",
            "message": "This message is already being answered.",
        }
        scripted.gate.set()
        await read_frames(first)
    finished = await client.post(chat.url(message_id, "stream"))  # answered: no second run
    assert finished.status_code == 409
    assert (await run_of(world, message_id)).status == "succeeded"


async def test_two_claims_at_once_make_one_run(world: World, scripted: Scripted) -> None:
    chat = await new_chat(world, world.contributor)
    message_id = uuid.UUID(await chat.ask())

    async def claim() -> str:
        async with world.database.session() as session:
            try:
                await runs.claim_message(
                    session, world.contributor.id, uuid.UUID(chat.id), message_id, 30
                )
                await session.commit()
            except DataAgentError as exc:
                return exc.code.value
            return "claimed"

    outcomes = sorted(await asyncio.gather(claim(), claim(), claim()))
    assert outcomes == ["CONFLICT", "CONFLICT", "claimed"]


async def test_only_a_generating_assistant_message_can_be_claimed(
    world: World, scripted: Scripted
) -> None:
    chat = await new_chat(world, world.contributor)
    await chat.ask()
    listing = await world.contributor.client.get(f"/api/data-agent/chats/{chat.id}/messages")
    question = next(m for m in listing.json()["data"]["items"] if m["role"] == "user")
    response = await world.contributor.client.post(chat.url(question["id"], "stream"))
    assert response.status_code == 409
    assert response.json()["error"]["message"] == "Only an assistant message can be answered."


async def test_one_answer_at_a_time_per_user(world: World, live: Live, scripted: Scripted) -> None:
    chat = await new_chat(world, world.contributor)
    first, second = await chat.ask(), await chat.ask("And by city?")
    others = await new_chat(world, world.other)
    theirs = await others.ask()
    client = live.clients["contributor"]
    async with client.stream("POST", chat.url(first, "stream")) as running:
        refused = await client.post(chat.url(second, "stream"))
        assert refused.status_code == 429
        assert refused.json()["error"] == {
            "code": "RATE_LIMITED",
            "message": "You already have an answer being generated; wait for it or cancel it.",
        }
        # Another user is not held back by this one.
        async with live.clients["other"].stream("POST", others.url(theirs, "stream")) as other:
            assert other.status_code == 200
            scripted.gate.set()
            await read_frames(other)
        await read_frames(running)
    # Once it has ended, the next question can be answered (the refusal claimed nothing).
    async with client.stream("POST", chat.url(second, "stream")) as response:
        assert response.status_code == 200
        assert parse(await read_frames(response))[-1][1] == "message_complete"


@pytest.mark.parametrize("run_overrides", [{"run_max_concurrency": 1}])
async def test_the_global_limit_queues_runs_in_order(
    world: World, live: Live, scripted: Scripted, system: RunSystem
) -> None:
    mine = await new_chat(world, world.contributor)
    theirs = await new_chat(world, world.other)
    first, second = await mine.ask(), await theirs.ask()
    async with (
        live.clients["contributor"].stream("POST", mine.url(first, "stream")) as a,
        live.clients["other"].stream("POST", theirs.url(second, "stream")) as b,
    ):
        first_run = await run_of(world, first)
        await scripted.at_gate(first_run.id).wait()
        await until(lambda: _is(system.runner.queued, 1), "the second run waits")
        waiting = await run_of(world, second)
        assert (waiting.status, waiting.started_at) == ("queued", None)
        assert waiting.worker_id == system.runner.worker_id  # held (and its lease kept) here
        scripted.gate.set()
        frames_a, frames_b = parse(await read_frames(a)), parse(await read_frames(b))
    assert frames_a[-1][1] == frames_b[-1][1] == "message_complete"
    done_a, done_b = await run_of(world, first), await run_of(world, second)
    assert done_a.status == done_b.status == "succeeded"
    assert done_a.finished_at is not None and done_b.started_at is not None
    assert done_b.started_at >= done_a.finished_at


async def _is(value: int, expected: int) -> bool:
    return value == expected


async def test_a_client_that_hangs_up_misses_nothing(
    world: World, live: Live, scripted: Scripted
) -> None:
    chat = await new_chat(world, world.contributor)
    message_id = await chat.ask()
    client = live.clients["contributor"]
    async with client.stream("POST", chat.url(message_id, "stream")) as response:
        seen = await read_frames(response, count=2)  # message_start, "Hello"; then hang up
    assert [event for _, event, _ in parse(seen)] == ["message_start", "message_chunk"]
    run = await run_of(world, message_id)
    await scripted.at_gate(run.id).wait()
    scripted.gate.set()  # the run goes on without its client
    await until(lambda: _finished(world, message_id), "the run ends without its client")
    assert (await message_of(world, message_id)).content == "Hello world"

    last_id = parse(seen)[-1][0]
    resumed = await client.post(
        chat.url(message_id, "stream"), headers={"Last-Event-ID": str(last_id)}
    )
    assert resumed.status_code == 200
    assert [seq for seq, _, _ in parse(resumed.content)] == [3, 4]
    replay = await client.get(chat.url(message_id, "events"))
    assert replay.content == seen + resumed.content  # byte-identical
    after = await client.get(chat.url(message_id, "events"), params={"after": 3})
    assert after.content == resumed.content[-len(after.content) :]
    assert [event for _, event, _ in parse(after.content)] == ["message_complete"]


async def _finished(world: World, message_id: str) -> bool:
    return (await run_of(world, message_id)).status == "succeeded"


async def test_each_event_is_committed_before_emit_returns(world: World, system: RunSystem) -> None:
    seen: list[list[tuple[int, str, str]]] = []

    class Checking(Scripted):
        async def execute(self, run):  # type: ignore[no-untyped-def]
            # Any event but a message_chunk (those are joined for a moment, see runs.md).
            await run.emit("text", {"content": "é"})
            seen.append(await stored_events(world, run.run_id))  # another session reads it
            await run.emit("message_complete", {"messageId": str(run.message_id)})

    system.register("chat_message", Checking())
    chat = await new_chat(world, world.contributor)
    message_id = await chat.ask()
    response = await world.contributor.client.post(chat.url(message_id, "stream"))
    # message_start went in with the claim; the handler's first event is the second.
    assert [event for _, event, _ in seen[0]] == ["message_start", "text"]
    assert seen[0][1] == (2, "text", '{"content":"é"}')  # compact, UTF-8 as is
    assert 'id: 2\nevent: text\ndata: {"content":"é"}\n\n' in response.content.decode()


async def test_another_process_serves_the_stream_from_the_database(
    world: World, live: Live, scripted: Scripted
) -> None:
    """A second app on the same database (no in-process wake-up from the writer) tails a
    run executing in the first, by reading the log."""
    chat = await new_chat(world, world.contributor)
    message_id = await chat.ask()
    from dataagent.api.app import create_app

    replica = create_app(world.context.settings)
    try:
        transport_client = live.clients["contributor"]
        async with transport_client.stream("POST", chat.url(message_id, "stream")) as response:
            run = await run_of(world, message_id)
            await scripted.at_gate(run.id).wait()
            import httpx

            async with httpx.AsyncClient(
                transport=httpx.ASGITransport(app=replica),
                base_url="http://replica",
                headers=dict(world.contributor.client.headers),
            ) as other:
                tail = asyncio.create_task(other.get(chat.url(message_id, "events")))
                scripted.gate.set()
                from_replica = await tail
            here = await read_frames(response)
        assert from_replica.status_code == 200 and from_replica.content == here
        assert isinstance(replica.state.runs.events, EventLog)
    finally:
        await replica.state.context.aclose()


async def test_the_request_session_is_released_before_streaming(
    world: World, live: Live, scripted: Scripted, system: RunSystem
) -> None:
    system.events.poll_s = 60  # readers here wake on appends only: no read while it waits
    chat = await new_chat(world, world.contributor)
    message_id = await chat.ask()
    async with live.clients["contributor"].stream("POST", chat.url(message_id, "stream")) as r:
        run = await run_of(world, message_id)
        await scripted.at_gate(run.id).wait()
        await read_frames(r, count=2)
        # The stream is open and will be for as long as the gate is shut: had the request
        # kept its session, a connection would stay checked out until the stream's end.
        pool = world.database.engine.pool
        await until(lambda: _is(pool.checkedout(), 0), "no connection is held")  # type: ignore[attr-defined]
        scripted.gate.set()
        await read_frames(r)


@pytest.mark.parametrize("run_overrides", [{"run_heartbeat_s": 0.05}])
async def test_a_quiet_stream_gets_heartbeats(world: World, live: Live, scripted: Scripted) -> None:
    chat = await new_chat(world, world.contributor)
    message_id = await chat.ask()
    async with live.clients["contributor"].stream("POST", chat.url(message_id, "stream")) as r:
        data = await read_frames(r, stop_at=b": heartbeat\n\n")
        scripted.gate.set()
        data += await read_frames(r)
    assert data.count(b": heartbeat\n\n") >= 1
    assert [e for _, e, _ in parse(data)][-1] == "message_complete"
