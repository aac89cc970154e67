"""The reaper: runs whose worker is gone end `failed` as INTERRUPTED, never stuck.

At start-up and every half lease, any process may sweep: a queued or running run whose
lease expired (its worker stopped renewing it, e.g. the process was killed) is failed in
one transaction with what it leaves (the message `failed` with its partial text, or the
ontology `failed`) and a terminal event (`message_error` / `build_error`) so a client
tailing it ends. Each run is failed by one conditional UPDATE; of several reapers, and of a
reaper and a worker that wakes up late, exactly one wins.

Not the reaper's: an assistant message still `generating` with no run at all. Its client
has not asked for the answer yet (the message is created before the stream request), and
however old it is, a stream request may still claim it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping

from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from dataagent.errors import ErrorCode
from dataagent.runs.events import EventLog, StoredEvent, encode
from dataagent.runs.runner import RunHandler
from dataagent.services.ontologies import INTERRUPTED as BUILD_INTERRUPTED
from dataagent.store import runs
from dataagent.store.database import Database
from dataagent.store.models import AgentRun

log = logging.getLogger(__name__)


class Reaper:
    """Fails the runs whose lease expired, once at start-up and then periodically."""

    def __init__(
        self,
        database: Database,
        events: EventLog,
        handlers: Mapping[str, RunHandler],
        lease_s: float,
    ) -> None:
        self.database = database
        self.events = events
        self.handlers = handlers
        self.lease_s = lease_s
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        """Sweep now (builds left `building` with no run included), then every half lease."""
        await self.sweep()
        await self.fail_orphaned_builds()
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._loop(), name="run-reaper")

    async def stop(self) -> None:
        """Stop sweeping."""
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)

    async def sweep(self) -> int:
        """Fail every run whose lease expired; how many this reaper failed."""
        async with self.database.session() as session:
            expired = await runs.expired_runs(session, self.lease_s)
        failed = 0
        for run in expired:
            if await self.interrupt(run):
                failed += 1
        if failed:
            log.warning("%d run(s) were interrupted (their worker stopped); marked failed", failed)
        return failed

    async def interrupt(self, run: AgentRun) -> bool:
        """Fail one expired run with what it leaves and its terminal event, in one commit."""
        handler = self.handlers.get(run.kind)
        message = handler.interrupted_message if handler else "The run was interrupted."
        for _ in range(10):
            try:
                async with self.database.session() as session:
                    if not await runs.interrupt(
                        session, run.id, self.lease_s, ErrorCode.INTERRUPTED.value, message
                    ):
                        return False  # another reaper, or its worker renewed in time
                    if handler is None:
                        await session.commit()
                        return True
                    events = await _all_events(session, run)
                    event, data = await handler.abandon(
                        session, run, ErrorCode.INTERRUPTED, message, events
                    )
                    await runs.add_final_event(session, run.id, event, encode(data))
                    await session.commit()
            except IntegrityError:
                continue  # a straggling worker appended that seq first; start again
            self.events.notifier.notify(run.id)
            return True
        log.error("run %s: could not be marked interrupted", run.id)
        return False

    async def fail_orphaned_builds(self) -> int:
        """Fail ontologies left `building` with no build run (made before builds were runs,
        or by a command-line build that stopped); how many."""
        async with self.database.session() as session:
            ids = await runs.orphaned_builds(session)
            failed = [
                i for i in ids if await runs.fail_building_ontology(session, i, BUILD_INTERRUPTED)
            ]
            await session.commit()
        if failed:
            log.warning("%d ontology build(s) were interrupted; marked failed", len(failed))
        return len(failed)

    async def _loop(self) -> None:
        while True:
            await asyncio.sleep(self.lease_s / 2)
            try:
                await self.sweep()
            except Exception:
                log.exception("the run reaper's sweep failed; trying again later")


async def _all_events(session: AsyncSession, run: AgentRun) -> list[StoredEvent]:
    found: list[StoredEvent] = []
    after = 0
    while True:
        rows = await runs.events_after(session, run.id, after)
        found.extend(StoredEvent(*row) for row in rows)
        if len(rows) < 500:
            return found
        after = rows[-1][0]
