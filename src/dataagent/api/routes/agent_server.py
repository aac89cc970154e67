"""Seed 004's agent server: `POST /api/chat` answers a question about an ontology or a file
dataset with a query; `POST /api/chat/stream` streams the same answer's events.

Each request is a durable run (`runs.agent_server`): the stream tails its event log, the
plain request reads that log to its end. The request's session is closed before waiting.
"""

from __future__ import annotations

from fastapi import APIRouter

from dataagent.api.deps import DataAgentWriter, RunsDep, SessionDep
from dataagent.api.schemas import ERROR_RESPONSES, Envelope, json_errors
from dataagent.api.schemas.agent_server import (
    CHAT_RESPONSES,
    STREAM_RESPONSES,
    AgentServerAnswer,
    AgentServerChatRequest,
)
from dataagent.runs.agent_server import answer_of
from dataagent.runs.sse import EventStream, event_stream

router = APIRouter(prefix="/api", tags=["agent-server"], responses=json_errors(ERROR_RESPONSES))


@router.post("/chat", operation_id="agentServerChat", responses=CHAT_RESPONSES)
async def chat(
    user: DataAgentWriter, session: SessionDep, system: RunsDep, body: AgentServerChatRequest
) -> Envelope[AgentServerAnswer]:
    """Answer a question with a query (a QueryPlan; SQL only when the message asks for SQL).

    With no language model configured, the offline planner answers, or abstains (200,
    `status` `abstained`, no rows). A refused statement is 400 SQL_POLICY_VIOLATION, a query
    that takes too long 408 RUNNER_TIMEOUT. The query's run capsule is `GET /api/runs/{runId}`.
    """
    kind, source_id = body.source
    run_id, _ = await system.agent_server.submit(
        session, user, kind, source_id, body.thread_id, body.message
    )
    await session.close()
    answer = await answer_of(system.events, run_id, system.heartbeat_s)
    return Envelope(data=AgentServerAnswer.model_validate(answer))


@router.post(
    "/chat/stream",
    operation_id="agentServerChatStream",
    response_class=EventStream,
    responses=STREAM_RESPONSES,
)
async def chat_stream(
    user: DataAgentWriter, session: SessionDep, system: RunsDep, body: AgentServerChatRequest
) -> EventStream:
    """The same answer as `POST /api/chat`, as Server-Sent Events: `status` (planning,
    validating, executing), `result`, `done`; or `error` {code, message} when it fails."""
    kind, source_id = body.source
    run_id, _ = await system.agent_server.submit(
        session, user, kind, source_id, body.thread_id, body.message
    )
    await session.close()
    return event_stream(system.events, run_id, 0, system.heartbeat_s)
