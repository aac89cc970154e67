"""Seed 002's stateless chat: `POST /api/agent/chat` streams an answer to a conversation."""

from __future__ import annotations

from fastapi import APIRouter

from dataagent.api.deps import DataAgentWriter, RunsDep, SessionDep
from dataagent.api.schemas import ERROR_RESPONSES, json_errors
from dataagent.api.schemas.agent import STATELESS_RESPONSES, StatelessChatRequest
from dataagent.runs import stateless
from dataagent.runs.sse import EventStream

router = APIRouter(prefix="/api/agent", tags=["agent"], responses=json_errors(ERROR_RESPONSES))


@router.post(
    "/chat",
    operation_id="statelessChat",
    response_class=EventStream,
    responses=STATELESS_RESPONSES,
)
async def chat(
    user: DataAgentWriter, session: SessionDep, system: RunsDep, body: StatelessChatRequest
) -> EventStream:
    """Answer the conversation's last question about one of the caller's ontologies, streamed.

    Nothing is stored but the model calls' traces and any charts; the client keeps the
    conversation and sends it whole each time. One such chat per person at a time (429).
    """
    messages = [turn.model_dump() for turn in body.messages]
    return await stateless.start_chat(system.chats, session, user, body.ontology_id, messages)
