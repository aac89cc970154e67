"""Where ontology builds run: the `BuildJobs` protocol `services.ontologies` starts them with.

Every build is a durable run (`dataagent.runs.builds.RunBuilds`, which the run system puts
on the app's context): the API's, the command line's and the demo set-up's alike, so a build
started anywhere has the same status, the same events and the same recovery (the reaper
fails it as INTERRUPTED when its process stops).
"""

from __future__ import annotations

import uuid
from typing import Protocol

from sqlalchemy.ext.asyncio import AsyncSession


class BuildJobs(Protocol):
    """Background ontology builds."""

    async def record(
        self, session: AsyncSession, owner_id: uuid.UUID, ontology_id: uuid.UUID
    ) -> uuid.UUID:
        """Note the build in the caller's transaction, which sets the ontology `building`
        (so no commit ever leaves a `building` ontology without a trace of its build);
        the build's id, for `start`."""

    async def start(self, ontology_id: uuid.UUID, build_id: uuid.UUID) -> None:
        """Run the recorded build in the background (after the caller's commit)."""

    async def wait(self, ontology_id: uuid.UUID) -> None:
        """Wait for the ontology's build, if one runs here."""

    async def cancel_all(self) -> None:
        """Stop every build (shutdown)."""
