"""How the agent reports what it does: named events with JSON payloads (docs/events.md).

The agent never writes to a socket. It calls an `Emit` it is given; the run that hosts it
appends each event to the run's event log before anyone is sent it.
"""

from __future__ import annotations

from typing import Any, Protocol


class Emit(Protocol):
    """Report one event: its type (`tool_call`, `message_chunk`, ...) and its payload."""

    async def __call__(self, event: str, data: dict[str, Any]) -> None:
        """Record the event; returns once it is stored (it may then be sent)."""


async def discard(event: str, data: dict[str, Any]) -> None:
    """An `Emit` that keeps nothing (for callers that want only the result)."""
