"""Seed 002's stateless chat as Server-Sent Events: no message, no log, nothing to resume.

The answer streams while the client listens: a client that goes away stops it. Its model
calls are kept as traces of the caller (no message, no run).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import AsyncIterator, Sequence
from typing import Any, Final

from dataagent.agent.events import STATELESS_EVENTS
from dataagent.agent.stateless import chat_stream, check_messages
from dataagent.errors import DataAgentError
from dataagent.runs.events import encode
from dataagent.runs.sse import HEADERS, HEARTBEAT, EventStream
from dataagent.services import llm, ontologies
from dataagent.services.context import AppContext

log = logging.getLogger(__name__)

_END: Final = object()


def frame(event: str, data: dict[str, Any]) -> bytes:
    """One SSE frame without an id (a stateless stream cannot be resumed)."""
    return f"event: {event}\ndata: {encode(data)}\n\n".encode()


async def start_chat(
    ctx: AppContext,
    owner_id: uuid.UUID,
    ontology_id: uuid.UUID,
    messages: Sequence[dict[str, Any]],
) -> EventStream:
    """Check everything that can be checked before the first byte (the model is configured,
    the messages are well formed, the ontology is the caller's and ready), then stream."""
    llm.require_provider(ctx)
    check_messages(messages)
    async with ctx.database.session() as session:
        ontology = await ontologies.get_ontology(session, owner_id, ontology_id)
        ontologies.require_ready(ontology)
    body = _frames(ctx, owner_id, ontology_id, list(messages))
    return EventStream(body, headers=HEADERS)


async def _frames(
    ctx: AppContext,
    owner_id: uuid.UUID,
    ontology_id: uuid.UUID,
    messages: list[dict[str, Any]],
) -> AsyncIterator[bytes]:
    queue: asyncio.Queue[Any] = asyncio.Queue()

    async def emit(event: str, data: dict[str, Any]) -> None:
        if event not in STATELESS_EVENTS:
            raise ValueError(f"{event!r} is not a documented stateless event (docs/events.md)")
        await queue.put(frame(event, data))

    async def answer() -> None:
        try:
            async with ctx.database.session() as session:
                client = await llm.chat_client(ctx, session, owner_id, None)
        except DataAgentError as exc:  # the model went away since the request was checked
            await emit("error", {"message": exc.message, "code": exc.code.value})
            return
        try:
            # Reports its own failures as `error` events.
            await chat_stream(ctx, owner_id, ontology_id, messages, client, emit)
        finally:
            async with ctx.database.session() as session:
                await llm.save_traces(session, owner_id, client.calls, run_id=None, message_id=None)
                await session.commit()

    async def answered() -> None:
        try:
            await answer()
        except Exception:
            log.exception("stateless chat failed")
        finally:
            await queue.put(_END)

    task = asyncio.create_task(answered(), name="stateless-chat")
    heartbeat_s = ctx.settings.run_heartbeat_s
    try:
        while True:
            try:
                item = await asyncio.wait_for(queue.get(), timeout=heartbeat_s)
            except TimeoutError:
                yield HEARTBEAT
                continue
            if item is _END:
                return
            yield item
    finally:
        # The client went away (or the answer ended): nothing runs on without a listener.
        if not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
