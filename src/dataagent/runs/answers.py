"""The use cases behind the answer routes: claim and stream, replay, cancel.

Each takes the request's session for its checks and writes; the stream itself reads the
event log in sessions of its own (the route closes the request's before streaming).
"""

from __future__ import annotations

import uuid

from sqlalchemy.ext.asyncio import AsyncSession

from dataagent.errors import DataAgentError, ErrorCode, not_found
from dataagent.runs.chat import message_start
from dataagent.runs.event_log import encode
from dataagent.runs.system import RunSystem
from dataagent.services import llm
from dataagent.store import chats, runs
from dataagent.store.models import AgentRun


async def start_answer(
    system: RunSystem,
    session: AsyncSession,
    owner_id: uuid.UUID,
    chat_id: uuid.UUID,
    message_id: uuid.UUID,
    last_event_id: int | None = None,
) -> tuple[uuid.UUID, int]:
    """Claim the message and submit its run: (run id, seq to stream after).

    A client resuming its own stream (`Last-Event-ID`) of a message already claimed gets
    that run from after the id instead of a CONFLICT.
    """
    message = await chats.get_message(session, owner_id, chat_id, message_id)
    if last_event_id is not None:
        existing = await runs.run_of_message(session, message.id)
        if existing is not None:
            return existing.id, last_event_id
    # LLM_UNAVAILABLE (503) before anything starts when the chat's provider cannot answer
    # (with none configured, or in an offline chat, the answer needs no model).
    chat = await chats.get_chat(session, owner_id, chat_id)
    await llm.answering_mode(system.app, session, owner_id, chat.llm_provider, chat.agent_mode)
    run = await runs.claim_message(session, owner_id, chat_id, message_id, system.lease_s)
    # The first event goes in with the claim: a client has it before a worker starts.
    runs.add_first_event(session, run.id, "message_start", encode(message_start(run)))
    await session.commit()
    await system.runner.submit(run.id)
    return run.id, 0


async def chat_of_message(
    session: AsyncSession, owner_id: uuid.UUID, message_id: uuid.UUID, chat_id: uuid.UUID | None
) -> uuid.UUID:
    """The chat of one of the caller's messages: NOT_FOUND, with one sentence, for a missing
    message, another user's, and one of another chat than `chat_id`."""
    message = await runs.message_by_id(session, owner_id, message_id)
    if chat_id is not None and message.chat_id != chat_id:
        raise not_found("Message")
    return message.chat_id


async def answer_run(
    session: AsyncSession, owner_id: uuid.UUID, chat_id: uuid.UUID, message_id: uuid.UUID
) -> AgentRun:
    """The run answering one of the caller's messages; NOT_FOUND before it was claimed."""
    message = await chats.get_message(session, owner_id, chat_id, message_id)
    run = await runs.run_of_message(session, message.id)
    if run is None:
        raise DataAgentError(
            ErrorCode.NOT_FOUND, "This message has no answer run yet: start it with /stream."
        )
    return run


async def cancel_answer(
    system: RunSystem,
    session: AsyncSession,
    owner_id: uuid.UUID,
    chat_id: uuid.UUID,
    message_id: uuid.UUID,
) -> AgentRun:
    """Ask the message's run to stop (it ends failed, CANCELLED, keeping its partial text).

    Recorded in the database, so the worker holding it sees it in any process (at its next
    lease renewal); a run executing here is cancelled at once.
    """
    run = await answer_run(session, owner_id, chat_id, message_id)
    status = run.status
    if not await runs.request_cancel(session, run.id):
        await session.rollback()
        raise DataAgentError(ErrorCode.CONFLICT, f"This answer has already finished ({status}).")
    await session.commit()
    await system.runner.cancel(run.id)
    refreshed = await runs.get_run(session, run.id)
    assert refreshed is not None
    return refreshed
