"""LLM traces (`llm_traces`): one row per model call, listed per message."""

from __future__ import annotations

import uuid
from collections.abc import Iterable

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from dataagent.errors import not_found
from dataagent.store.chats import get_chat
from dataagent.store.models import DataChatMessage, LlmTrace


def add_traces(session: AsyncSession, traces: Iterable[LlmTrace]) -> None:
    """Add trace rows to the session (committed with whatever the caller commits)."""
    session.add_all(list(traces))


async def list_for_message(
    session: AsyncSession, owner_id: uuid.UUID, chat_id: uuid.UUID, message_id: uuid.UUID
) -> list[LlmTrace]:
    """The traces of a message in one of the caller's chats, in call order.

    NOT_FOUND when the chat is not the caller's or the message is not in it.
    """
    chat = await get_chat(session, owner_id, chat_id)
    found = await session.scalar(
        select(DataChatMessage.id).where(
            DataChatMessage.id == message_id, DataChatMessage.chat_id == chat.id
        )
    )
    if found is None:
        raise not_found("Message")
    rows = await session.scalars(
        select(LlmTrace)
        .where(LlmTrace.message_id == message_id, LlmTrace.owner_id == owner_id)
        .order_by(LlmTrace.call_index, LlmTrace.started_at, LlmTrace.id)
    )
    return list(rows)
