"""Ontology builds running in this process: tracked, so none is lost to garbage collection
and shutdown can stop them; a build that a stopped server left `building` is marked
`failed` at the next start (see `services.ontologies.fail_interrupted_builds`).

The agent issue's durable run queue will take builds over; until then they are in-process.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Coroutine
from typing import Any

log = logging.getLogger(__name__)


class BuildTasks:
    """The asyncio tasks of the builds in flight, by ontology id."""

    def __init__(self) -> None:
        self._tasks: dict[uuid.UUID, asyncio.Task[None]] = {}

    def start(self, ontology_id: uuid.UUID, build: Coroutine[Any, Any, None]) -> None:
        """Run `build` in the background (a rebuild of the same ontology waits for none)."""
        task = asyncio.get_running_loop().create_task(build, name=f"build-{ontology_id}")
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
        """Stop every build (shutdown); their ontologies stay `building` until the next start."""
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
