"""Durable runs (answers and builds) and their event streams."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any, Final

from pydantic import Field

from dataagent.api.schemas import ApiInput, ApiModel, ErrorBody, json_errors
from dataagent.store.models import AgentRun
from dataagent.vocabulary import RunKind, RunStatus


class RunPublic(ApiModel):
    """A run: what it does, where it is, and how it ended."""

    id: uuid.UUID
    kind: RunKind
    status: RunStatus
    cancel_requested: bool
    chat_id: uuid.UUID | None
    message_id: uuid.UUID | None
    ontology_id: uuid.UUID | None
    error_code: str | None
    error_message: str | None
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None


class StreamRequest(ApiInput):
    """Seed 001's body of `POST /api/data-agent/stream/{messageId}` (all optional).

    `question` is accepted for compatibility and not used: the question is the user
    message stored before the assistant message being answered.
    """

    chat_id: uuid.UUID | None = None
    question: str | None = Field(None, max_length=10_000)


def run_public(run: AgentRun) -> RunPublic:
    """The public view of a run."""
    return RunPublic.model_validate(run)


_FRAMES = (
    "Server-Sent Events, one frame per stored event: `id: <seq>` (send it back as "
    "`Last-Event-ID` to resume), `event: <type>` (message_start, message_chunk, "
    "clear_streaming, text, tool_call, tool_result, llm_call_start, llm_call_end, "
    "token_update, chart, message_complete, message_error; docs/events.md), `data: <JSON>`; "
    "a `: heartbeat` comment on a quiet stream. The stream ends after message_complete or "
    "message_error."
)

EVENT_STREAM: Final[dict[str, Any]] = {
    "description": "The run's events as Server-Sent Events",
    "content": {
        "text/event-stream": {
            "schema": {"type": "string", "description": _FRAMES},
            "example": (
                'id: 1\nevent: message_start\ndata: {"messageId":"…","chatId":"…",'
                '"runId":"…","startedAt":"2026-01-01T00:00:00+00:00"}\n\n'
                'id: 2\nevent: message_chunk\ndata: {"chunk":"Houston"}\n\n'
            ),
        }
    },
}

CLAIM_RESPONSES: Final[dict[int | str, dict[str, Any]]] = json_errors(
    {
        200: EVENT_STREAM,
        409: {"model": ErrorBody, "description": "The message is claimed already, or answered"},
        429: {"model": ErrorBody, "description": "An answer of yours is already being generated"},
        503: {"model": ErrorBody, "description": "No language model is configured"},
    }
)

REPLAY_RESPONSES: Final[dict[int | str, dict[str, Any]]] = {200: EVENT_STREAM}

_BUILD_FRAMES = (
    "Server-Sent Events, one frame per stored event of the ontology's latest build: "
    "`id: <seq>` (send it back as `Last-Event-ID` to resume), `event: <type>` (build_start, "
    "build_complete, build_error; docs/events.md), `data: <JSON>`; a `: heartbeat` comment "
    "on a quiet stream. The stream ends after build_complete or build_error."
)

BUILD_EVENT_RESPONSES: Final[dict[int | str, dict[str, Any]]] = {
    200: {
        "description": "The build's events as Server-Sent Events",
        "content": {
            "text/event-stream": {
                "schema": {"type": "string", "description": _BUILD_FRAMES},
                "example": (
                    'id: 1\nevent: build_start\ndata: {"ontologyId":"…","runId":"…"}\n\n'
                    'id: 2\nevent: build_complete\ndata: {"ontologyId":"…","status":"ready",'
                    '"datasetCount":3,"relationshipCount":2}\n\n'
                ),
            }
        },
    },
}

CANCEL_RESPONSES: Final[dict[int | str, dict[str, Any]]] = {
    409: {"model": ErrorBody, "description": "The run has already finished"},
}
