"""Server-Sent Events: the one framer of every event stream, and a run's event log as one.

Frame: `id: <seq>\\nevent: <type>\\ndata: <json>\\n\\n`, the JSON exactly as stored (`encode`,
which never holds a line break); a stream that cannot be resumed (seed 002's stateless
chat) has no `id:` line. A `: heartbeat\\n\\n` comment after `heartbeat_s` of silence keeps
proxies from closing a quiet stream. A run's stream reads the log in short sessions of its
own: the request's session is released before the first byte is sent.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from typing import Final

from starlette.responses import StreamingResponse

from dataagent.runs.event_log import EventLog, StoredEvent

MEDIA_TYPE: Final = "text/event-stream"
HEARTBEAT: Final = b": heartbeat\n\n"
HEADERS: Final = {
    "Cache-Control": "no-cache",
    # nginx and its kind buffer responses unless told not to: an SSE stream must flow.
    "X-Accel-Buffering": "no",
}


def frame(event: str, data: str, event_id: int | None = None) -> bytes:
    """One SSE frame: the event's type and its JSON text (`events.encode`), with its id when
    the stream can be resumed from it (`Last-Event-ID`)."""
    head = "" if event_id is None else f"id: {event_id}\n"
    return f"{head}event: {event}\ndata: {data}\n\n".encode()


def stored_frame(event: StoredEvent) -> bytes:
    """The frame of an event of a run's log, its seq as its id."""
    return frame(event.event, event.data, event.seq)


async def frames(
    log: EventLog, run_id: uuid.UUID, after_seq: int, heartbeat_s: float
) -> AsyncIterator[bytes]:
    """The run's frames after `after_seq`, live until its end, with heartbeats."""
    async for event in log.tail(run_id, after_seq, idle_s=heartbeat_s):
        yield HEARTBEAT if event is None else stored_frame(event)


class EventStream(StreamingResponse):
    """A `text/event-stream` response (so OpenAPI documents the media type)."""

    media_type = MEDIA_TYPE


def event_stream(
    log: EventLog, run_id: uuid.UUID, after_seq: int, heartbeat_s: float
) -> EventStream:
    """The streaming response of a run's events after `after_seq`."""
    return EventStream(frames(log, run_id, after_seq, heartbeat_s), headers=HEADERS)
