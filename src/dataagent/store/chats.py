"""Chats and their messages: owner-scoped reads, listing and paging."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Generic, Literal, TypeVar

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from dataagent.errors import not_found
from dataagent.store.models import DataChat, DataChatMessage
from dataagent.store.ownership import get_owned

T = TypeVar("T")

SortBy = Literal["updatedAt", "createdAt", "name"]
SortOrder = Literal["asc", "desc"]

# Names sort as people read them, whatever their case ("alpha" before "Sales"), on every app
# database: lower() is the same on SQLite and PostgreSQL, where collations differ.
_SORT_COLUMNS = {
    "updatedAt": DataChat.updated_at,
    "createdAt": DataChat.created_at,
    "name": func.lower(DataChat.name),
}


@dataclass(frozen=True)
class ChatQuery:
    """Filters, sort and page of a chat listing."""

    page: int = 1
    page_size: int = 20
    search: str | None = None
    ontology_id: uuid.UUID | None = None
    sort_by: SortBy = "updatedAt"
    sort_order: SortOrder = "desc"


@dataclass(frozen=True)
class Page(Generic[T]):
    """One page of results and the numbers a pager needs."""

    items: list[T]
    total: int
    page: int
    page_size: int


async def list_chats(
    session: AsyncSession, owner_id: uuid.UUID, query: ChatQuery
) -> Page[tuple[DataChat, int]]:
    """The caller's chats with their message counts, filtered, sorted and paged."""
    conditions = [DataChat.owner_id == owner_id]
    if query.search:
        conditions.append(func.lower(DataChat.name).contains(query.search.lower(), autoescape=True))
    if query.ontology_id is not None:
        conditions.append(DataChat.ontology_id == query.ontology_id)

    total = await session.scalar(select(func.count()).select_from(DataChat).where(*conditions))
    counts = (
        select(DataChatMessage.chat_id, func.count().label("n"))
        .group_by(DataChatMessage.chat_id)
        .subquery()
    )
    column = _SORT_COLUMNS[query.sort_by]
    order = column.asc() if query.sort_order == "asc" else column.desc()
    rows = await session.execute(
        select(DataChat, func.coalesce(counts.c.n, 0))
        .outerjoin(counts, counts.c.chat_id == DataChat.id)
        .where(*conditions)
        .order_by(order, DataChat.id)
        .offset((query.page - 1) * query.page_size)
        .limit(query.page_size)
    )
    items = [(chat, int(count)) for chat, count in rows.all()]
    return Page(items, total or 0, query.page, query.page_size)


async def get_chat(session: AsyncSession, owner_id: uuid.UUID, chat_id: uuid.UUID) -> DataChat:
    """The caller's chat, or NOT_FOUND (also when someone else owns it)."""
    return await get_owned(session, DataChat, owner_id, chat_id, "Chat")


async def get_message(
    session: AsyncSession, owner_id: uuid.UUID, chat_id: uuid.UUID, message_id: uuid.UUID
) -> DataChatMessage:
    """A message of one of the caller's chats, read afresh; NOT_FOUND (one sentence) for a
    missing one, someone else's, or one of another chat."""
    chat = await get_chat(session, owner_id, chat_id)
    message = await session.get(DataChatMessage, message_id, populate_existing=True)
    if message is None or message.chat_id != chat.id:
        raise not_found("Message")
    return message


async def get_chat_with_messages(
    session: AsyncSession, owner_id: uuid.UUID, chat_id: uuid.UUID
) -> tuple[DataChat, list[DataChatMessage]]:
    """The caller's chat and all its messages in order."""
    chat = await get_chat(session, owner_id, chat_id)
    messages = await session.scalars(
        select(DataChatMessage)
        .where(DataChatMessage.chat_id == chat.id)
        .order_by(DataChatMessage.created_at, DataChatMessage.seq)
    )
    return chat, list(messages)


async def count_messages(session: AsyncSession, chat_id: uuid.UUID) -> int:
    """How many messages a chat has."""
    n = await session.scalar(
        select(func.count()).select_from(DataChatMessage).where(DataChatMessage.chat_id == chat_id)
    )
    return n or 0


async def list_messages(
    session: AsyncSession, chat: DataChat, page: int, page_size: int
) -> Page[DataChatMessage]:
    """One page of a chat's messages, oldest first."""
    total = await count_messages(session, chat.id)
    rows = await session.scalars(
        select(DataChatMessage)
        .where(DataChatMessage.chat_id == chat.id)
        .order_by(DataChatMessage.created_at, DataChatMessage.seq)
        .offset((page - 1) * page_size)
        .limit(page_size)
    )
    return Page(list(rows), total, page, page_size)


async def next_seq(session: AsyncSession, chat_id: uuid.UUID) -> int:
    """The sequence number the chat's next message takes."""
    last = await session.scalar(
        select(func.max(DataChatMessage.seq)).where(DataChatMessage.chat_id == chat_id)
    )
    return (last if last is not None else -1) + 1
