"""Where ontology builds run: the `BuildJobs` protocol, and `BuildTasks`, the in-process one.

The API puts builds on its durable runs (`dataagent.runs.builds.RunBuilds`, injected into
the app's context): each build is a run with a lease, failed as INTERRUPTED by the reaper
if its server stops. The command line and the demo set-up, which build and wait in one
process, use `BuildTasks`.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Awaitable, Callable
from typing import Protocol

from sqlalchemy.ext.asyncio import AsyncSession

log = logging.getLogger(__name__)

Build = Callable[[], Awaitable[None]]


class BuildJobs(Protocol):
    """Background ontology builds."""

    async def record(
        self, session: AsyncSession, owner_id: uuid.UUID, ontology_id: uuid.UUID
    ) -> None:
        """Note the build in the caller's transaction, which sets the ontology `building`
        (so no commit ever leaves a `building` ontology without a trace of its build)."""

    async def start(self, ontology_id: uuid.UUID, build: Build) -> None:
        """Run the recorded build in the background (after the caller's commit)."""

    async def wait(self, ontology_id: uuid.UUID) -> None:
        """Wait for the ontology's build, if one runs here."""

    async def cancel_all(self) -> None:
        """Stop every build (shutdown)."""


class BuildTasks:
    """Builds as asyncio tasks of this process, tracked by ontology id (none is lost to
    garbage collection, and shutdown can stop them)."""

    def __init__(self) -> None:
        self._tasks: dict[uuid.UUID, asyncio.Task[None]] = {}

    async def record(
        self, session: AsyncSession, owner_id: uuid.UUID, ontology_id: uuid.UUID
    ) -> None:
        """Nothing to note: the task is the whole record."""

    async def start(self, ontology_id: uuid.UUID, build: Build) -> None:
        """Run `build` in the background (a rebuild of the same ontology waits for none)."""

        async def body() -> None:
            await build()

        task = asyncio.get_running_loop().create_task(body(), name=f"build-{ontology_id}")
        self._tasks[ontology_id] = task
        task.add_done_callback(lambda done: self._forget(ontology_id, done))

    async def wait(self, ontology_id: uuid.UUID) -> None:
        """Wait for the build of this ontology, if one is running here."""
        task = self._tasks.get(ontology_id)
        if task is not None:
            await asyncio.shield(task)

    def running(self) -> list[uuid.UUID]:
        """Ontologies with a build in flight."""
        return [i for i, t in self._tasks.items() if not t.done()]

    async def cancel_all(self) -> None:
        """Stop every build; their ontologies stay `building` until a server's reaper."""
        tasks = [t for t in self._tasks.values() if not t.done()]
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)

    def _forget(self, ontology_id: uuid.UUID, task: asyncio.Task[None]) -> None:
        if self._tasks.get(ontology_id) is task:
            del self._tasks[ontology_id]
        if not task.cancelled() and task.exception() is not None:
            log.error("ontology %s: build crashed", ontology_id, exc_info=task.exception())
