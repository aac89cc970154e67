"""Chats and their messages: listing, ownership, the message pair, cascading deletes."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Generic, Literal, TypeVar

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from dataagent.errors import DataAgentError, ErrorCode
from dataagent.store import audit
from dataagent.store.models import DataChat, DataChatMessage
from dataagent.store.ontologies import get_owned_ontology
from dataagent.store.ownership import get_owned
from dataagent.store.types import utcnow

T = TypeVar("T")

SortBy = Literal["updatedAt", "createdAt", "name"]
SortOrder = Literal["asc", "desc"]

_SORT_COLUMNS = {
    "updatedAt": DataChat.updated_at,
    "createdAt": DataChat.created_at,
    "name": DataChat.name,
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


async def create_chat(
    session: AsyncSession,
    owner_id: uuid.UUID,
    name: str,
    ontology_id: uuid.UUID,
    llm_provider: str | None = None,
) -> DataChat:
    """Create a chat on one of the caller's ready ontologies, and commit."""
    ontology = await get_owned_ontology(session, owner_id, ontology_id)
    if ontology.status != "ready":
        raise DataAgentError(
            ErrorCode.VALIDATION_ERROR,
            f"The ontology is {ontology.status}, not ready; chats need a ready ontology.",
        )
    now = utcnow()
    chat = DataChat(
        name=name,
        ontology_id=ontology.id,
        owner_id=owner_id,
        llm_provider=llm_provider,
        created_at=now,
        updated_at=now,
    )
    session.add(chat)
    await session.flush()
    audit.record(session, owner_id, "chat.create", "data_chat", chat.id)
    await session.commit()
    return chat


_UNSET: object = object()


async def update_chat(
    session: AsyncSession,
    owner_id: uuid.UUID,
    chat_id: uuid.UUID,
    name: str | None = None,
    llm_provider: str | object | None = _UNSET,
) -> DataChat:
    """Rename a chat or change (or clear, with None) its LLM provider, and commit."""
    chat = await get_chat(session, owner_id, chat_id)
    if name is not None:
        chat.name = name
    if llm_provider is not _UNSET:
        chat.llm_provider = llm_provider  # type: ignore[assignment]
    chat.updated_at = utcnow()
    await session.commit()
    return chat


async def delete_chat(session: AsyncSession, owner_id: uuid.UUID, chat_id: uuid.UUID) -> None:
    """Delete a chat and (by cascade) its messages, with an audit event, in one commit."""
    chat = await get_chat(session, owner_id, chat_id)
    audit.record(session, owner_id, "chat.delete", "data_chat", chat.id, {"name": chat.name})
    await session.delete(chat)
    await session.commit()


async def list_messages(
    session: AsyncSession, owner_id: uuid.UUID, chat_id: uuid.UUID, page: int, page_size: int
) -> Page[DataChatMessage]:
    """One page of a chat's messages, oldest first."""
    chat = await get_chat(session, owner_id, chat_id)
    total = await count_messages(session, chat.id)
    rows = await session.scalars(
        select(DataChatMessage)
        .where(DataChatMessage.chat_id == chat.id)
        .order_by(DataChatMessage.created_at, DataChatMessage.seq)
        .offset((page - 1) * page_size)
        .limit(page_size)
    )
    return Page(list(rows), total, page, page_size)


async def send_message(
    session: AsyncSession, owner_id: uuid.UUID, chat_id: uuid.UUID, content: str
) -> tuple[DataChatMessage, DataChatMessage]:
    """Store the user's message and the assistant's `generating` placeholder in one commit."""
    chat = await get_chat(session, owner_id, chat_id)
    last_seq = await session.scalar(
        select(func.max(DataChatMessage.seq)).where(DataChatMessage.chat_id == chat.id)
    )
    seq = (last_seq if last_seq is not None else -1) + 1
    now = utcnow()
    question = DataChatMessage(
        chat_id=chat.id, role="user", content=content, status="complete", seq=seq, created_at=now
    )
    # The placeholder starts with empty metadata: claiming it atomically flips that to
    # {"claimed": true}, so a second stream request cannot start a second run.
    reply = DataChatMessage(
        chat_id=chat.id,
        role="assistant",
        content="",
        status="generating",
        metadata_={},
        seq=seq + 1,
        created_at=now,
    )
    session.add_all([question, reply])
    chat.updated_at = now
    await session.commit()
    return question, reply
