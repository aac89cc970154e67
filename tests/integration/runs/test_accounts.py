"""Account changes stop the person's work (issue 21, finding 5): deactivation, an admin's
sign-out everywhere (or new password) and deletion end their running and queued answers with
`message_error` and their stateless chats with `error`; deletion writes nothing after the
rows are gone.

The agent runs for real (`ChatAnswers`, the react loop, the traces); the model is the
gated scripted model, blocking until the test releases it."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import uuid
from collections.abc import Awaitable, Callable

import httpx
import pytest
from sqlalchemy import func, select, text
from tests.integration.api.conftest import World
from tests.integration.runs.conftest import (
    GatedModel,
    Live,
    message_of,
    new_chat,
    parse,
    read_frames,
    run_of,
    stateless_body,
    stateless_frames,
    until,
)

from dataagent.runs.system import RunSystem
from dataagent.services.users import STOPPED_DEACTIVATED, STOPPED_DELETED, STOPPED_SIGNED_OUT
from dataagent.store.models import AgentRun, Base, LlmTrace, User

Change = Callable[[httpx.AsyncClient, uuid.UUID], Awaitable[httpx.Response]]
# A stream that must end, read with a generous bound (not a timing assert): without one, a
# stream nobody stops would keep the test waiting on its heartbeats for ever.
ENDS_WITHIN_S = 30.0


async def _rest(response: httpx.Response) -> bytes:
    """The rest of a stream that must end."""
    return await asyncio.wait_for(read_frames(response), ENDS_WITHIN_S)


async def _deactivate(admin: httpx.AsyncClient, user_id: uuid.UUID) -> httpx.Response:
    return await admin.patch(f"/api/users/{user_id}", json={"isActive": False})


async def _sign_out(admin: httpx.AsyncClient, user_id: uuid.UUID) -> httpx.Response:
    return await admin.post(f"/api/users/{user_id}/sign-out")


async def _new_password(admin: httpx.AsyncClient, user_id: uuid.UUID) -> httpx.Response:
    return await admin.patch(f"/api/users/{user_id}", json={"password": "a-brand-new-one"})


async def _delete(admin: httpx.AsyncClient, user_id: uuid.UUID) -> httpx.Response:
    return await admin.delete(f"/api/users/{user_id}")


CHANGES = pytest.mark.parametrize(
    ("change", "reason"),
    [
        (_deactivate, STOPPED_DEACTIVATED),
        (_sign_out, STOPPED_SIGNED_OUT),
        (_new_password, STOPPED_SIGNED_OUT),
        (_delete, STOPPED_DELETED),
    ],
    ids=["deactivate", "sign-out", "new-password", "delete"],
)


async def _true(value: bool) -> bool:
    return value


async def _has_run(world: World, message_id: str, status: str) -> bool:
    async with world.database.session() as session:
        found = await session.scalar(
            select(AgentRun.status).where(AgentRun.message_id == uuid.UUID(message_id))
        )
    return found == status


def _no_trouble_logged(caplog: pytest.LogCaptureFixture) -> None:
    troubles = [
        r
        for r in caplog.records
        if r.levelno >= logging.ERROR
        or "IntegrityError" in r.getMessage()
        or (r.exc_info and "IntegrityError" in repr(r.exc_info[1]))
    ]
    assert troubles == [], [r.getMessage() for r in troubles]


async def _nothing_left_of(world: World, user_id: uuid.UUID) -> None:
    """No row of the user's anywhere, and no row left pointing at a row that went."""
    async with world.database.session() as session:
        assert await session.get(User, user_id, populate_existing=True) is None
        for table in Base.metadata.sorted_tables:
            if "owner_id" in table.c:
                count = await session.scalar(
                    select(func.count()).select_from(table).where(table.c.owner_id == user_id)
                )
                assert count == 0, table.name
        orphans = {
            "run_events": "SELECT COUNT(*) FROM run_events e "
            "WHERE NOT EXISTS (SELECT 1 FROM agent_runs r WHERE r.id = e.run_id)",
            "data_chat_messages": "SELECT COUNT(*) FROM data_chat_messages m "
            "WHERE NOT EXISTS (SELECT 1 FROM data_chats c WHERE c.id = m.chat_id)",
            "llm_traces": "SELECT COUNT(*) FROM llm_traces t WHERE t.run_id IS NOT NULL "
            "AND NOT EXISTS (SELECT 1 FROM agent_runs r WHERE r.id = t.run_id)",
        }
        for table_name, query in orphans.items():
            assert await session.scalar(text(query)) == 0, table_name


def _ended_with(frames: bytes, reason: str, message_id: str) -> None:
    last = parse(frames)[-1]
    assert last[1] == "message_error", parse(frames)
    error = json.loads(last[2])
    assert (error["messageId"], error["code"], error["message"]) == (
        message_id,
        "CANCELLED",
        reason,
    )


@CHANGES
@pytest.mark.parametrize("run_overrides", [{"run_max_concurrency": 2}])
async def test_a_running_answer_and_a_stateless_chat_stop(
    world: World,
    live: Live,
    gated: GatedModel,
    caplog: pytest.LogCaptureFixture,
    change: Change,
    reason: str,
) -> None:
    person = world.contributor
    chat = await new_chat(world, person)
    message_id = await chat.ask()
    body = stateless_body(await world.make_ontology(person))
    client = live.clients["contributor"]
    async with contextlib.AsyncExitStack() as stack:
        answer = await stack.enter_async_context(
            client.stream("POST", chat.url(message_id, "stream"))
        )
        stateless = await stack.enter_async_context(
            client.stream("POST", "/api/agent/chat", json=body)
        )
        assert (answer.status_code, stateless.status_code) == (200, 200)
        await until(lambda: _true(gated.entered == 2), "both wait for the model")
        assert await _has_run(world, message_id, "running")

        changed = await change(world.admin.client, person.id)
        assert changed.status_code in (200, 204), changed.text

        _ended_with(await _rest(answer), reason, message_id)
        events = stateless_frames(await _rest(stateless))
        assert events[-1] == ("error", {"message": reason, "code": "CANCELLED"})
    if change is _delete:
        await _nothing_left_of(world, person.id)
    else:
        run = await run_of(world, message_id)
        assert (run.status, run.error_code, run.error_message) == ("failed", "CANCELLED", reason)
        message = await message_of(world, message_id)
        assert message.status == "failed"
        assert message.metadata_ is not None
        assert message.metadata_["error"]["message"] == reason
        # The stopped answer's model call is kept as its trace.
        async with world.database.session() as session:
            errors = await session.scalars(
                select(LlmTrace.error).where(LlmTrace.message_id == uuid.UUID(message_id))
            )
            assert list(errors) == ["cancelled"]
    _no_trouble_logged(caplog)


@CHANGES
@pytest.mark.parametrize("run_overrides", [{"run_max_concurrency": 1}])
async def test_a_queued_answer_stops_and_others_go_on(
    world: World,
    live: Live,
    gated: GatedModel,
    system: RunSystem,
    caplog: pytest.LogCaptureFixture,
    change: Change,
    reason: str,
) -> None:
    theirs = await new_chat(world, world.other)
    their_message = await theirs.ask()
    mine = await new_chat(world, world.contributor)
    my_message = await mine.ask()
    async with contextlib.AsyncExitStack() as stack:
        running = await stack.enter_async_context(
            live.clients["other"].stream("POST", theirs.url(their_message, "stream"))
        )
        await until(lambda: _true(gated.entered == 1), "their answer holds the one slot")
        queued = await stack.enter_async_context(
            live.clients["contributor"].stream("POST", mine.url(my_message, "stream"))
        )
        assert (running.status_code, queued.status_code) == (200, 200)
        await until(lambda: _true(system.runner.queued == 1), "my answer waits for the slot")

        changed = await change(world.admin.client, world.contributor.id)
        assert changed.status_code in (200, 204), changed.text

        frames = await _rest(queued)
        assert [e for _, e, _ in parse(frames)] == ["message_start", "message_error"]
        _ended_with(frames, reason, my_message)
        assert system.runner.queued == 0
        # The other person's answer was not touched: released, it completes.
        gated.gate.set()
        assert parse(await _rest(running))[-1][1] == "message_complete"
    assert (await message_of(world, their_message)).status == "complete"
    if change is _delete:
        await _nothing_left_of(world, world.contributor.id)
    else:
        assert (await message_of(world, my_message)).status == "failed"
        assert gated.entered == 1  # my answer never reached the model
    _no_trouble_logged(caplog)


@pytest.mark.parametrize("run_overrides", [{"run_lease_s": 0.6}])
async def test_a_chat_stops_when_its_account_changes_in_another_process(
    world: World, live: Live, gated: GatedModel, system: RunSystem
) -> None:
    """The change is made without this process knowing (another server's, or the command
    line's): the chat notices within a third of a lease."""
    body = stateless_body(await world.make_ontology(world.contributor))
    async with live.clients["contributor"].stream("POST", "/api/agent/chat", json=body) as chat:
        await until(lambda: _true(gated.entered == 1), "the chat waits for the model")
        async with world.database.session() as session:
            user = await session.get(User, world.contributor.id)
            assert user is not None
            user.token_version += 1
            await session.commit()
        events = stateless_frames(await _rest(chat))
    assert events[-1] == ("error", {"message": STOPPED_SIGNED_OUT, "code": "CANCELLED"})
    assert system.chats.of(world.contributor.id) == []


@pytest.mark.parametrize("run_overrides", [{"run_max_concurrency": 2}])
async def test_the_persons_own_logout_ends_chats_not_answers(
    world: World, live: Live, gated: GatedModel
) -> None:
    chat = await new_chat(world, world.contributor)
    message_id = await chat.ask()
    body = stateless_body(await world.make_ontology(world.contributor))
    client = live.clients["contributor"]
    async with contextlib.AsyncExitStack() as stack:
        answer = await stack.enter_async_context(
            client.stream("POST", chat.url(message_id, "stream"))
        )
        stateless = await stack.enter_async_context(
            client.stream("POST", "/api/agent/chat", json=body)
        )
        await until(lambda: _true(gated.entered == 2), "both wait for the model")
        assert (await client.post("/api/auth/logout")).status_code == 204

        events = stateless_frames(await _rest(stateless))
        assert events[-1] == ("error", {"message": STOPPED_SIGNED_OUT, "code": "CANCELLED"})
        # The answer goes on: it is stored, to be read after signing in again.
        assert await _has_run(world, message_id, "running")
        gated.gate.set()
        assert parse(await _rest(answer))[-1][1] == "message_complete"
    assert (await message_of(world, message_id)).status == "complete"


async def test_a_role_change_stops_nothing(world: World, live: Live, gated: GatedModel) -> None:
    chat = await new_chat(world, world.contributor)
    message_id = await chat.ask()
    async with live.clients["contributor"].stream("POST", chat.url(message_id, "stream")) as answer:
        await until(lambda: _true(gated.entered == 1), "the answer waits for the model")
        changed = await world.admin.client.patch(
            f"/api/users/{world.contributor.id}", json={"role": "viewer"}
        )
        assert changed.status_code == 200
        assert await _has_run(world, message_id, "running")
        gated.gate.set()
        assert parse(await _rest(answer))[-1][1] == "message_complete"
