"""Chats and their messages, and the context a question is answered in."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from dataagent.semantic.model import SemanticModel
from dataagent.services.connections import QueryTarget, ontology_target
from dataagent.services.context import AppContext
from dataagent.services.ontologies import ready_model, require_ready
from dataagent.store import audit, chats, ontologies
from dataagent.store.chats import ChatQuery, Page
from dataagent.store.models import DataChat, DataChatMessage, Ontology
from dataagent.store.types import utcnow
from dataagent.vocabulary import LlmProvider

_UNSET: object = object()


@dataclass(frozen=True)
class ChatContext:
    """Everything a question in a chat is answered with, ownership checked at each step."""

    chat: DataChat
    ontology: Ontology
    model: SemanticModel
    target: QueryTarget


async def load_chat_context(
    ctx: AppContext, session: AsyncSession, owner_id: uuid.UUID, chat_id: uuid.UUID
) -> ChatContext:
    """Chat -> ontology (ready) -> semantic model -> connection, all the caller's own."""
    chat = await chats.get_chat(session, owner_id, chat_id)
    ontology = await ontologies.get_owned_ontology(session, owner_id, chat.ontology_id)
    model = ready_model(ontology)
    target = await ontology_target(ctx, session, owner_id, ontology)
    return ChatContext(chat, ontology, model, target)


async def list_chats(
    session: AsyncSession, owner_id: uuid.UUID, query: ChatQuery
) -> Page[tuple[DataChat, int]]:
    """The caller's chats with their message counts, filtered, sorted and paged."""
    return await chats.list_chats(session, owner_id, query)


async def get_chat_with_messages(
    session: AsyncSession, owner_id: uuid.UUID, chat_id: uuid.UUID
) -> tuple[DataChat, list[DataChatMessage]]:
    """One of the caller's chats and all its messages, oldest first."""
    return await chats.get_chat_with_messages(session, owner_id, chat_id)


async def count_messages(session: AsyncSession, chat_id: uuid.UUID) -> int:
    """How many messages a chat has."""
    return await chats.count_messages(session, chat_id)


async def create_chat(
    session: AsyncSession,
    owner_id: uuid.UUID,
    name: str,
    ontology_id: uuid.UUID,
    llm_provider: LlmProvider | None = None,
) -> DataChat:
    """Start a chat on one of the caller's ready ontologies, and commit."""
    ontology = await ontologies.get_owned_ontology(session, owner_id, ontology_id)
    require_ready(ontology)
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


async def update_chat(
    session: AsyncSession,
    owner_id: uuid.UUID,
    chat_id: uuid.UUID,
    name: str | None = None,
    llm_provider: LlmProvider | object | None = _UNSET,
) -> DataChat:
    """Rename a chat or change (or clear, with None) its LLM provider, and commit."""
    chat = await chats.get_chat(session, owner_id, chat_id)
    if name is not None:
        chat.name = name
    if llm_provider is not _UNSET:
        chat.llm_provider = llm_provider  # type: ignore[assignment]
    chat.updated_at = utcnow()
    await session.commit()
    return chat


async def delete_chat(session: AsyncSession, owner_id: uuid.UUID, chat_id: uuid.UUID) -> None:
    """Delete a chat and (by cascade) its messages, with an audit event, in one commit."""
    chat = await chats.get_chat(session, owner_id, chat_id)
    audit.record(session, owner_id, "chat.delete", "data_chat", chat.id, {"name": chat.name})
    await session.delete(chat)
    await session.commit()


async def list_messages(
    session: AsyncSession, owner_id: uuid.UUID, chat_id: uuid.UUID, page: int, page_size: int
) -> Page[DataChatMessage]:
    """One page of one of the caller's chats' messages, oldest first."""
    chat = await chats.get_chat(session, owner_id, chat_id)
    return await chats.list_messages(session, chat, page, page_size)


async def send_message(
    session: AsyncSession, owner_id: uuid.UUID, chat_id: uuid.UUID, content: str
) -> tuple[DataChatMessage, DataChatMessage]:
    """Store the user's message and the assistant's `generating` placeholder in one commit."""
    chat = await chats.get_chat(session, owner_id, chat_id)
    seq = await chats.next_seq(session, chat.id)
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


# --- answering: finishing a message, the history summary, naming -------------------------------

# What a chat created without a name is called until its first question names it.
DEFAULT_CHAT_NAME = "New chat"


def is_unnamed(name: str | None) -> bool:
    """True for a chat that has no name of its own (empty, or the default placeholder)."""
    return not name or not name.strip() or name.strip().lower() == DEFAULT_CHAT_NAME.lower()


async def complete_message(
    session: AsyncSession, message_id: uuid.UUID, content: str, metadata: dict[str, Any]
) -> DataChatMessage | None:
    """Store an answer: status complete, content, metadata merged in; commit.

    A message already finished (complete or failed) is left as it is; None when it is gone.
    """
    message = await session.get(DataChatMessage, message_id)
    if message is None or message.status != "generating":
        return message
    message.content = content
    message.metadata_ = {**(message.metadata_ or {}), **metadata}
    message.status = "complete"
    await _touch_chat(session, message.chat_id)
    await session.commit()
    return message


async def _touch_chat(session: AsyncSession, chat_id: uuid.UUID) -> None:
    chat = await session.get(DataChat, chat_id)
    if chat is not None:
        chat.updated_at = utcnow()


async def save_history_summary(
    session: AsyncSession, chat_id: uuid.UUID, summary: str, through_seq: int
) -> None:
    """Keep the summary of a chat's history up to message `through_seq`; commit.

    An older summary never replaces a newer one (two answers summarising at once).
    """
    chat = await session.get(DataChat, chat_id)
    if chat is None:
        return
    if chat.summary_through_seq is not None and chat.summary_through_seq > through_seq:
        return
    chat.history_summary = summary
    chat.summary_through_seq = through_seq
    await session.commit()


async def name_unnamed_chat(session: AsyncSession, chat_id: uuid.UUID, name: str) -> bool:
    """Give a chat that has no name this one, and commit; False when it already has one."""
    chat = await session.get(DataChat, chat_id)
    if chat is None or not is_unnamed(chat.name) or not name.strip():
        return False
    chat.name = name
    await session.commit()
    return True
