"""The event log of a run: appended (and committed) before anyone is sent an event.

An event's JSON is made once (`encode`) and that exact text is stored and sent, so a replay
is byte-identical to the live stream. Readers only ever read the database: a writer in this
process wakes them at once (`Notifier`); a writer in another process is seen by polling,
so any replica can serve any run's stream.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Any, Final, Literal

from sqlalchemy.ext.asyncio import AsyncSession

from dataagent.store import runs
from dataagent.store.database import Database
from dataagent.vocabulary import FINISHED_RUN_STATUSES

# The events that end a run's stream: an answer's, a build's and an agent server request's
# last word.
TERMINAL_EVENTS: Final[frozenset[str]] = frozenset(
    {"message_complete", "message_error", "build_complete", "build_error", "done", "error"}
)


@dataclass(frozen=True)
class StoredEvent:
    """One event as the log holds it: its seq, type and JSON text."""

    seq: int
    event: str
    data: str

    def payload(self) -> dict[str, Any]:
        """The JSON text parsed."""
        value: dict[str, Any] = json.loads(self.data)
        return value


class LeaseLost(Exception):
    """The run was taken from this worker (its lease expired and the reaper failed it)."""


def encode(data: dict[str, Any]) -> str:
    """The one JSON text of a payload: compact, UTF-8 as is (`default=str` for ids, times)."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"), default=str)


def partial_content(events: Iterable[tuple[str, dict[str, Any]]]) -> str:
    """The answer text streamed so far: the `message_chunk`s after the last `clear_streaming`,
    or, when there are none, the content of the last `text` event."""
    chunks: list[str] = []
    last_text = ""
    for event, data in events:
        if event == "message_chunk":
            chunks.append(str(data.get("chunk", "")))
        elif event == "clear_streaming":
            chunks = []
        elif event == "text":
            last_text = str(data.get("content", ""))
    return "".join(chunks) if chunks else last_text


class Notifier:
    """Wakes this process's readers of a run when this process appends to it."""

    def __init__(self) -> None:
        self._waiters: dict[uuid.UUID, asyncio.Event] = {}

    def waiter(self, run_id: uuid.UUID) -> asyncio.Event:
        """An event set at the next append to the run (take it *before* reading the log)."""
        waiter = self._waiters.get(run_id)
        if waiter is None:
            waiter = self._waiters[run_id] = asyncio.Event()
        return waiter

    def forget(self, run_id: uuid.UUID) -> None:
        """Drop the run's waiter (its stream ended); a later append makes a new one."""
        self._waiters.pop(run_id, None)

    def notify(self, run_id: uuid.UUID) -> None:
        """Wake everyone waiting on the run."""
        waiter = self._waiters.pop(run_id, None)
        if waiter is not None:
            waiter.set()


# A run's last event (type, payload); and what ends a run, in the transaction that records
# its end: it writes the run's object (the answer stored, the message failed, ...) and gives
# the last event.
LastEvent = tuple[str, dict[str, Any]]
Ending = Callable[[AsyncSession], Awaitable[LastEvent | None]]


class RunWriter:
    """The one writer of a run's events: the worker holding its lease numbers them."""

    def __init__(self, log: EventLog, run_id: uuid.UUID, worker_id: str, last_seq: int) -> None:
        self._log = log
        self.run_id = run_id
        self.worker_id = worker_id
        self.seq = last_seq
        self._lock = asyncio.Lock()

    async def append(self, event: str, data: dict[str, Any]) -> int:
        """Store the event (committed) and wake this process's readers; its seq.

        Raises LeaseLost when the run is no longer this worker's.
        """
        text = encode(data)
        async with self._lock:  # one seq at a time even if a handler emits concurrently
            seq = self.seq + 1
            async with self._log.database.session() as session:
                stored = await runs.add_event(
                    session, self.run_id, seq, event, text, self.worker_id
                )
                await session.commit()
            if not stored:
                raise LeaseLost(f"run {self.run_id} is no longer held by {self.worker_id}")
            self.seq = seq
        self._log.notifier.notify(self.run_id)
        return seq

    async def finish(
        self,
        status: Literal["succeeded", "failed"],
        end: Ending,
        *,
        code: str | None = None,
        message: str | None = None,
    ) -> bool:
        """End the run in one transaction: `end`'s changes (which give the last event), the
        last event, and the run's status; so whoever reads the last event reads an ended run
        and its object in its final state. False when the run was no longer this worker's
        (nothing is written)."""
        async with self._lock:
            seq = self.seq + 1
            async with self._log.database.session() as session:
                final = await end(session)
                if final is not None:
                    event, data = final
                    if not await runs.add_event(
                        session, self.run_id, seq, event, encode(data), self.worker_id
                    ):
                        await session.rollback()
                        return False
                if not await runs.finish(
                    session, self.run_id, self.worker_id, status, code, message
                ):
                    await session.rollback()
                    return False
                await session.commit()
            if final is not None:
                self.seq = seq
        self._log.notifier.notify(self.run_id)
        return True


class EventLog:
    """Appending to and reading (replay, live tail) the runs' event logs."""

    def __init__(self, database: Database, poll_s: float = 0.25) -> None:
        self.database = database
        self.poll_s = poll_s
        self.notifier = Notifier()

    async def writer(self, run_id: uuid.UUID, worker_id: str) -> RunWriter:
        """The writer for a run this worker holds, numbering after its last stored event."""
        async with self.database.session() as session:
            last = await runs.last_seq(session, run_id)
        return RunWriter(self, run_id, worker_id, last)

    async def read(self, run_id: uuid.UUID, after_seq: int = 0) -> list[StoredEvent]:
        """Every stored event of the run after `after_seq`."""
        found: list[StoredEvent] = []
        while True:
            async with self.database.session() as session:
                rows = await runs.events_after(session, run_id, after_seq)
            found.extend(StoredEvent(*row) for row in rows)
            if len(rows) < 500:
                return found
            after_seq = rows[-1][0]

    async def tail(
        self, run_id: uuid.UUID, after_seq: int = 0, idle_s: float | None = None
    ) -> AsyncIterator[StoredEvent | None]:
        """The run's events after `after_seq`, then each new one as it is stored; ends after
        a terminal event, or once the run has finished and every event is read.

        With `idle_s`, yields None after that long without an event (for heartbeats).
        Each read is its own short session: nothing is held between events.
        """
        loop = asyncio.get_running_loop()
        last_sent = loop.time()
        while True:
            waiter = self.notifier.waiter(run_id)  # before reading: no wake-up is missed
            async with self.database.session() as session:
                rows = await runs.events_after(session, run_id, after_seq)
                finished = not rows and await runs.run_state(session, run_id) in (
                    FINISHED_RUN_STATUSES | {None}
                )
            for row in rows:
                event = StoredEvent(*row)
                after_seq = event.seq
                yield event
                if event.event in TERMINAL_EVENTS:
                    self.notifier.forget(run_id)
                    return
            if rows:
                last_sent = loop.time()
                continue
            if finished:
                # The run ended with no terminal event after `after_seq`: a last read in
                # case its end and its final append raced with the read above.
                async with self.database.session() as session:
                    rows = await runs.events_after(session, run_id, after_seq)
                for row in rows:
                    yield StoredEvent(*row)
                self.notifier.forget(run_id)
                return
            timeout = self.poll_s
            if idle_s is not None:
                timeout = max(0.0, min(timeout, last_sent + idle_s - loop.time()))
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(waiter.wait(), timeout)
            if idle_s is not None and loop.time() - last_sent >= idle_s:
                last_sent = loop.time()
                yield None
