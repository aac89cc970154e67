"""How runs end when things go wrong: cancelled, failed, interrupted (the reaper), taken
from a worker that stalled; and who may see them."""

from __future__ import annotations

import json
import uuid
from datetime import datetime, timedelta

import pytest
from sqlalchemy import update
from tests.integration.api.conftest import World, built
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

from dataagent.api.app import create_app
from dataagent.errors import DataAgentError, ErrorCode
from dataagent.runs.chat import ANSWER_INTERRUPTED
from dataagent.runs.event_log import encode
from dataagent.runs.system import RunSystem
from dataagent.services.ontologies import INTERRUPTED as BUILD_INTERRUPTED
from dataagent.store import runs
from dataagent.store.models import AgentRun, DataChatMessage, Ontology, RunEvent
from dataagent.store.types import utcnow


async def test_cancel_keeps_the_partial_text(world: World, live: Live, scripted: Scripted) -> None:
    chat = await new_chat(world, world.contributor)
    message_id = await chat.ask()
    client = live.clients["contributor"]
    async with client.stream("POST", chat.url(message_id, "stream")) as response:
        run = await run_of(world, message_id)
        await scripted.at_gate(run.id).wait()
        cancelled = await client.post(chat.url(message_id, "cancel"))
        assert cancelled.status_code == 202, cancelled.text
        assert cancelled.json()["data"]["cancelRequested"] is True
        frames = parse(await read_frames(response))
    assert frames[-1][1] == "message_error"
    assert json.loads(frames[-1][2]) == {
        "messageId": message_id,
        "message": "The answer was cancelled.",
        "code": "CANCELLED",
        "partialContent": "Hello",
    }
    run = await run_of(world, message_id)
    assert (run.status, run.error_code) == ("failed", "CANCELLED")
    message = await message_of(world, message_id)
    assert (message.status, message.content) == ("failed", "Hello")
    assert message.metadata_ is not None
    error = message.metadata_["error"]
    assert (error["code"], error["message"]) == ("CANCELLED", "The answer was cancelled.")
    assert datetime.fromisoformat(error["timestamp"]).tzinfo is not None
    again = await client.post(chat.url(message_id, "cancel"))
    assert again.status_code == 409 and again.json()["error"]["code"] == "CONFLICT"


@pytest.mark.parametrize("run_overrides", [{"run_max_concurrency": 1}])
async def test_cancel_a_queued_run(
    world: World, live: Live, scripted: Scripted, system: RunSystem
) -> None:
    mine, theirs = await new_chat(world, world.contributor), await new_chat(world, world.other)
    first, second = await mine.ask(), await theirs.ask()
    async with (
        live.clients["contributor"].stream("POST", mine.url(first, "stream")) as a,
        live.clients["other"].stream("POST", theirs.url(second, "stream")) as b,
    ):
        await until(lambda: _equal(system.runner.queued, 1), "the second run waits")
        assert (await live.clients["other"].post(theirs.url(second, "cancel"))).status_code == 202
        frames_b = parse(await read_frames(b))
        # It never started: the claim's message_start, then the cancel's error.
        assert [e for _, e, _ in frames_b] == ["message_start", "message_error"]
        assert json.loads(frames_b[1][2])["code"] == "CANCELLED"
        scripted.gate.set()
        assert parse(await read_frames(a))[-1][1] == "message_complete"
    assert (await message_of(world, second)).status == "failed"


async def _equal(value: int, expected: int) -> bool:
    return value == expected


async def test_a_failing_answer_ends_with_its_error(
    world: World, live: Live, scripted: Scripted
) -> None:
    scripted.raise_after_gate = DataAgentError(ErrorCode.LLM_ERROR, "The model failed.")
    scripted.gate.set()
    chat = await new_chat(world, world.contributor)
    message_id = await chat.ask()
    response = await world.contributor.client.post(chat.url(message_id, "stream"))
    last = parse(response.content)[-1]
    assert last[1] == "message_error"
    assert json.loads(last[2])["code"] == "LLM_ERROR"
    assert json.loads(last[2])["partialContent"] == "Hello"
    run = await run_of(world, message_id)
    assert (run.status, run.error_code, run.error_message) == (
        "failed",
        "LLM_ERROR",
        "The model failed.",
    )


async def test_an_unexpected_error_is_an_internal_error(
    world: World, scripted: Scripted, caplog: pytest.LogCaptureFixture
) -> None:
    scripted.raise_after_gate = RuntimeError("boom: a bug")
    scripted.gate.set()
    chat = await new_chat(world, world.contributor)
    message_id = await chat.ask()
    response = await world.contributor.client.post(chat.url(message_id, "stream"))
    error = json.loads(parse(response.content)[-1][2])
    assert (error["code"], error["message"]) == (
        "INTERNAL_ERROR",
        "Something went wrong on our side.",
    )
    assert "boom" not in response.text
    assert any("boom: a bug" in str(r.exc_info) for r in caplog.records if r.exc_info)


async def _expired_run(
    world: World, message_id: str, events: list[tuple[str, dict[str, object]]]
) -> AgentRun:
    """A run whose worker died mid-answer: running, its lease long expired, its events."""
    async with world.database.session() as session:
        message = await session.get(DataChatMessage, uuid.UUID(message_id))
        assert message is not None
        chat_id = message.chat_id
        run = AgentRun(
            kind="chat_message",
            owner_id=world.contributor.id,
            chat_id=chat_id,
            message_id=message.id,
            status="running",
            worker_id="gone:1:dead",
            lease_expires_at=utcnow() - timedelta(seconds=5),
            started_at=utcnow(),
        )
        session.add(run)
        await session.flush()
        for seq, (event, data) in enumerate(events, start=1):
            session.add(RunEvent(run_id=run.id, seq=seq, event=event, data=encode(data)))
        await session.commit()
    return run


async def test_the_reaper_fails_an_expired_run_keeping_its_partial_text(
    world: World, system: RunSystem
) -> None:
    chat = await new_chat(world, world.contributor)
    dead, alive, unasked = await chat.ask(), await chat.ask("2"), await chat.ask("3")
    run = await _expired_run(
        world,
        dead,
        [
            ("message_start", {"messageId": dead}),
            ("message_chunk", {"chunk": "Let me look"}),
            ("clear_streaming", {}),
            ("tool_call", {"id": "1", "name": "search_datasets", "args": {}}),
            ("message_chunk", {"chunk": "Two "}),
            ("message_chunk", {"chunk": "customers"}),
        ],
    )
    async with world.database.session() as session:  # a run whose worker is alive
        session.add(
            AgentRun(
                kind="chat_message",
                owner_id=world.other.id,
                chat_id=uuid.UUID(chat.id),
                message_id=uuid.UUID(alive),
                status="running",
                worker_id="alive:2:well",
                lease_expires_at=utcnow() + timedelta(seconds=60),
            )
        )
        await session.commit()

    assert await system.reaper.sweep() == 1
    assert await system.reaper.sweep() == 0  # once
    failed = await run_of(world, dead)
    assert (failed.status, failed.error_code, failed.error_message) == (
        "failed",
        "INTERRUPTED",
        ANSWER_INTERRUPTED,
    )
    message = await message_of(world, dead)
    assert (message.status, message.content) == ("failed", "Two customers")
    events = await stored_events(world, run.id)
    assert events[-1][:2] == (7, "message_error")
    assert json.loads(events[-1][2]) == {
        "messageId": dead,
        "message": "The server stopped while this answer was being generated.",
        "code": "INTERRUPTED",
        "partialContent": "Two customers",
    }
    # A client that was tailing it gets the end; a replay too.
    replay = await world.contributor.client.get(chat.url(dead, "events"), params={"after": 5})
    assert [e for _, e, _ in parse(replay.content)] == ["message_chunk", "message_error"]
    assert (await run_of(world, alive)).status == "running"
    # A message nobody has asked to answer yet is not the reaper's (the sweep fails it only
    # past the claim timeout: test_sweeps.py).
    assert (await message_of(world, unasked)).status == "generating"


async def test_with_no_chunk_since_the_last_clear_the_last_text_is_kept(
    world: World, system: RunSystem
) -> None:
    chat = await new_chat(world, world.contributor)
    dead = await chat.ask()
    await _expired_run(
        world,
        dead,
        [
            ("message_chunk", {"chunk": "Thinking"}),
            ("text", {"content": "I will count them."}),
            ("clear_streaming", {}),
        ],
    )
    await system.reaper.sweep()
    assert (await message_of(world, dead)).content == "I will count them."


async def test_a_worker_that_lost_its_lease_writes_nothing_more(
    world: World, live: Live, scripted: Scripted, system: RunSystem
) -> None:
    chat = await new_chat(world, world.contributor)
    message_id = await chat.ask()
    async with live.clients["contributor"].stream("POST", chat.url(message_id, "stream")) as r:
        run = await run_of(world, message_id)
        await scripted.at_gate(run.id).wait()
        async with world.database.session() as session:  # the worker stalls past its lease
            await session.execute(
                update(AgentRun)
                .where(AgentRun.id == run.id)
                .values(lease_expires_at=utcnow() - timedelta(seconds=1))
            )
            await session.commit()
        assert await system.reaper.sweep() == 1
        scripted.gate.set()  # it wakes up and tries to go on
        frames = parse(await read_frames(r))
    await system.runner.wait(run.id)
    assert [e for _, e, _ in frames][-1] == "message_error"
    events = await stored_events(world, run.id)
    assert events[-1][1] == "message_error"  # nothing after the reaper's last word
    assert (await message_of(world, message_id)).content == "Hello"
    assert (await run_of(world, message_id)).error_code == "INTERRUPTED"


async def test_a_cancel_reaches_a_run_in_another_process(world: World, scripted: Scripted) -> None:
    """Two apps on one database; the run executes in the first, the cancel reaches the
    second: the first sees it at its next lease renewal."""
    system: RunSystem = world.app.state.runs
    system.runner.lease_s = 0.3  # renewals every 0.1 s
    chat = await new_chat(world, world.contributor)
    message_id = await chat.ask()
    replica = create_app(world.context.settings)
    try:
        async with world.database.session() as session:
            claimed = await runs.claim_message(
                session, world.contributor.id, uuid.UUID(chat.id), uuid.UUID(message_id), 30
            )
            await session.commit()
        await system.runner.submit(claimed.id)
        await scripted.at_gate(claimed.id).wait()
        import httpx

        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(app=replica),
            base_url="http://replica",
            headers=dict(world.contributor.client.headers),
        ) as other:
            assert (await other.post(chat.url(message_id, "cancel"))).status_code == 202
            await system.runner.wait(claimed.id)
            replay = await other.get(chat.url(message_id, "events"))
        assert json.loads(parse(replay.content)[-1][2])["code"] == "CANCELLED"
        assert (await run_of(world, message_id)).error_code == "CANCELLED"
    finally:
        await replica.state.context.aclose()


async def test_another_users_answer_is_not_found(
    world: World, live: Live, scripted: Scripted
) -> None:
    chat = await new_chat(world, world.contributor)
    message_id = await chat.ask()
    scripted.gate.set()
    await world.contributor.client.post(chat.url(message_id, "stream"))
    intruder = world.other.client
    for method, what in (("POST", "stream"), ("GET", "events"), ("POST", "cancel")):
        response = await intruder.request(method, chat.url(message_id, what))
        assert response.status_code == 404, (what, response.text)
        assert response.json()["error"]["code"] == "NOT_FOUND"
    theirs = await new_chat(world, world.other)  # their own chat, my message: still 404
    assert (await intruder.get(theirs.url(message_id, "events"))).status_code == 404
    alias = await intruder.post(f"/api/data-agent/stream/{message_id}")
    assert alias.status_code == 404
    unknown = await world.contributor.client.get(chat.url(str(uuid.uuid4()), "events"))
    assert unknown.status_code == 404
    # A viewer may read but not start or cancel answers.
    viewer = await world.viewer.client.post(chat.url(message_id, "stream"))
    assert viewer.status_code == 403


async def test_another_users_message_and_a_missing_one_get_the_same_answer(
    world: World, scripted: Scripted
) -> None:
    """Issue 21, finding 6: no route under /api/data-agent that takes a message id tells
    another user's message from one that does not exist."""
    scripted.gate.set()
    victim = await new_chat(world, world.contributor)
    message_id = await victim.ask()
    answered = await world.contributor.client.post(victim.url(message_id, "stream"))
    assert parse(answered.content)[-1][1] == "message_complete"  # it has a run and traces
    missing = str(uuid.uuid4())
    intruder = world.other.client
    own = await new_chat(world, world.other)
    for method, what in (
        ("POST", "stream"),
        ("GET", "events"),
        ("POST", "cancel"),
        ("GET", "traces"),
    ):
        pairs = (
            (victim.url(message_id, what), victim.url(missing, what).replace(victim.id, missing)),
            (own.url(message_id, what), own.url(missing, what)),
        )
        for theirs, nobodys in pairs:
            found = await intruder.request(method, theirs)
            absent = await intruder.request(method, nobodys)
            assert found.status_code == absent.status_code == 404, (theirs, found.text)
            assert found.content == absent.content, (theirs, found.text, absent.text)
    for body in (None, {"chatId": own.id}, {"chatId": victim.id}):
        found = await intruder.post(f"/api/data-agent/stream/{message_id}", json=body)
        absent = await intruder.post(f"/api/data-agent/stream/{missing}", json=body)
        assert found.status_code == absent.status_code == 404, body
        assert found.content == absent.content, (body, found.text, absent.text)
        assert found.json()["error"] == {"code": "NOT_FOUND", "message": "Message not found."}


async def test_events_of_an_unclaimed_message_are_not_found(world: World) -> None:
    chat = await new_chat(world, world.contributor)
    message_id = await chat.ask()
    response = await world.contributor.client.get(chat.url(message_id, "events"))
    assert response.status_code == 404
    assert "/stream" in response.json()["error"]["message"]


async def test_the_seed_alias_streams_the_same_answer(world: World, scripted: Scripted) -> None:
    scripted.gate.set()
    chat = await new_chat(world, world.contributor)
    message_id = await chat.ask()
    client = world.contributor.client
    wrong = await client.post(
        f"/api/data-agent/stream/{message_id}", json={"chatId": str(uuid.uuid4())}
    )
    assert wrong.status_code == 404
    response = await client.post(
        f"/api/data-agent/stream/{message_id}", json={"chatId": chat.id, "question": "ignored"}
    )
    assert response.status_code == 200
    assert parse(response.content)[-1][1] == "message_complete"
    replay = await client.get(chat.url(message_id, "events"))
    assert replay.content == response.content


async def test_ontology_builds_are_runs(world: World) -> None:
    ontology_id = await world.make_ontology(world.contributor)
    client = world.contributor.client
    assert (await client.post(f"/api/ontologies/{ontology_id}/rebuild")).status_code == 202
    assert (await built(client, str(ontology_id)))["status"] == "ready"
    await world.context.builds.wait(ontology_id)
    async with world.database.session() as session:
        build_runs = await runs.runs_of_ontology(session, ontology_id)
    assert [(r.kind, r.status) for r in build_runs] == [("ontology_build", "succeeded")] * 2
    events = await stored_events(world, build_runs[-1].id)
    assert [e for _, e, _ in events] == ["build_start", "build_complete"]
    assert json.loads(events[-1][2])["status"] == "ready"


async def test_a_build_whose_server_died_is_interrupted(world: World, system: RunSystem) -> None:
    ontology_id = await world.make_ontology(world.contributor, status="building")
    async with world.database.session() as session:
        run = runs.add_build_run(session, world.contributor.id, ontology_id, lease_s=30)
        run.status, run.worker_id = "running", "gone:1:dead"
        run.lease_expires_at = utcnow() - timedelta(seconds=1)
        await session.commit()
    assert await system.reaper.sweep() == 1
    async with world.database.session() as session:
        ontology = await session.get(Ontology, ontology_id)
        assert ontology is not None
        assert (ontology.status, ontology.error) == ("failed", BUILD_INTERRUPTED)
    events = await stored_events(world, run.id)
    assert [e for _, e, _ in events] == ["build_error"]
    assert json.loads(events[0][2])["code"] == "INTERRUPTED"


async def test_the_openapi_document_describes_the_streams(world: World) -> None:
    paths = (await world.anon.get("/openapi.json")).json()["paths"]
    base = "/api/data-agent/chats/{chat_id}/messages/{message_id}"
    for path, method in (
        (f"{base}/stream", "post"),
        ("/api/data-agent/stream/{message_id}", "post"),
        (f"{base}/events", "get"),
    ):
        operation = paths[path][method]
        assert list(operation["responses"]["200"]["content"]) == ["text/event-stream"], path
        assert "404" in operation["responses"]
    stream = paths[f"{base}/stream"]["post"]["responses"]
    assert {"409", "429", "503"} <= set(stream)
    cancel = paths[f"{base}/cancel"]["post"]
    assert cancel["operationId"] == "cancelMessage" and "409" in cancel["responses"]
