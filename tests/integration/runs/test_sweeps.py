"""The periodic sweep beside the reaper's: answers nobody asked for are failed (NOT_STARTED)
once the claim timeout has passed, and the charts of no message are deleted once their
retention has passed; never anything younger, never a claimed answer."""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator
from datetime import timedelta

import pytest
from sqlalchemy import select, update
from tests.integration.api.conftest import World
from tests.integration.runs.conftest import (
    Scripted,
    message_of,
    new_chat,
    parse,
    run_of,
    stored_events,
    until,
)

from dataagent.runs import answers
from dataagent.runs.system import RunSystem
from dataagent.services import charts
from dataagent.store import runs
from dataagent.store.models import Chart, DataChatMessage
from dataagent.store.types import utcnow

PNG = b"\x89PNG\r\n\x1a\n" + bytes(16)


async def _age(world: World, message_id: str, seconds: float) -> None:
    """Make an answer placeholder and its question look `seconds` old."""
    async with world.database.session() as session:
        message = await session.get(DataChatMessage, uuid.UUID(message_id))
        assert message is not None
        await session.execute(
            update(DataChatMessage)
            .where(
                DataChatMessage.chat_id == message.chat_id,
                DataChatMessage.seq.in_((message.seq - 1, message.seq)),
            )
            .values(created_at=utcnow() - timedelta(seconds=seconds))
        )
        await session.commit()


@pytest.fixture
async def swept(system: RunSystem) -> AsyncIterator[RunSystem]:
    """The run system, whose reaper starts (its first sweep) when the test calls `start`."""
    yield system
    await system.reaper.stop()


async def test_an_answer_nobody_asked_for_fails_after_the_claim_timeout(
    world: World, swept: RunSystem
) -> None:
    chat = await new_chat(world, world.contributor)
    forgotten, waiting = await chat.ask("How many customers?"), await chat.ask("Which cities?")
    await _age(world, forgotten, 601)  # past the default timeout of 600 s
    await _age(world, waiting, 590)

    await swept.reaper.start()

    message = await message_of(world, forgotten)
    assert (message.status, message.content) == ("failed", "")
    assert message.metadata_ is not None
    error = message.metadata_["error"]
    assert error["code"] == "NOT_STARTED"
    assert error["message"] == (
        "This answer was never started: nothing asked for it within 10 minutes of the "
        "question. Retry it, or ask again."
    )
    # It has a run now, failed from the outset, whose log says so to anyone reading it.
    run = await run_of(world, forgotten)
    assert (run.status, run.error_code) == ("failed", "NOT_STARTED")
    replay = await world.contributor.client.get(chat.url(forgotten, "events"))
    assert replay.status_code == 200
    ((seq, event, data),) = parse(replay.content)
    assert (seq, event) == (1, "message_error")
    assert json.loads(data) == {
        "messageId": forgotten,
        "message": error["message"],
        "code": "NOT_STARTED",
        "partialContent": "",
    }
    # Younger than the timeout: left alone, and still answerable.
    assert (await message_of(world, waiting)).status == "generating"
    assert await swept.reaper.fail_unclaimed() == 0  # once
    # Never answered now: a stream is refused; it can be asked again.
    late = await world.contributor.client.post(chat.url(forgotten, "stream"))
    assert late.status_code == 409
    assert late.json()["error"]["message"] == "This message is already failed."
    retried = await world.contributor.client.post(chat.url(forgotten, "regenerate"))
    assert retried.status_code == 201, retried.text


@pytest.mark.parametrize("run_overrides", [{"answer_claim_timeout_s": 90}])
async def test_the_claim_timeout_is_a_setting(world: World, swept: RunSystem) -> None:
    chat = await new_chat(world, world.contributor)
    message_id = await chat.ask()
    await _age(world, message_id, 91)
    assert await swept.reaper.fail_unclaimed() == 1
    message = await message_of(world, message_id)
    assert message.metadata_ is not None
    assert "within 90 seconds of the question" in message.metadata_["error"]["message"]


async def test_an_answer_a_stream_claimed_is_never_failed_by_the_sweep(
    world: World, swept: RunSystem, scripted: Scripted
) -> None:
    """Of a stream request and the sweep, whichever claims the message first wins: both
    insert its run, and `agent_runs.message_id` is unique."""
    chat = await new_chat(world, world.contributor)
    message_id = await chat.ask()
    await _age(world, message_id, 3600)
    async with world.database.session() as session:
        # The sweep found it unclaimed ...
        (candidate,) = await runs.unclaimed_answers(session, utcnow())
        # ... and a stream request claims it before the sweep acts.
        run_id, _ = await answers.start_answer(
            swept, session, world.contributor.id, uuid.UUID(chat.id), uuid.UUID(message_id)
        )
    assert not await swept.reaper._fail_unclaimed(*candidate)
    assert await swept.reaper.fail_unclaimed() == 0
    scripted.gate.set()
    await swept.runner.wait(run_id)
    assert (await message_of(world, message_id)).status == "complete"
    events = [event for _, event, _ in await stored_events(world, run_id)]
    assert events[0] == "message_start" and events[-1] == "message_complete"
    assert "message_error" not in events


async def _chart(world: World, message_id: uuid.UUID | None, age: timedelta) -> uuid.UUID:
    async with world.database.session() as session:
        chart = await charts.save_image(session, world.contributor.id, message_id, PNG, "c")
        chart.created_at = utcnow() - age
        await session.commit()
        return chart.id


async def _charts_left(world: World) -> set[uuid.UUID]:
    async with world.database.session() as session:
        return set(await session.scalars(select(Chart.id)))


@pytest.mark.parametrize("run_overrides", [{"run_lease_s": 0.2}])  # a sweep every 0.1 s
async def test_charts_of_no_message_are_deleted_after_their_retention(
    world: World, swept: RunSystem
) -> None:
    chat = await new_chat(world, world.contributor)
    message_id = uuid.UUID(await chat.ask())
    day = timedelta(hours=24)
    expired = await _chart(world, None, day + timedelta(minutes=1))  # a stateless chat's
    fresh = await _chart(world, None, day - timedelta(minutes=1))
    answers_chart = await _chart(world, message_id, 10 * day)  # goes with its message only

    await swept.reaper.start()
    assert await _charts_left(world) == {fresh, answers_chart}

    # And periodically after: one that expires later is gone at a later sweep.
    later = await _chart(world, None, day + timedelta(seconds=1))

    async def gone() -> bool:
        return later not in await _charts_left(world)

    await until(gone, "the periodic sweep deletes the expired chart")
    assert await _charts_left(world) == {fresh, answers_chart}
    client = world.contributor.client
    assert (await client.get(f"/api/charts/{expired}")).status_code == 404
    assert (await client.get(f"/api/charts/{fresh}")).status_code == 200


@pytest.mark.parametrize("run_overrides", [{"chart_retention_hours": 1}])
async def test_the_chart_retention_is_a_setting(world: World, swept: RunSystem) -> None:
    kept = await _chart(world, None, timedelta(minutes=59))
    await _chart(world, None, timedelta(minutes=61))
    assert await swept.reaper.delete_expired_charts() == 1
    assert await _charts_left(world) == {kept}
