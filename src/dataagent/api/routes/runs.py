"""Answer runs under /api/data-agent: claim and stream, replay, cancel (docs/runs.md).

The streaming routes close the request's database session before the first byte: a
stream may last minutes, and reads the event log in short sessions of its own.
"""

from __future__ import annotations

import uuid

from fastapi import APIRouter
from sqlalchemy.ext.asyncio import AsyncSession

from dataagent.api.deps import (
    DataAgentReader,
    DataAgentWriter,
    LastEventId,
    ResumeAfter,
    RunsDep,
    SessionDep,
)
from dataagent.api.schemas import ERROR_RESPONSES, Envelope, json_errors
from dataagent.api.schemas.runs import (
    CANCEL_RESPONSES,
    CLAIM_RESPONSES,
    REPLAY_RESPONSES,
    RunPublic,
    StreamRequest,
    run_public,
)
from dataagent.runs import answers
from dataagent.runs.sse import EventStream, event_stream
from dataagent.runs.system import RunSystem
from dataagent.store.models import User

router = APIRouter(
    prefix="/api/data-agent", tags=["data-agent"], responses=json_errors(ERROR_RESPONSES)
)


async def _answer_stream(
    system: RunSystem,
    session: AsyncSession,
    user: User,
    chat_id: uuid.UUID,
    message_id: uuid.UUID,
    last_event_id: int | None,
) -> EventStream:
    """Claim and start the answer (or resume it), release the session, stream its events."""
    run_id, after = await answers.start_answer(
        system, session, user.id, chat_id, message_id, last_event_id
    )
    await session.close()
    return event_stream(system.events, run_id, after, system.heartbeat_s)


@router.post(
    "/chats/{chat_id}/messages/{message_id}/stream",
    operation_id="streamMessage",
    response_class=EventStream,
    responses=CLAIM_RESPONSES,
)
async def stream_message(
    user: DataAgentWriter,
    session: SessionDep,
    system: RunsDep,
    chat_id: uuid.UUID,
    message_id: uuid.UUID,
    last_event_id: LastEventId = None,
) -> EventStream:
    """Claim the assistant message, start answering it, and stream the run's events.

    The answer runs on without the connection; resume with `Last-Event-ID` (here, or on
    `.../events`). A second claim of the same message is a 409.
    """
    return await _answer_stream(system, session, user, chat_id, message_id, last_event_id)


@router.post(
    "/stream/{message_id}",
    operation_id="streamMessageById",
    response_class=EventStream,
    responses=CLAIM_RESPONSES,
)
async def stream_message_by_id(
    user: DataAgentWriter,
    session: SessionDep,
    system: RunsDep,
    message_id: uuid.UUID,
    body: StreamRequest | None = None,
    last_event_id: LastEventId = None,
) -> EventStream:
    """Seed 001's form of `.../messages/{messageId}/stream`: the chat is the message's."""
    chat_id = await answers.chat_of_message(
        session, user.id, message_id, body.chat_id if body else None
    )
    return await _answer_stream(system, session, user, chat_id, message_id, last_event_id)


@router.get(
    "/chats/{chat_id}/messages/{message_id}/events",
    operation_id="streamMessageEvents",
    response_class=EventStream,
    responses=REPLAY_RESPONSES,
)
async def message_events(
    user: DataAgentReader,
    session: SessionDep,
    system: RunsDep,
    chat_id: uuid.UUID,
    message_id: uuid.UUID,
    after: ResumeAfter,
) -> EventStream:
    """Replay the answer's events after `Last-Event-ID` (or `after`), then follow it live
    until it ends. A finished answer is replayed, never run again."""
    run = await answers.answer_run(session, user.id, chat_id, message_id)
    await session.close()
    return event_stream(system.events, run.id, after, system.heartbeat_s)


@router.post(
    "/chats/{chat_id}/messages/{message_id}/cancel",
    status_code=202,
    operation_id="cancelMessage",
    responses=CANCEL_RESPONSES,
)
async def cancel_message(
    user: DataAgentWriter,
    session: SessionDep,
    system: RunsDep,
    chat_id: uuid.UUID,
    message_id: uuid.UUID,
) -> Envelope[RunPublic]:
    """Stop the answer: it ends failed (CANCELLED) and the message keeps its partial text."""
    run = await answers.cancel_answer(system, session, user.id, chat_id, message_id)
    return Envelope(data=run_public(run))
