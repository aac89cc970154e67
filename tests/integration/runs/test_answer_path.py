"""An answer's path through the code, with the real run and agent and a scripted model: it
ends in one transaction, reads its chat once, answers the question a regenerated message
names, and links the queries it asks for to its run."""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from langchain_core.messages import BaseMessage, HumanMessage
from sqlalchemy import event, select
from tests.fakes.scripted_model import Reply, ScriptedChatModel
from tests.integration.api.conftest import World, refuse_inserts
from tests.integration.runs.conftest import Chat, message_of, new_chat, run_of, stored_events

from dataagent.runs import answers
from dataagent.runs.chat import message_start
from dataagent.runs.event_log import encode
from dataagent.runs.system import RunSystem
from dataagent.semantic.plan import QueryPlan
from dataagent.services import queries
from dataagent.store import runs
from dataagent.store.models import DataChat, QueryRecord


def _echo(messages: list[BaseMessage]) -> Reply:
    """The model answers by quoting the question it was asked (the last human message)."""
    question = next(m for m in reversed(messages) if isinstance(m, HumanMessage))
    return Reply(text=f"You asked: {question.content}")


@contextmanager
def _scripted(world: World) -> Iterator[ScriptedChatModel]:
    model = ScriptedChatModel(default=_echo)
    world.context.chat_model_factory = lambda info: model
    try:
        yield model
    finally:
        world.context.chat_model_factory = None


async def _answer(world: World, system: RunSystem, chat: Chat, message_id: str) -> uuid.UUID:
    """Claim the message and run its answer to the end (no stream): its run's id."""
    async with world.database.session() as session:
        run_id, _ = await answers.start_answer(
            system, session, chat.account.id, uuid.UUID(chat.id), uuid.UUID(message_id)
        )
    await system.runner.wait(run_id)
    return run_id


async def test_an_answer_is_stored_with_its_last_event_or_not_at_all(
    world: World, system: RunSystem
) -> None:
    """The database refuses `message_complete`: the answer is not stored either (two
    commits, the message first, would leave it `complete` with no event saying so), and the
    run ends failed with the partial text kept."""
    chat = await new_chat(world, world.contributor)
    message_id = await chat.ask("How many customers?")
    await refuse_inserts(world.database, "run_events", "event", "message_complete")
    with _scripted(world):
        run_id = await _answer(world, system, chat, message_id)
    message = await message_of(world, message_id)
    assert message.status == "failed", message.status
    assert message.content == "You asked: How many customers?"  # the text streamed
    events = await stored_events(world, run_id)
    assert "message_complete" not in [e for _, e, _ in events]
    assert events[-1][1] == "message_error"
    assert json.loads(events[-1][2])["code"] == "INTERNAL_ERROR"
    run = await run_of(world, message_id)
    assert (run.status, run.error_code) == ("failed", "INTERNAL_ERROR")


async def test_a_successful_answer_ends_with_message_run_and_event_together(
    world: World, system: RunSystem
) -> None:
    chat = await new_chat(world, world.contributor)
    message_id = await chat.ask("How many customers?")
    with _scripted(world):
        run_id = await _answer(world, system, chat, message_id)
    message = await message_of(world, message_id)
    assert (message.status, message.content) == ("complete", "You asked: How many customers?")
    events = await stored_events(world, run_id)
    assert events[-1][1] == "message_complete"
    assert json.loads(events[-1][2])["content"] == message.content
    assert (await run_of(world, message_id)).status == "succeeded"


@contextmanager
def _transactions(world: World) -> Iterator[list[list[str]]]:
    """The committed transactions on the app database while the block runs: each one the
    statements it ran, with their parameters ("UPDATE agent_runs ... | (...)")."""
    committed: list[list[str]] = []
    running: dict[int, list[str]] = {}

    def before(conn: Any, cursor: Any, statement: str, parameters: Any, *args: Any) -> None:
        running.setdefault(id(conn), []).append(f"{statement} | {parameters!r}")

    def commit(conn: Any) -> None:
        committed.append(running.pop(id(conn), []))

    def rollback(conn: Any) -> None:
        running.pop(id(conn), None)

    engine = world.database.engine.sync_engine
    listeners = (("before_cursor_execute", before), ("commit", commit), ("rollback", rollback))
    for name, listener in listeners:
        event.listen(engine, name, listener)
    try:
        yield committed
    finally:
        for name, listener in listeners:
            event.remove(engine, name, listener)


async def test_the_end_of_an_answer_is_one_commit(world: World, system: RunSystem) -> None:
    """The message's completion, the `message_complete` event and the run's `succeeded` are
    written by one commit, and by no other: two commits would each show up here."""
    chat = await new_chat(world, world.contributor)
    message_id = await chat.ask("How many customers?")

    def writes(statements: list[str], table: str, value: str) -> bool:
        verb = "INSERT INTO" if table == "run_events" else "UPDATE"
        return any(f"{verb} {table}" in s and f"'{value}'" in s for s in statements)

    with _scripted(world), _transactions(world) as committed:
        await _answer(world, system, chat, message_id)
    assert (await message_of(world, message_id)).status == "complete"
    ends = [
        (
            writes(t, "data_chat_messages", "complete"),
            writes(t, "run_events", "message_complete"),
            writes(t, "agent_runs", "succeeded"),
        )
        for t in committed
    ]
    assert [e for e in ends if any(e)] == [(True, True, True)], ends


@contextmanager
def _chat_reads(world: World) -> Iterator[list[str]]:
    """The statements that read the `data_chats` table while the block runs."""
    seen: list[str] = []
    reads_chats = re.compile(r"\bFROM data_chats\b", re.IGNORECASE)

    def before(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        if statement.lstrip().upper().startswith("SELECT") and reads_chats.search(statement):
            seen.append(statement)

    engine = world.database.engine.sync_engine
    event.listen(engine, "before_cursor_execute", before)
    try:
        yield seen
    finally:
        event.remove(engine, "before_cursor_execute", before)


async def test_a_worker_reads_the_chat_once_per_answer(world: World, system: RunSystem) -> None:
    chat = await new_chat(world, world.contributor)  # named: naming it reads nothing more
    message_id = await chat.ask("How many customers?")
    async with world.database.session() as session:
        run = await runs.claim_message(
            session, chat.account.id, uuid.UUID(chat.id), uuid.UUID(message_id), system.lease_s
        )
        runs.add_first_event(session, run.id, "message_start", encode(message_start(run)))
        await session.commit()
    with _scripted(world), _chat_reads(world) as reads:
        await system.runner.submit(run.id)
        await system.runner.wait(run.id)
    assert (await message_of(world, message_id)).status == "complete"
    assert len(reads) == 1, reads


async def test_a_regenerated_answer_answers_its_own_question(
    world: World, system: RunSystem
) -> None:
    """Retry an older answer after a later question: the new answer is to the first question,
    with the conversation before it (not the later one) as its history."""
    chat = await new_chat(world, world.contributor)
    client = world.contributor.client
    first = await chat.ask("How many customers?")
    second = await chat.ask("Which cities?")
    with _scripted(world) as model:
        await _answer(world, system, chat, first)
        await _answer(world, system, chat, second)
        response = await client.post(chat.url(first, "regenerate"))
        assert response.status_code == 201, response.text
        again = response.json()["data"]["assistantMessage"]["id"]
        await _answer(world, system, chat, again)
    message = await message_of(world, again)
    assert (message.status, message.content) == ("complete", "You asked: How many customers?")
    # Its metadata still names the question and the answer it was regenerated from.
    assert message.metadata_ is not None
    assert message.metadata_["regeneratedFrom"] == first
    prompt = str(model.calls[-1][0].content)  # the system prompt of the last answer
    assert "Which cities?" not in prompt
    # The old answer stays as it was.
    assert (await message_of(world, first)).content == "You asked: How many customers?"


async def test_plan_queries_are_linked_to_the_run_that_asked(
    world: World, system: RunSystem
) -> None:
    chat = await new_chat(world, world.contributor)
    message_id = await chat.ask()
    with _scripted(world):
        run_id = await _answer(world, system, chat, message_id)
    async with world.database.session() as session:
        found = await session.get(DataChat, uuid.UUID(chat.id))
        assert found is not None
        plan = QueryPlan.model_validate(
            {
                "datasets": ["customers"],
                "measures": [{"field": "customers.id", "aggregation": "count", "alias": "n"}],
                "dimensions": [{"field": "customers.city", "alias": "city"}],
            }
        )
        compiled = await queries.compile_and_run(
            world.context,
            session,
            chat.account.id,
            found.ontology_id,
            plan,
            execute=True,
            run_id=run_id,
        )
        assert compiled.run is not None
        record = await session.scalar(
            select(QueryRecord).where(QueryRecord.id == compiled.run.record.id)
        )
    assert record is not None and record.mode == "plan"
    assert record.run_id == run_id
