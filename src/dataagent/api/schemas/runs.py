"""Durable runs (answers and builds) and their event streams."""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from datetime import datetime
from typing import Any, Final

from pydantic import Field

from dataagent.agent.events import ANSWER_EVENTS, BUILD_EVENTS
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


def sse_event_schema(events: Iterable[str], *, resumable: bool, description: str) -> dict[str, Any]:
    """The schema of one Server-Sent Event of a stream, as a client's parser reads it: its
    `event` type (one of `events`), its `data` (a JSON object) and, when the stream can be
    resumed, its `id` (the event's sequence number, for `Last-Event-ID`). Before OpenAPI 3.2's
    `itemSchema`, the `schema` of a `text/event-stream` describes each event (schemathesis
    validates each one against it); `: heartbeat` comments are not events."""
    properties: dict[str, Any] = {
        "event": {"type": "string", "enum": sorted(events)},
        "data": {
            "type": "string",
            "contentMediaType": "application/json",
            "contentSchema": {"type": "object"},
        },
    }
    if resumable:
        properties["id"] = {"type": "string", "pattern": "^[1-9][0-9]*$"}
    return {
        "type": "object",
        "description": description,
        "properties": properties,
        "required": sorted(properties),
        "additionalProperties": False,
    }


_FRAMES = (
    "One Server-Sent Event per stored event, as `id: <seq>` (send it back as `Last-Event-ID` "
    "to resume), `event: <type>`, `data: <JSON>` lines and a blank line; a `: heartbeat` "
    "comment on a quiet stream. The stream ends after message_complete or message_error "
    "(docs/events.md)."
)

EVENT_STREAM: Final[dict[str, Any]] = {
    "description": "The run's events as Server-Sent Events",
    "content": {
        "text/event-stream": {
            "schema": sse_event_schema(ANSWER_EVENTS, resumable=True, description=_FRAMES),
            "example": {"id": "2", "event": "message_chunk", "data": '{"chunk":"Houston"}'},
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
    "One Server-Sent Event per stored event of the ontology's latest build, as `id: <seq>` "
    "(send it back as `Last-Event-ID` to resume), `event: <type>`, `data: <JSON>` lines and a "
    "blank line; a `: heartbeat` comment on a quiet stream. The stream ends after "
    "build_complete or build_error (docs/events.md)."
)

BUILD_EVENT_RESPONSES: Final[dict[int | str, dict[str, Any]]] = {
    200: {
        "description": "The build's events as Server-Sent Events",
        "content": {
            "text/event-stream": {
                "schema": sse_event_schema(BUILD_EVENTS, resumable=True, description=_BUILD_FRAMES),
                "example": {
                    "id": "2",
                    "event": "build_complete",
                    "data": '{"ontologyId":"…","status":"ready","datasetCount":3,'
                    '"relationshipCount":2}',
                },
            }
        },
    },
}

CANCEL_RESPONSES: Final[dict[int | str, dict[str, Any]]] = {
    409: {"model": ErrorBody, "description": "The run has already finished"},
}
