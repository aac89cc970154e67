"""What an account change does to the person's work (docs/runs.md#account-changes).

Deactivation, an admin's sign-out everywhere (or new password) and deletion stop the
person's answers and stateless chats. The change's own transaction (`services.users`) asks
their unfinished answers to stop (`cancel_requested`, with the sentence they will end with),
so the worker holding one, in whatever process, stops it at its next lease renewal. The
functions here, which the routes call after the service, act on this process at once:
they cancel the runs executing here, stop the stateless chats streaming here, and wait for
them to end.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import Sequence

from sqlalchemy.ext.asyncio import AsyncSession

from dataagent.errors import ErrorCode
from dataagent.runs.system import RunSystem
from dataagent.services import users
from dataagent.services.users import STOPPED_DELETED
from dataagent.store import runs

log = logging.getLogger(__name__)


async def account_changed(system: RunSystem, user_id: uuid.UUID) -> None:
    """Apply a change just made to the person's account to this process: their runs asked to
    stop are cancelled here, their stateless chats whose credentials no longer hold end, and
    both are waited for (at most a lease). A change that stops nothing costs one query."""
    await system.chats.recheck(user_id, wait_s=system.lease_s)
    async with system.app.database.session() as session:
        stopping = await runs.stopping_runs(session, user_id)
    await _cancel_here(system, stopping, wait_s=system.lease_s)


async def delete_user(
    system: RunSystem, session: AsyncSession, user_id: uuid.UUID, actor_id: uuid.UUID
) -> None:
    """Delete a user once their work has ended, so nothing is written in their name after
    their rows are gone (`services.users.delete_user` refuses what it refuses)."""
    await users.begin_deletion(session, user_id, actor_id)
    await _wind_down(system, user_id)
    await users.delete_user(session, user_id, actor_id)


async def _wind_down(system: RunSystem, user_id: uuid.UUID) -> None:
    """Stop the person's chats here and wait for their runs to end, here and elsewhere (at
    most a lease: a worker elsewhere notices within a third of one); then leave the streams
    tailing those runs a moment to read their last event before the log goes."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + system.lease_s
    stopped_any = False
    while True:
        remaining = max(0.0, deadline - loop.time())
        chats = system.chats.of(user_id)
        await system.chats.stop(chats, ErrorCode.CANCELLED, STOPPED_DELETED, wait_s=remaining)
        async with system.app.database.session() as session:
            # Again each time: a request past sign-in before the account was deactivated
            # may have claimed an answer since.
            await runs.request_cancel_of_owner(
                session,
                user_id,
                STOPPED_DELETED,
                kinds=("chat_message", "agent_server", "ontology_build"),
            )
            stopping = await runs.stopping_runs(session, user_id)
            await session.commit()
        stopped_any = stopped_any or bool(stopping)
        if not stopping:
            break
        if loop.time() >= deadline:
            log.warning(
                "user %s deleted with %d run(s) still held by another server: their writes "
                "are refused once the rows are gone",
                user_id,
                len(stopping),
            )
            break
        if not await _cancel_here(system, stopping, wait_s=remaining):
            await asyncio.sleep(system.events.poll_s)  # held elsewhere: poll their end
    if stopped_any:
        # A reader elsewhere polls the log every `poll_s`; one here is woken at once.
        await asyncio.sleep(2 * system.events.poll_s)


async def _cancel_here(system: RunSystem, run_ids: Sequence[uuid.UUID], wait_s: float) -> int:
    """Cancel those of the runs executing in this process and wait for them (at most
    `wait_s`); how many were here."""
    executing = set(system.runner.executing())
    here = [run_id for run_id in run_ids if run_id in executing]
    for run_id in here:
        await system.runner.cancel(run_id)
    if here:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(
                asyncio.gather(*(system.runner.wait(run_id) for run_id in here)), wait_s
            )
    return len(here)
