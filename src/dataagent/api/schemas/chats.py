"""Chats and messages (seeds 000 and 001)."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Annotated, Any, Final

from pydantic import Field
from pydantic.json_schema import SkipJsonSchema

from dataagent.api.schemas import HAS_TEXT, ApiInput, ApiModel, ErrorBody
from dataagent.store.models import DataChat, DataChatMessage
from dataagent.vocabulary import (
    AgentMode,
    ChatOntologyAccess,
    LlmProvider,
    MessageRole,
    MessageStatus,
)


class MessagePublic(ApiModel):
    """One message of a chat."""

    id: uuid.UUID
    chat_id: uuid.UUID
    role: MessageRole
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
    llm_provider: LlmProvider | None
    agent_mode: AgentMode = Field(
        description="How the chat answers: `pipeline` (seed 001's six phases), `react` "
        "(the tool loop) or `offline` (the built-in planner, no model call)."
    )
    created_at: datetime
    updated_at: datetime
    message_count: int = 0
    ontology_access: ChatOntologyAccess = Field(
        "owner",
        description="How the chat's owner reaches its ontology: `owner`, `shared`, or "
        "`withdrawn` (no longer shared with them: the chat stays readable, sending in it "
        "is 403).",
    )


class ChatWithMessages(ChatPublic):
    """A chat and all its messages, oldest first."""

    messages: list[MessagePublic]


class ChatCreate(ApiInput):
    """A new chat on one of the caller's ready ontologies."""

    name: str = Field(
        "New chat",
        min_length=1,
        max_length=255,
        pattern=HAS_TEXT,
        description="Left out (or `New chat`): the chat is named from its first question.",
    )
    ontology_id: uuid.UUID
    llm_provider: LlmProvider | None = None
    # Optional but never null, as `ChatUpdate.name`.
    agent_mode: AgentMode | SkipJsonSchema[None] = Field(
        None, description="Left out: the server's default (`DATAAGENT_AGENT_DEFAULT_MODE`)."
    )


class ChatUpdate(ApiInput):
    """A new name, LLM provider (null clears it back to the default) or answer mode."""

    # Optional but never null: the schema says so (null is refused, as the schema promises).
    name: (
        Annotated[str, Field(min_length=1, max_length=255, pattern=HAS_TEXT)] | SkipJsonSchema[None]
    ) = None
    llm_provider: LlmProvider | None = None
    agent_mode: AgentMode | SkipJsonSchema[None] = None


class MessageCreate(ApiInput):
    """A question for the agent."""

    content: str = Field(min_length=1, max_length=10_000, pattern=HAS_TEXT)


class MessagePair(ApiModel):
    """The stored question and the assistant's placeholder reply."""

    user_message: MessagePublic
    assistant_message: MessagePublic


_UNANSWERABLE = {"model": ErrorBody, "description": "No language model can answer the chat"}

ANSWERABLE_RESPONSES: Final[dict[int | str, dict[str, Any]]] = {503: _UNANSWERABLE}

# A provider chosen (a chat's, or a person's default) must be enabled: `llm.require_enabled`.
PROVIDER_CHOICE_RESPONSES: Final[dict[int | str, dict[str, Any]]] = {
    409: {"model": ErrorBody, "description": "That provider is not enabled here"},
}

REGENERATE_RESPONSES: Final[dict[int | str, dict[str, Any]]] = {
    409: {"model": ErrorBody, "description": "The answer is still generating, or not an answer"},
    503: _UNANSWERABLE,
}


def chat_public(
    chat: DataChat, message_count: int, access: ChatOntologyAccess = "owner"
) -> ChatPublic:
    """The public view of a chat, with its message count and how its ontology is reached."""
    return ChatPublic.model_validate(chat).model_copy(
        update={"message_count": message_count, "ontology_access": access}
    )


def message_public(message: DataChatMessage) -> MessagePublic:
    """The public view of a message."""
    return MessagePublic.model_validate(message)


def message_pair(question: DataChatMessage, reply: DataChatMessage) -> MessagePair:
    """A question and the placeholder that will answer it."""
    return MessagePair(
        user_message=message_public(question), assistant_message=message_public(reply)
    )
