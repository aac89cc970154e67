"""Seed 002's stateless chat: a conversation in, events out."""

from __future__ import annotations

import uuid
from typing import Any, Final, Literal

from pydantic import Field

from dataagent.agent.events import STATELESS_EVENTS
from dataagent.api.schemas import HAS_TEXT, ApiInput, ErrorBody, json_errors
from dataagent.api.schemas.runs import sse_event_schema


class ChatTurn(ApiInput):
    """One message of the conversation."""

    role: Literal["user", "assistant"]
    content: str = Field(min_length=1, max_length=10_000, pattern=HAS_TEXT)


class StatelessChatRequest(ApiInput):
    """The conversation so far (the last message is the user's question) and the ontology
    to ask about: without `ontologyId`, the caller's default ontology (`PUT
    /api/me/default-ontology`), else their only ready one."""

    ontology_id: uuid.UUID | None = None
    messages: list[ChatTurn] = Field(min_length=1, max_length=100)


_FRAMES = (
    "One Server-Sent Event per step, without ids (a stateless stream cannot be resumed): `chunk` "
    "{content} as text streams, `clear_streaming` {} before tools run, `tool_call` {tool, "
    "input_summary, input_raw, thinking, result_summary, duration_ms, iteration} after each "
    "tool, `chart` {id, url, title, chartType, spec}, then `done` {status} or `error` "
    "{message, code}; a `: heartbeat` comment on a quiet stream (docs/events.md)."
)

STATELESS_RESPONSES: Final[dict[int | str, dict[str, Any]]] = json_errors(
    {
        200: {
            "description": "The answer's events as Server-Sent Events",
            "content": {
                "text/event-stream": {
                    "schema": sse_event_schema(
                        STATELESS_EVENTS, resumable=False, description=_FRAMES
                    )
                }
            },
        },
        400: {
            "model": ErrorBody,
            "description": "The conversation is malformed, the ontology not ready, or none was "
            "named while the caller has no default and not exactly one ready ontology",
        },
        429: {"model": ErrorBody, "description": "A chat answer of yours is already streaming"},
        503: {"model": ErrorBody, "description": "No language model is configured"},
    }
)
