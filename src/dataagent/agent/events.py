"""How the agent reports what it does: named events with JSON payloads (docs/events.md).

The agent never writes to a socket. It calls an `Emit` it is given; the run that hosts it
appends each event to the run's event log before anyone is sent it.
"""

from __future__ import annotations

from typing import Any, Final, Protocol

# Every event a durable run streams (`/api/data-agent/...`), each documented in
# docs/events.md; a run refuses to emit any other.
ANSWER_EVENTS: Final[frozenset[str]] = frozenset(
    {
        "message_start",
        "message_chunk",
        "clear_streaming",
        "text",
        "tool_call",
        "tool_result",
        "llm_call_start",
        "llm_call_end",
        "token_update",
        "chart",
        "message_complete",
        "message_error",
        # The pipeline (agent/pipeline/): its phases, steps and tool calls, and seed 001's
        # clarifications and preferences.
        "phase_start",
        "phase_artifact",
        "phase_end",
        "step_start",
        "step_complete",
        "tool_start",
        "tool_end",
        "tool_error",
        "clarification_requested",
        "preference_suggested",
        "preference_auto_saved",
    }
)
BUILD_EVENTS: Final[frozenset[str]] = frozenset({"build_start", "build_complete", "build_error"})
# Seed 004's agent server (`POST /api/chat`, `/api/chat/stream`): a run that ends with
# `done` or `error`.
SERVER_EVENTS: Final[frozenset[str]] = frozenset({"status", "result", "done", "error"})
RUN_EVENTS: Final[frozenset[str]] = ANSWER_EVENTS | BUILD_EVENTS | SERVER_EVENTS
# Seed 002's stateless chat (`POST /api/agent/chat`).
STATELESS_EVENTS: Final[frozenset[str]] = frozenset(
    {"chunk", "clear_streaming", "tool_call", "chart", "done", "error"}
)


class Emit(Protocol):
    """Report one event: its type (`tool_call`, `message_chunk`, ...) and its payload."""

    async def __call__(self, event: str, data: dict[str, Any]) -> None:
        """Record the event; returns once it is stored (it may then be sent)."""


async def discard(event: str, data: dict[str, Any]) -> None:
    """An `Emit` that keeps nothing (for callers that want only the result)."""
