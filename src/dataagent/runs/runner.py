"""Executing runs: the `Runner` interface and `LocalRunner`, the in-process one.

A run is an asyncio task of its own, not tied to the HTTP request that asked for it (a
client that disconnects cancels nothing). The worker holds the run's lease in the database
and renews it every third of a lease; a run whose lease was taken (the reaper failed it)
is dropped at once. The database is the state of record: the tasks and queue here are only
this process's share of the work, and a second process runs its own share beside it.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import os
import socket
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from sqlalchemy.ext.asyncio import AsyncSession

from dataagent.agent.events import RUN_EVENTS
from dataagent.errors import DataAgentError, ErrorCode
from dataagent.runs.event_log import (
    TERMINAL_EVENTS,
    EventLog,
    LastEvent,
    LeaseLost,
    RunWriter,
    StoredEvent,
)
from dataagent.services.context import AppContext
from dataagent.store import runs
from dataagent.store.models import AgentRun
from dataagent.vocabulary import RunKind

log = logging.getLogger(__name__)

INTERNAL = "Something went wrong on our side."

StopReason = Literal["cancel", "stop", "lost"]


def worker_id() -> str:
    """A name for this process's worker, unique across hosts and restarts (≤ 64 chars)."""
    return f"{socket.gethostname()[:32]}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


# What a run that succeeds writes besides its terminal event and status (the answer stored),
# in the same transaction.
Write = Callable[[AsyncSession], Awaitable[object]]

# Answer text arriving within this long is stored as one `message_chunk`: a model streams
# a token every few milliseconds, and each event is a committed row (docs/runs.md).
CHUNK_WINDOW_S = 0.05


@dataclass
class RunContext:
    """What a handler gets: the run's ids, the app, `emit`, and whether it was cancelled."""

    app: AppContext
    run_id: uuid.UUID
    kind: RunKind
    owner_id: uuid.UUID
    chat_id: uuid.UUID | None
    message_id: uuid.UUID | None
    ontology_id: uuid.UUID | None
    writer: RunWriter
    job: _Job
    # The terminal event and what to write with it, in the transaction that ends the run
    # (see `end` and `RunWriter.finish`).
    final: LastEvent | None = None
    write: Write | None = None
    _chunks: list[str] = field(default_factory=list)
    _flusher: asyncio.Task[None] | None = None
    _wake: asyncio.Event = field(default_factory=asyncio.Event)
    _lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    async def emit(self, event: str, data: dict[str, Any]) -> None:
        """Append an event to the run's log (stored before anyone is sent it).

        `message_chunk`s arriving within `CHUNK_WINDOW_S` are joined into one; any other
        event first stores the text before it, so the log keeps the order things happened.
        A terminal event (`message_complete`, ...) is kept and written in the transaction
        that ends the run, when the handler returns.
        """
        if event not in RUN_EVENTS:
            raise ValueError(f"{event!r} is not a documented run event (docs/events.md)")
        if event == "message_chunk":
            self._chunks.append(str(data.get("chunk", "")))
            if self._flusher is None or self._flusher.done():
                self._wake = asyncio.Event()
                self._flusher = asyncio.get_running_loop().create_task(self._flush_later())
            return
        if event in TERMINAL_EVENTS:
            await self.end(event, data)
            return
        await self.flush()
        async with self._lock:
            await self.writer.append(event, data)

    async def end(self, event: str, data: dict[str, Any], write: Write | None = None) -> None:
        """End the run with this terminal event (the handler returns next): when the handler
        returns, `write`'s changes (the answer stored), the event and the run's status are
        committed in one transaction, or none of them."""
        if event not in TERMINAL_EVENTS:
            raise ValueError(f"{event!r} does not end a run")
        await self.flush()
        self.final = (event, data)
        self.write = write

    async def ending(self, session: AsyncSession) -> LastEvent | None:
        """The end of a run that succeeded, in the transaction recording it: `write`'s changes
        and the terminal event."""
        if self.write is not None:
            await self.write(session)
        return self.final

    async def flush(self) -> None:
        """Store the answer text still waiting to be joined."""
        flusher = self._flusher
        if flusher is not None:
            self._wake.set()
            await flusher
        await self._write_chunks()

    async def _flush_later(self) -> None:
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), CHUNK_WINDOW_S)
            await self._write_chunks()
            if not self._chunks or self._wake.is_set():
                return

    async def _write_chunks(self) -> None:
        async with self._lock:
            if not self._chunks:
                return
            text = "".join(self._chunks)
            self._chunks.clear()
            await self.writer.append("message_chunk", {"chunk": text})

    @property
    def cancelled(self) -> bool:
        """Whether someone asked this run to stop (its task is being cancelled)."""
        return self.job.reason == "cancel"


class RunHandler(Protocol):
    """What one kind of run does, and what a run of that kind leaves when it fails.

    `execute` ends the run with `run.end(terminal event, write)`, `write` leaving the message
    or ontology in its final state in the transaction that records the end; or it raises,
    and `abandon` does that part (also for the reaper, after the worker died).
    """

    cancelled_message: str
    interrupted_message: str

    async def execute(self, run: RunContext) -> None:
        """Do the run's work, emitting its events."""

    async def abandon(
        self,
        session: AsyncSession,
        run: AgentRun,
        code: ErrorCode,
        message: str,
        events: list[StoredEvent],
    ) -> tuple[str, dict[str, Any]]:
        """Leave the run's object failed (in `session`, not committed); its terminal event."""


class Runner(Protocol):
    """Where submitted runs execute: this process (`LocalRunner`) or, later, a real queue."""

    worker_id: str

    async def submit(self, run_id: uuid.UUID) -> bool:
        """Take a queued run and execute it when a slot is free; False if another has it."""

    async def cancel(self, run_id: uuid.UUID) -> None:
        """Stop the run if it executes here (the caller has already set cancel_requested)."""

    async def wait(self, run_id: uuid.UUID) -> None:
        """Wait for the run to end, if it executes here."""

    async def start(self) -> None:
        """Get ready to execute runs."""

    async def stop(self) -> None:
        """Stop every run executing here; each ends `failed` as INTERRUPTED."""


@dataclass
class _Job:
    task: asyncio.Task[None] | None = None
    reason: StopReason | None = None
    done: asyncio.Event = field(default_factory=asyncio.Event)

    def interrupt(self, reason: StopReason) -> None:
        """Cancel the task once, remembering why (a second request changes nothing)."""
        if self.reason is None and self.task is not None and not self.task.done():
            self.reason = reason
            self.task.cancel()


class FifoSlots:
    """At most `size` holders; waiters get a slot strictly in the order they asked."""

    def __init__(self, size: int) -> None:
        self._free = size
        self._waiters: collections.deque[asyncio.Future[None]] = collections.deque()

    async def acquire(self) -> None:
        """Wait for a slot (first come, first served)."""
        if self._free > 0 and not self._waiters:
            self._free -= 1
            return
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        try:
            await waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():
                self.release()  # handed a slot in the same instant: pass it on
            else:
                self._waiters.remove(waiter)
            raise

    def release(self) -> None:
        """Give the slot to the first waiter, or free it."""
        while self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():
                waiter.set_result(None)
                return
        self._free += 1

    @property
    def waiting(self) -> int:
        """How many wait for a slot."""
        return len(self._waiters)


class LocalRunner:
    """Runs executed as asyncio tasks of this process, at most `max_concurrency` at once."""

    def __init__(
        self,
        app: AppContext,
        events: EventLog,
        handlers: Mapping[str, RunHandler],
        *,
        max_concurrency: int,
        lease_s: float,
    ) -> None:
        self.app = app
        self.events = events
        self.handlers = handlers
        self.lease_s = lease_s
        self.worker_id = worker_id()
        self._slots = FifoSlots(max_concurrency)
        self._jobs: dict[uuid.UUID, _Job] = {}
        self._stopping = False

    async def start(self) -> None:
        """Accept runs (again, after a stop)."""
        self._stopping = False

    async def submit(self, run_id: uuid.UUID) -> bool:
        """Take a queued run and execute it in the background when a slot is free."""
        if self._stopping:
            raise DataAgentError(ErrorCode.SERVICE_UNAVAILABLE, "The server is stopping.")
        async with self.app.database.session() as session:
            taken = await runs.take(session, run_id, self.worker_id, self.lease_s)
            await session.commit()
        if not taken:
            return False
        job = self._jobs[run_id] = _Job()
        job.task = asyncio.get_running_loop().create_task(
            self._run(run_id, job), name=f"run-{run_id}"
        )
        return True

    async def cancel(self, run_id: uuid.UUID) -> None:
        """Cancel the run's task when it executes here (queued or running)."""
        job = self._jobs.get(run_id)
        if job is not None:
            job.interrupt("cancel")

    async def wait(self, run_id: uuid.UUID) -> None:
        """Wait for the run's task, when it executes here."""
        job = self._jobs.get(run_id)
        if job is not None:
            await job.done.wait()

    def executing(self) -> list[uuid.UUID]:
        """The runs this process holds (queued or running)."""
        return list(self._jobs)

    @property
    def queued(self) -> int:
        """How many of this process's runs (and stateless chats) wait for a slot."""
        return self._slots.waiting

    @contextlib.asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        """Hold one of this process's run slots while the block runs, after waiting for it
        behind those who asked first: a stateless chat's share of the concurrency."""
        await self._slots.acquire()
        try:
            yield
        finally:
            self._slots.release()

    async def stop(self) -> None:
        """Cancel every run here and wait: each ends failed, INTERRUPTED (see `_run`)."""
        self._stopping = True
        jobs = list(self._jobs.values())
        for job in jobs:
            job.interrupt("stop")
        for job in jobs:
            await job.done.wait()

    # --- one run ---------------------------------------------------------------------------

    async def _run(self, run_id: uuid.UUID, job: _Job) -> None:
        keeper = asyncio.get_running_loop().create_task(self._keep_lease(run_id, job))
        try:
            await self._drive(run_id, job)
        except Exception:
            log.exception("run %s: the runner failed", run_id)
        except asyncio.CancelledError:
            pass  # cancelled during its own clean-up (a second stop): the reaper finishes it
        finally:
            keeper.cancel()
            await asyncio.gather(keeper, return_exceptions=True)
            self._jobs.pop(run_id, None)
            job.done.set()

    async def _drive(self, run_id: uuid.UUID, job: _Job) -> None:
        run: AgentRun | None = None
        writer: RunWriter | None = None
        try:
            await self._slots.acquire()
        except asyncio.CancelledError:
            await self._fail_unstarted(run_id, job)
            return
        try:
            async with self.app.database.session() as session:
                started = await runs.start(session, run_id, self.worker_id, self.lease_s)
                await session.commit()
                run = await runs.get_run(session, run_id)
            if not started or run is None:
                return  # the reaper ended it while it waited
            handler = self.handlers[run.kind]
            writer = await self.events.writer(run_id, self.worker_id)
            context = self._context(run, writer, job)
            try:
                if run.cancel_requested:
                    job.reason = "cancel"
                    raise asyncio.CancelledError
                await handler.execute(context)
                await context.flush()
                ended = await writer.finish("succeeded", context.ending)
            except BaseException as exc:
                outcome = self._outcome(run_id, exc, job)
                if outcome is None:
                    return  # the run is no longer ours
                # The text streamed before the failure belongs to the partial answer.
                with contextlib.suppress(Exception):
                    await asyncio.shield(context.flush())
                code, message = outcome
                await self._fail(run, handler, writer, code, message)
                return
            if not ended:
                log.warning("run %s: ended by someone else before it finished here", run_id)
        finally:
            self._slots.release()

    def _context(self, run: AgentRun, writer: RunWriter, job: _Job) -> RunContext:
        return RunContext(
            app=self.app,
            run_id=run.id,
            kind=run.kind,
            owner_id=run.owner_id,
            chat_id=run.chat_id,
            message_id=run.message_id,
            ontology_id=run.ontology_id,
            writer=writer,
            job=job,
        )

    def _outcome(
        self, run_id: uuid.UUID, exc: BaseException, job: _Job
    ) -> tuple[ErrorCode, str | None] | None:
        """How a run that raised ended: (code, message or the kind's own), None if lost."""
        if isinstance(exc, LeaseLost) or job.reason == "lost":
            log.warning("run %s: lease lost; another worker or the reaper ended it", run_id)
            return None
        if isinstance(exc, asyncio.CancelledError):
            return (
                (ErrorCode.CANCELLED, None)
                if job.reason == "cancel"
                else (
                    ErrorCode.INTERRUPTED,
                    None,
                )
            )
        if isinstance(exc, DataAgentError):
            return exc.code, exc.message
        if isinstance(exc, Exception):
            log.error("run %s failed", run_id, exc_info=exc)
            return ErrorCode.INTERNAL_ERROR, INTERNAL
        raise exc  # KeyboardInterrupt, SystemExit: not ours to swallow

    async def _fail(
        self,
        run: AgentRun,
        handler: RunHandler,
        writer: RunWriter,
        code: ErrorCode,
        message: str | None,
    ) -> None:
        """End a run that raised: its object failed, its terminal event and its status, in
        one transaction."""
        if message is None and code == ErrorCode.CANCELLED:
            # Stopped by an account change: say so, rather than "cancelled".
            async with self.app.database.session() as session:
                message = await runs.cancel_reason(session, run.id)
        text = message or _default_message(handler, code)
        events = await self.events.read(run.id)

        async def abandon(session: AsyncSession) -> tuple[str, dict[str, Any]]:
            return await handler.abandon(session, run, code, text, events)

        ended = await writer.finish("failed", abandon, code=code.value, message=text)
        if not ended:
            log.warning("run %s: ended by someone else before it failed here", run.id)

    async def _fail_unstarted(self, run_id: uuid.UUID, job: _Job) -> None:
        """A run cancelled while it waited for a slot."""
        async with self.app.database.session() as session:
            run = await runs.get_run(session, run_id)
        if run is None or job.reason == "lost":
            return
        code = ErrorCode.CANCELLED if job.reason == "cancel" else ErrorCode.INTERRUPTED
        handler = self.handlers[run.kind]
        writer = await self.events.writer(run_id, self.worker_id)
        await self._fail(run, handler, writer, code, None)

    async def _keep_lease(self, run_id: uuid.UUID, job: _Job) -> None:
        """Renew the run's lease every third of it; cancel the run when it is lost or when
        someone (in any process) asked for it to stop."""
        while True:
            await asyncio.sleep(self.lease_s / 3)
            try:
                async with self.app.database.session() as session:
                    held = await runs.renew(session, run_id, self.worker_id, self.lease_s)
                    cancel = await runs.cancel_requested(session, run_id)
                    await session.commit()
            except Exception:
                log.warning("run %s: could not renew its lease", run_id, exc_info=True)
                continue
            if not held:
                job.interrupt("lost")
                return
            if cancel:
                job.interrupt("cancel")


def _default_message(handler: RunHandler, code: ErrorCode) -> str:
    if code == ErrorCode.CANCELLED:
        return handler.cancelled_message
    if code == ErrorCode.INTERRUPTED:
        return handler.interrupted_message
    return INTERNAL
