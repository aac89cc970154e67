"""Seed 002's stateless chat: `POST /api/agent/chat` streams an answer to a conversation.

Seed 002's own client posts to `/api/v1/agent/chat`: the same operation is served there too
(its own operationId, so the OpenAPI document names each path once).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends

from dataagent.api.deps import RunsDep, SessionDep, require
from dataagent.api.schemas import ERROR_RESPONSES, json_errors
from dataagent.api.schemas.agent import STATELESS_RESPONSES, StatelessChatRequest
from dataagent.auth.permissions import Permission
from dataagent.runs import stateless_chats
from dataagent.runs.sse import EventStream
from dataagent.store.models import User

router = APIRouter(tags=["agent"], responses=json_errors(ERROR_RESPONSES))

Writer = Annotated[User, Depends(require(Permission.DATA_AGENT_WRITE))]


@router.post(
    "/api/v1/agent/chat",
    operation_id="statelessChatV1",
    response_class=EventStream,
    responses=STATELESS_RESPONSES,
)
@router.post(
    "/api/agent/chat",
    operation_id="statelessChat",
    response_class=EventStream,
    responses=STATELESS_RESPONSES,
)
async def chat(
    user: Writer, session: SessionDep, system: RunsDep, body: StatelessChatRequest
) -> EventStream:
    """Answer the conversation's last question about one of the caller's ontologies, streamed.

    Nothing is stored but the model calls' traces and any charts; the client keeps the
    conversation and sends it whole each time. One such chat per person at a time (429).
    Without `ontologyId`: the caller's default ontology, else their only ready one.
    """
    messages = [turn.model_dump() for turn in body.messages]
    return await stateless_chats.start_chat(system.chats, session, user, body.ontology_id, messages)
