"""Chats and their messages, and the context a question is answered in."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from sqlalchemy import update
from sqlalchemy.ext.asyncio import AsyncSession

from dataagent.errors import DataAgentError, ErrorCode, not_found
from dataagent.semantic.model import SemanticModel
from dataagent.services import llm
from dataagent.services.connections import QueryTarget, ontology_target
from dataagent.services.context import AppContext
from dataagent.services.ontologies import access_model, require_ready
from dataagent.store import audit, chats, shares
from dataagent.store.chats import ChatQuery, Page
from dataagent.store.models import DataChat, DataChatMessage, Ontology
from dataagent.store.shares import OntologyAccess
from dataagent.store.types import utcnow
from dataagent.vocabulary import AgentMode, ChatOntologyAccess, LlmProvider, MessageStatus

_UNSET: object = object()

# In a regenerated answer's metadata: the question it answers, and the answer it replaces.
QUESTION_KEY = "questionId"
REGENERATED_FROM_KEY = "regeneratedFrom"

STILL_GENERATING = "This answer is still being generated; wait for it to end or cancel it."


WITHDRAWN = (
    "This chat's ontology is no longer shared with you: you can read the chat, but not ask "
    "in it. Ask the ontology's owner to share it again."
)


@dataclass(frozen=True)
class ChatContext:
    """Everything a question in a chat is answered with, access checked at each step: the
    model is the one the asker may see (`ontologies.access_model`), the target runs under
    their database role."""

    chat: DataChat
    access: OntologyAccess
    model: SemanticModel
    target: QueryTarget

    @property
    def ontology(self) -> Ontology:
        """The chat's ontology."""
        return self.access.ontology


@dataclass(frozen=True)
class Conversation:
    """A chat loaded once to answer one of its messages: its context, its messages (oldest
    first), the answer being written and the question it answers."""

    context: ChatContext
    messages: list[DataChatMessage]
    answer: DataChatMessage
    question: DataChatMessage

    @property
    def chat(self) -> DataChat:
        """The chat."""
        return self.context.chat

    @property
    def earlier(self) -> list[DataChatMessage]:
        """The messages before the question: the conversation it was asked in."""
        return self.messages[: self.messages.index(self.question)]


async def load_chat_context(
    ctx: AppContext, session: AsyncSession, owner_id: uuid.UUID, chat_id: uuid.UUID
) -> ChatContext:
    """Chat -> ontology (ready) -> semantic model -> connection, all the caller's own."""
    chat = await chats.get_chat(session, owner_id, chat_id)
    return await _context_of(ctx, session, owner_id, chat)


async def _context_of(
    ctx: AppContext, session: AsyncSession, owner_id: uuid.UUID, chat: DataChat
) -> ChatContext:
    access = await chat_access(session, owner_id, chat)
    model = access_model(access)
    target = await ontology_target(ctx, session, access)
    return ChatContext(chat, access, model, target)


async def chat_access(session: AsyncSession, owner_id: uuid.UUID, chat: DataChat) -> OntologyAccess:
    """How the chat's owner reaches its ontology now; FORBIDDEN (with a sentence) when it is
    no longer shared with them: their chat stays readable, but nothing more is asked in it."""
    access = await shares.reach_or_none(session, owner_id, chat.ontology_id)
    if access is None:
        raise DataAgentError(ErrorCode.FORBIDDEN, WITHDRAWN)
    return access


async def chat_accesses(
    session: AsyncSession, owner_id: uuid.UUID, chats_: list[DataChat]
) -> dict[uuid.UUID, ChatOntologyAccess]:
    """How the caller reaches each chat's ontology: `owner`, `shared`, or `withdrawn`."""
    reached = await shares.kinds(session, owner_id, {c.ontology_id for c in chats_})
    return {c.id: reached.get(c.ontology_id, "withdrawn") for c in chats_}


async def load_conversation(
    ctx: AppContext,
    session: AsyncSession,
    owner_id: uuid.UUID,
    chat_id: uuid.UUID,
    message_id: uuid.UUID,
) -> Conversation:
    """What answering one of the caller's assistant messages needs, each part read once: the
    chat's context (as `load_chat_context`), its messages and the question answered.

    NOT_FOUND for a message that is not an assistant message of the chat; VALIDATION_ERROR
    when it answers no question.
    """
    chat, messages = await chats.get_chat_with_messages(session, owner_id, chat_id)
    context = await _context_of(ctx, session, owner_id, chat)
    answer = next((m for m in messages if m.id == message_id), None)
    if answer is None or answer.role != "assistant":
        raise not_found("Message")
    question = question_of(messages, answer)
    if question is None:
        raise DataAgentError(ErrorCode.VALIDATION_ERROR, "The message answers no question.")
    return Conversation(context, messages, answer, question)


def question_of(messages: list[DataChatMessage], answer: DataChatMessage) -> DataChatMessage | None:
    """The user message an assistant message answers: the one its metadata names (a
    regenerated answer, written after later messages), else the last one before it."""
    named = (answer.metadata_ or {}).get(QUESTION_KEY)
    if named is not None:
        return next((m for m in messages if str(m.id) == named and m.role == "user"), None)
    before = messages[: messages.index(answer)]
    return next((m for m in reversed(before) if m.role == "user"), None)


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


async def get_message(
    session: AsyncSession, owner_id: uuid.UUID, chat_id: uuid.UUID, message_id: uuid.UUID
) -> DataChatMessage:
    """One message of one of the caller's chats (NOT_FOUND for any other)."""
    return await chats.get_message(session, owner_id, chat_id, message_id)


async def count_messages(session: AsyncSession, chat_id: uuid.UUID) -> int:
    """How many messages a chat has."""
    return await chats.count_messages(session, chat_id)


async def create_chat(
    ctx: AppContext,
    session: AsyncSession,
    owner_id: uuid.UUID,
    name: str,
    ontology_id: uuid.UUID,
    llm_provider: LlmProvider | None = None,
    agent_mode: AgentMode | None = None,
) -> DataChat:
    """Start a chat on a ready ontology the caller reaches (theirs or shared with them), and
    commit; a provider named must be enabled (`llm.require_enabled`). It answers in
    `agent_mode`, else the setting `agent_default_mode`."""
    if llm_provider is not None:
        llm.require_enabled(ctx, llm_provider)
    ontology = (await shares.reach(session, owner_id, ontology_id)).ontology
    require_ready(ontology)
    now = utcnow()
    chat = DataChat(
        name=name,
        ontology_id=ontology.id,
        owner_id=owner_id,
        llm_provider=llm_provider,
        agent_mode=agent_mode or ctx.settings.agent_default_mode,
        created_at=now,
        updated_at=now,
    )
    session.add(chat)
    await session.flush()
    audit.record(session, owner_id, "chat.create", "data_chat", chat.id)
    await session.commit()
    return chat


async def update_chat(
    ctx: AppContext,
    session: AsyncSession,
    owner_id: uuid.UUID,
    chat_id: uuid.UUID,
    name: str | None = None,
    llm_provider: LlmProvider | object | None = _UNSET,
    agent_mode: AgentMode | None = None,
) -> DataChat:
    """Rename a chat, change (or clear, with None) its LLM provider or change its answer
    mode, and commit; a provider named must be enabled (`llm.require_enabled`)."""
    chat = await chats.get_chat(session, owner_id, chat_id)
    if llm_provider is not _UNSET and llm_provider is not None:
        llm.require_enabled(ctx, cast(LlmProvider, llm_provider))
    if name is not None:
        chat.name = name
    if llm_provider is not _UNSET:
        chat.llm_provider = llm_provider  # type: ignore[assignment]
    if agent_mode is not None:
        chat.agent_mode = agent_mode
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
    ctx: AppContext, session: AsyncSession, owner_id: uuid.UUID, chat_id: uuid.UUID, content: str
) -> tuple[DataChatMessage, DataChatMessage]:
    """Store the user's message and the assistant's `generating` placeholder in one commit.

    LLM_UNAVAILABLE (503), storing nothing, when the chat names a provider that is not
    enabled: a placeholder no run can ever claim would only wait to be failed. With no
    provider at all, or in an `offline` chat, the answer comes from the offline planner.
    FORBIDDEN when the chat's ontology is no longer shared with the caller (`chat_access`).
    """
    chat = await chats.get_chat(session, owner_id, chat_id)
    await chat_access(session, owner_id, chat)
    await llm.answering_mode(ctx, session, owner_id, chat.llm_provider, chat.agent_mode)
    seq = await chats.next_seq(session, chat.id)
    now = utcnow()
    question = DataChatMessage(
        chat_id=chat.id, role="user", content=content, status="complete", seq=seq, created_at=now
    )
    reply = _placeholder(chat, seq + 1, now, {})
    session.add_all([question, reply])
    chat.updated_at = now
    await session.commit()
    return question, reply


async def regenerate_message(
    ctx: AppContext,
    session: AsyncSession,
    owner_id: uuid.UUID,
    chat_id: uuid.UUID,
    message_id: uuid.UUID,
) -> tuple[DataChatMessage, DataChatMessage]:
    """Ask the question of a finished or failed answer again: a new `generating` placeholder
    for it at the end of the chat (the old answer stays), committed; (question, placeholder).

    NOT_FOUND for a message not in the caller's chat; CONFLICT for a user message or an
    answer still generating; LLM_UNAVAILABLE (503) as `send_message`.
    """
    chat, messages = await chats.get_chat_with_messages(session, owner_id, chat_id)
    answer = next((m for m in messages if m.id == message_id), None)
    if answer is None:
        raise not_found("Message")
    if answer.role != "assistant":
        raise DataAgentError(ErrorCode.CONFLICT, "Only an assistant message can be regenerated.")
    if answer.status == "generating":
        raise DataAgentError(ErrorCode.CONFLICT, STILL_GENERATING)
    question = question_of(messages, answer)
    if question is None:
        raise DataAgentError(ErrorCode.CONFLICT, "The message answers no question.")
    await chat_access(session, owner_id, chat)
    await llm.answering_mode(ctx, session, owner_id, chat.llm_provider, chat.agent_mode)
    now = utcnow()
    metadata = {QUESTION_KEY: str(question.id), REGENERATED_FROM_KEY: str(answer.id)}
    reply = _placeholder(chat, await chats.next_seq(session, chat.id), now, metadata)
    session.add(reply)
    chat.updated_at = now
    await session.commit()
    return question, reply


def _placeholder(
    chat: DataChat, seq: int, now: datetime, metadata: dict[str, Any]
) -> DataChatMessage:
    """An assistant message waiting for its answer; a stream request claims it (a run)."""
    return DataChatMessage(
        chat_id=chat.id,
        role="assistant",
        content="",
        status="generating",
        metadata_=metadata,
        seq=seq,
        created_at=now,
    )


# --- answering: finishing a message, the history summary, naming -------------------------------

# What a chat created without a name is called until its first question names it.
DEFAULT_CHAT_NAME = "New chat"


def is_unnamed(name: str | None) -> bool:
    """True for a chat that has no name of its own (empty, or the default placeholder)."""
    return not name or not name.strip() or name.strip().lower() == DEFAULT_CHAT_NAME.lower()


async def complete_message(
    session: AsyncSession,
    message_id: uuid.UUID,
    content: str,
    metadata: dict[str, Any],
    status: MessageStatus = "complete",
) -> DataChatMessage | None:
    """Store an answer in the caller's transaction (not committed: a run commits it with its
    end, docs/runs.md): its status (`complete`, or `clarification_needed` when the agent asks
    before answering), content, metadata merged in.

    A message already finished (complete or failed) is left as it is; None when it is gone.
    """
    message = await session.get(DataChatMessage, message_id, populate_existing=True)
    if message is None or message.status != "generating":
        return message
    message.content = content
    message.metadata_ = {**(message.metadata_ or {}), **metadata}
    message.status = status
    await _touch_chat(session, message.chat_id)
    await session.flush()
    return message


async def _touch_chat(session: AsyncSession, chat_id: uuid.UUID) -> None:
    # An UPDATE, not a read and a write: the answer's chat was read once, by its run.
    await session.execute(
        update(DataChat)
        .where(DataChat.id == chat_id)
        .values(updated_at=utcnow())
        .execution_options(synchronize_session=False)
    )


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
