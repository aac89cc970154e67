"""Chats and messages under /api/data-agent, as seeds 000 and 001 describe."""

from __future__ import annotations

import uuid
from typing import Annotated, Any

from fastapi import APIRouter, Query, Response

from dataagent.api.deps import (
    ContextDep,
    DataAgentDeleter,
    DataAgentReader,
    DataAgentWriter,
    SessionDep,
)
from dataagent.api.schemas import ERROR_RESPONSES, NO_NUL, Envelope, PageOf, page_of
from dataagent.api.schemas.chats import (
    ANSWERABLE_RESPONSES,
    PROVIDER_CHOICE_RESPONSES,
    REGENERATE_RESPONSES,
    ChatCreate,
    ChatPublic,
    ChatUpdate,
    ChatWithMessages,
    MessageCreate,
    MessagePair,
    MessagePublic,
    chat_public,
    message_pair,
    message_public,
)
from dataagent.errors import DataAgentError, ErrorCode
from dataagent.services import chats
from dataagent.store.chats import ChatQuery, SortBy, SortOrder

router = APIRouter(prefix="/api/data-agent", tags=["data-agent"], responses=ERROR_RESPONSES)


PageParam = Annotated[int, Query(ge=1, le=1_000_000)]
PageSizeParam = Annotated[int, Query(alias="pageSize", ge=1, le=100)]


@router.get("/chats", operation_id="listChats")
async def list_chats(
    user: DataAgentReader,
    session: SessionDep,
    page: PageParam = 1,
    page_size: PageSizeParam = 20,
    search: Annotated[str | None, Query(max_length=255, pattern=NO_NUL)] = None,
    ontology_id: Annotated[uuid.UUID | None, Query(alias="ontologyId")] = None,
    sort_by: Annotated[SortBy, Query(alias="sortBy")] = "updatedAt",
    sort_order: Annotated[SortOrder, Query(alias="sortOrder")] = "desc",
) -> Envelope[PageOf[ChatPublic]]:
    """The caller's chats, with message counts."""
    query = ChatQuery(page, page_size, search or None, ontology_id, sort_by, sort_order)
    result = await chats.list_chats(session, user.id, query)
    reached = await chats.chat_accesses(session, user.id, [chat for chat, _ in result.items])
    items = [chat_public(chat, count, reached[chat.id]) for chat, count in result.items]
    return Envelope(data=page_of(items, result.total, page, page_size))


@router.get("/chats/{chat_id}", operation_id="getChat")
async def get_chat(
    user: DataAgentReader, session: SessionDep, chat_id: uuid.UUID
) -> Envelope[ChatWithMessages]:
    """One of the caller's chats with its messages."""
    chat, messages = await chats.get_chat_with_messages(session, user.id, chat_id)
    reached = await chats.chat_accesses(session, user.id, [chat])
    body = ChatWithMessages(
        **chat_public(chat, len(messages), reached[chat.id]).model_dump(),
        messages=[message_public(m) for m in messages],
    )
    return Envelope(data=body)


@router.post(
    "/chats", status_code=201, operation_id="createChat", responses=PROVIDER_CHOICE_RESPONSES
)
async def create_chat(
    user: DataAgentWriter, context: ContextDep, session: SessionDep, body: ChatCreate
) -> Envelope[ChatWithMessages]:
    """Start a chat on a ready ontology the caller reaches, theirs or shared with them (409
    for a provider not enabled), answering in the mode asked for, else the server's default."""
    if "agent_mode" in body.model_fields_set and body.agent_mode is None:
        raise DataAgentError(ErrorCode.VALIDATION_ERROR, "The agent mode cannot be null.")
    chat = await chats.create_chat(
        context, session, user.id, body.name, body.ontology_id, body.llm_provider, body.agent_mode
    )
    reached = await chats.chat_accesses(session, user.id, [chat])
    created = ChatWithMessages(**chat_public(chat, 0, reached[chat.id]).model_dump(), messages=[])
    return Envelope(data=created)


@router.patch("/chats/{chat_id}", operation_id="updateChat", responses=PROVIDER_CHOICE_RESPONSES)
async def update_chat(
    user: DataAgentWriter,
    context: ContextDep,
    session: SessionDep,
    chat_id: uuid.UUID,
    body: ChatUpdate,
) -> Envelope[ChatPublic]:
    """Rename a chat, or change its LLM provider (409 for a provider not enabled) or its
    answer mode (the next answer uses it)."""
    changes: dict[str, Any] = {}
    if "name" in body.model_fields_set:
        if body.name is None:
            raise DataAgentError(ErrorCode.VALIDATION_ERROR, "The name cannot be null.")
        changes["name"] = body.name
    if "llm_provider" in body.model_fields_set:
        changes["llm_provider"] = body.llm_provider
    if "agent_mode" in body.model_fields_set:
        if body.agent_mode is None:
            raise DataAgentError(ErrorCode.VALIDATION_ERROR, "The agent mode cannot be null.")
        changes["agent_mode"] = body.agent_mode
    chat = await chats.update_chat(context, session, user.id, chat_id, **changes)
    count = await chats.count_messages(session, chat.id)
    reached = await chats.chat_accesses(session, user.id, [chat])
    return Envelope(data=chat_public(chat, count, reached[chat.id]))


@router.delete("/chats/{chat_id}", status_code=204, operation_id="deleteChat")
async def delete_chat(user: DataAgentDeleter, session: SessionDep, chat_id: uuid.UUID) -> Response:
    """Delete a chat and its messages."""
    await chats.delete_chat(session, user.id, chat_id)
    return Response(status_code=204)


@router.get("/chats/{chat_id}/messages", operation_id="listMessages")
async def list_messages(
    user: DataAgentReader,
    session: SessionDep,
    chat_id: uuid.UUID,
    page: PageParam = 1,
    page_size: PageSizeParam = 50,
) -> Envelope[PageOf[MessagePublic]]:
    """One page of a chat's messages, oldest first."""
    result = await chats.list_messages(session, user.id, chat_id, page, page_size)
    items = [message_public(m) for m in result.items]
    return Envelope(data=page_of(items, result.total, page, page_size))


@router.get("/chats/{chat_id}/messages/{message_id}", operation_id="getMessage")
async def get_message(
    user: DataAgentReader, session: SessionDep, chat_id: uuid.UUID, message_id: uuid.UUID
) -> Envelope[MessagePublic]:
    """One message of one of the caller's chats (404 for one not yours or of another chat)."""
    message = await chats.get_message(session, user.id, chat_id, message_id)
    return Envelope(data=message_public(message))


@router.post(
    "/chats/{chat_id}/messages",
    status_code=201,
    operation_id="sendMessage",
    responses=ANSWERABLE_RESPONSES,
)
async def send_message(
    user: DataAgentWriter,
    context: ContextDep,
    session: SessionDep,
    chat_id: uuid.UUID,
    body: MessageCreate,
) -> Envelope[MessagePair]:
    """Store a question and the assistant's placeholder in one transaction (503, storing
    nothing, when no model can answer the chat)."""
    question, reply = await chats.send_message(context, session, user.id, chat_id, body.content)
    return Envelope(data=message_pair(question, reply))


@router.post(
    "/chats/{chat_id}/messages/{message_id}/regenerate",
    status_code=201,
    operation_id="regenerateMessage",
    responses=REGENERATE_RESPONSES,
)
async def regenerate_message(
    user: DataAgentWriter,
    context: ContextDep,
    session: SessionDep,
    chat_id: uuid.UUID,
    message_id: uuid.UUID,
) -> Envelope[MessagePair]:
    """Ask a finished or failed answer's question again: a new placeholder for it, answered
    like a new question's (stream it); the old answer stays. 409 while it is generating."""
    question, reply = await chats.regenerate_message(context, session, user.id, chat_id, message_id)
    return Envelope(data=message_pair(question, reply))
