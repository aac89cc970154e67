"""The reaper: runs whose worker is gone end `failed` as INTERRUPTED, never stuck.

At start-up and every half lease, any process may sweep: a queued or running run whose
lease expired (its worker stopped renewing it, e.g. the process was killed) is failed in
one transaction with what it leaves (the message `failed` with its partial text, or the
ontology `failed`) and a terminal event (`message_error` / `build_error`) so a client
tailing it ends. Each run is failed by one conditional UPDATE; of several reapers, and of a
reaper and a worker that wakes up late, exactly one wins.

The same sweep fails an answer placeholder that no stream claimed within
`answer_claim_timeout_s` (NOT_STARTED): the reaper claims it as a stream would, with a run
that is failed from the outset, so of a stream request and the reaper exactly one claims it
(`agent_runs.message_id` is unique); and it deletes the charts of no message (a stateless
chat's) older than `chart_retention_hours`.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Awaitable, Callable, Mapping
from datetime import timedelta

from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from dataagent.errors import ErrorCode
from dataagent.runs.event_log import EventLog, StoredEvent, encode
from dataagent.runs.runner import RunHandler
from dataagent.services import charts
from dataagent.services.ontologies import INTERRUPTED as BUILD_INTERRUPTED
from dataagent.store import runs
from dataagent.store.database import Database
from dataagent.store.models import AgentRun
from dataagent.store.types import utcnow

log = logging.getLogger(__name__)


def not_started_message(claim_timeout_s: float) -> str:
    """The sentence of an answer no stream asked for in time."""
    minutes = claim_timeout_s / 60
    within = (
        f"{minutes:g} minute{'s' if minutes != 1 else ''}"
        if claim_timeout_s % 60 == 0
        else f"{claim_timeout_s:g} seconds"
    )
    return (
        f"This answer was never started: nothing asked for it within {within} of the "
        "question. Retry it, or ask again."
    )


class Reaper:
    """Fails the runs whose lease expired and the answers never claimed, and deletes expired
    charts, once at start-up and then periodically."""

    def __init__(
        self,
        database: Database,
        events: EventLog,
        handlers: Mapping[str, RunHandler],
        lease_s: float,
        *,
        claim_timeout_s: float,
        chart_retention_hours: float,
    ) -> None:
        self.database = database
        self.events = events
        self.handlers = handlers
        self.lease_s = lease_s
        self.claim_timeout_s = claim_timeout_s
        self.chart_retention_hours = chart_retention_hours
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        """Sweep now (builds left `building` with no run included), then every half lease."""
        await self.sweep()
        await self.fail_orphaned_builds()
        await self.fail_unclaimed()
        await self.delete_expired_charts()
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

    async def fail_unclaimed(self) -> int:
        """Fail the answer placeholders no stream claimed within the claim timeout
        (NOT_STARTED, with a `message_error` a client reading `.../events` gets); how many."""
        created_before = utcnow() - timedelta(seconds=self.claim_timeout_s)
        async with self.database.session() as session:
            waiting = await runs.unclaimed_answers(session, created_before)
        failed = 0
        for owner_id, chat_id, message_id in waiting:
            if await self._fail_unclaimed(owner_id, chat_id, message_id):
                failed += 1
        if failed:
            log.warning("%d answer(s) no client asked for were marked failed", failed)
        return failed

    async def _fail_unclaimed(
        self, owner_id: uuid.UUID, chat_id: uuid.UUID, message_id: uuid.UUID
    ) -> bool:
        handler = self.handlers["chat_message"]
        code = ErrorCode.NOT_STARTED
        message = not_started_message(self.claim_timeout_s)
        try:
            async with self.database.session() as session:
                run = await runs.add_unstarted_run(
                    session, owner_id, chat_id, message_id, code.value, message
                )
                event, data = await handler.abandon(session, run, code, message, [])
                runs.add_first_event(session, run.id, event, encode(data))
                await session.commit()
        except IntegrityError:
            return False  # a stream request claimed it first (or it went with its chat)
        self.events.notifier.notify(run.id)
        return True

    async def delete_expired_charts(self) -> int:
        """Delete the charts of no message past their retention; how many."""
        async with self.database.session() as session:
            return await charts.delete_expired(session, self.chart_retention_hours)

    async def fail_orphaned_builds(self) -> int:
        """Fail ontologies left `building` with no build run (made before every build was
        a run); how many."""
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
        chores: tuple[Callable[[], Awaitable[int]], ...] = (
            self.sweep,
            self.fail_unclaimed,
            self.delete_expired_charts,
        )
        while True:
            await asyncio.sleep(self.lease_s / 2)
            for chore in chores:  # each on its own: one failing stops no other
                try:
                    await chore()
                except Exception:
                    log.exception("the reaper's %s failed; trying again later", chore.__name__)


async def _all_events(session: AsyncSession, run: AgentRun) -> list[StoredEvent]:
    found: list[StoredEvent] = []
    after = 0
    while True:
        rows = await runs.events_after(session, run.id, after)
        found.extend(StoredEvent(*row) for row in rows)
        if len(rows) < 500:
            return found
        after = rows[-1][0]
