"""Chats and messages under /api/data-agent, as seeds 000 and 001 describe."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Query, Response
from pydantic import Field
from pydantic.json_schema import SkipJsonSchema

from dataagent.api.schemas import (
    ERROR_RESPONSES,
    NO_NUL,
    ApiInput,
    ApiModel,
    Envelope,
    PageOf,
    page_of,
)
from dataagent.auth.dependencies import SessionDep, require
from dataagent.auth.permissions import Permission
from dataagent.errors import DataAgentError, ErrorCode
from dataagent.store import chats
from dataagent.store.models import DataChat, DataChatMessage, User

router = APIRouter(prefix="/api/data-agent", tags=["data-agent"], responses=ERROR_RESPONSES)

Reader = Annotated[User, Depends(require(Permission.DATA_AGENT_READ))]
Writer = Annotated[User, Depends(require(Permission.DATA_AGENT_WRITE))]
Deleter = Annotated[User, Depends(require(Permission.DATA_AGENT_DELETE))]

LlmProvider = Literal["openai", "anthropic", "azure", "openai_compatible"]
MessageStatus = Literal["generating", "complete", "failed", "clarification_needed"]


class MessagePublic(ApiModel):
    """One message of a chat."""

    id: uuid.UUID
    chat_id: uuid.UUID
    role: Literal["user", "assistant"]
    content: str
    metadata: dict[str, Any] | None = Field(validation_alias="metadata_")
    status: MessageStatus
    created_at: datetime


class ChatPublic(ApiModel):
    """A chat without its messages."""

    id: uuid.UUID
    name: str
    ontology_id: uuid.UUID
    owner_id: uuid.UUID
    llm_provider: str | None
    created_at: datetime
    updated_at: datetime
    message_count: int = 0


class ChatWithMessages(ChatPublic):
    """A chat and all its messages, oldest first."""

    messages: list[MessagePublic]


class ChatCreate(ApiInput):
    """A new chat on one of the caller's ready ontologies."""

    name: str = Field(min_length=1, max_length=255)
    ontology_id: uuid.UUID
    llm_provider: LlmProvider | None = None


class ChatUpdate(ApiInput):
    """A new name or LLM provider (null clears the provider back to the default)."""

    # Optional but never null: the schema says so (null is refused, as the schema promises).
    name: Annotated[str, Field(min_length=1, max_length=255)] | SkipJsonSchema[None] = None
    llm_provider: LlmProvider | None = None


class MessageCreate(ApiInput):
    """A question for the agent."""

    content: str = Field(min_length=1, max_length=10_000)


class MessagePair(ApiModel):
    """The stored question and the assistant's placeholder reply."""

    user_message: MessagePublic
    assistant_message: MessagePublic


def _chat(chat: DataChat, message_count: int) -> ChatPublic:
    return ChatPublic.model_validate(chat).model_copy(update={"message_count": message_count})


def _message(message: DataChatMessage) -> MessagePublic:
    return MessagePublic.model_validate(message)


PageParam = Annotated[int, Query(ge=1, le=1_000_000)]
PageSizeParam = Annotated[int, Query(alias="pageSize", ge=1, le=100)]


@router.get("/chats", operation_id="listChats")
async def list_chats(
    user: Reader,
    session: SessionDep,
    page: PageParam = 1,
    page_size: PageSizeParam = 20,
    search: Annotated[str | None, Query(max_length=255, pattern=NO_NUL)] = None,
    ontology_id: Annotated[uuid.UUID | None, Query(alias="ontologyId")] = None,
    sort_by: Annotated[chats.SortBy, Query(alias="sortBy")] = "updatedAt",
    sort_order: Annotated[chats.SortOrder, Query(alias="sortOrder")] = "desc",
) -> Envelope[PageOf[ChatPublic]]:
    """The caller's chats, with message counts."""
    query = chats.ChatQuery(page, page_size, search or None, ontology_id, sort_by, sort_order)
    result = await chats.list_chats(session, user.id, query)
    items = [_chat(chat, count) for chat, count in result.items]
    return Envelope(data=page_of(items, result.total, page, page_size))


@router.get("/chats/{chat_id}", operation_id="getChat")
async def get_chat(
    user: Reader, session: SessionDep, chat_id: uuid.UUID
) -> Envelope[ChatWithMessages]:
    """One of the caller's chats with its messages."""
    chat, messages = await chats.get_chat_with_messages(session, user.id, chat_id)
    body = ChatWithMessages(
        **_chat(chat, len(messages)).model_dump(), messages=[_message(m) for m in messages]
    )
    return Envelope(data=body)


@router.post("/chats", status_code=201, operation_id="createChat")
async def create_chat(
    user: Writer, session: SessionDep, body: ChatCreate
) -> Envelope[ChatWithMessages]:
    """Start a chat on a ready ontology the caller owns."""
    chat = await chats.create_chat(session, user.id, body.name, body.ontology_id, body.llm_provider)
    return Envelope(data=ChatWithMessages(**_chat(chat, 0).model_dump(), messages=[]))


@router.patch("/chats/{chat_id}", operation_id="updateChat")
async def update_chat(
    user: Writer, session: SessionDep, chat_id: uuid.UUID, body: ChatUpdate
) -> Envelope[ChatPublic]:
    """Rename a chat or change its LLM provider."""
    changes: dict[str, Any] = {}
    if "name" in body.model_fields_set:
        if body.name is None:
            raise DataAgentError(ErrorCode.VALIDATION_ERROR, "The name cannot be null.")
        changes["name"] = body.name
    if "llm_provider" in body.model_fields_set:
        changes["llm_provider"] = body.llm_provider
    chat = await chats.update_chat(session, user.id, chat_id, **changes)
    return Envelope(data=_chat(chat, await chats.count_messages(session, chat.id)))


@router.delete("/chats/{chat_id}", status_code=204, operation_id="deleteChat")
async def delete_chat(user: Deleter, session: SessionDep, chat_id: uuid.UUID) -> Response:
    """Delete a chat and its messages."""
    await chats.delete_chat(session, user.id, chat_id)
    return Response(status_code=204)


@router.get("/chats/{chat_id}/messages", operation_id="listMessages")
async def list_messages(
    user: Reader,
    session: SessionDep,
    chat_id: uuid.UUID,
    page: PageParam = 1,
    page_size: PageSizeParam = 50,
) -> Envelope[PageOf[MessagePublic]]:
    """One page of a chat's messages, oldest first."""
    result = await chats.list_messages(session, user.id, chat_id, page, page_size)
    items = [_message(m) for m in result.items]
    return Envelope(data=page_of(items, result.total, page, page_size))


@router.post("/chats/{chat_id}/messages", status_code=201, operation_id="sendMessage")
async def send_message(
    user: Writer, session: SessionDep, chat_id: uuid.UUID, body: MessageCreate
) -> Envelope[MessagePair]:
    """Store a question and the assistant's placeholder in one transaction."""
    question, reply = await chats.send_message(session, user.id, chat_id, body.content)
    return Envelope(
        data=MessagePair(user_message=_message(question), assistant_message=_message(reply))
    )
