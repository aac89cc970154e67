"""A run's event log as Server-Sent Events: one frame per stored event, heartbeats between.

Frame: `id: <seq>\\nevent: <type>\\ndata: <json>\\n\\n`, the JSON exactly as stored; a
`: heartbeat\\n\\n` comment after `heartbeat_s` of silence keeps proxies from closing a quiet
stream. The stream reads the log in short sessions of its own: the request's session is
released before the first byte is sent.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from typing import Final

from starlette.responses import StreamingResponse

from dataagent.runs.events import EventLog, StoredEvent

MEDIA_TYPE: Final = "text/event-stream"
HEARTBEAT: Final = b": heartbeat\n\n"
HEADERS: Final = {
    "Cache-Control": "no-cache",
    # nginx and its kind buffer responses unless told not to: an SSE stream must flow.
    "X-Accel-Buffering": "no",
}


def frame(event: StoredEvent) -> bytes:
    """One SSE frame for a stored event."""
    return f"id: {event.seq}\nevent: {event.event}\ndata: {event.data}\n\n".encode()


async def frames(
    log: EventLog, run_id: uuid.UUID, after_seq: int, heartbeat_s: float
) -> AsyncIterator[bytes]:
    """The run's frames after `after_seq`, live until its end, with heartbeats."""
    async for event in log.tail(run_id, after_seq, idle_s=heartbeat_s):
        yield HEARTBEAT if event is None else frame(event)


class EventStream(StreamingResponse):
    """A `text/event-stream` response (so OpenAPI documents the media type)."""

    media_type = MEDIA_TYPE


def event_stream(
    log: EventLog, run_id: uuid.UUID, after_seq: int, heartbeat_s: float
) -> EventStream:
    """The streaming response of a run's events after `after_seq`."""
    return EventStream(frames(log, run_id, after_seq, heartbeat_s), headers=HEADERS)
