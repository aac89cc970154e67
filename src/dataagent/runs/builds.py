"""Ontology builds as durable runs: the `ontology_build` run kind and `RunBuilds`, the
`services.builds.BuildJobs` the API's context gets.

A build is an `AgentRun` (kind `ontology_build`) recorded in the transaction that sets its
ontology `building`; it executes on the runner under a lease like an answer, ends with
`build_complete` or `build_error`, and is failed by the reaper if its server stops.
"""

from __future__ import annotations

import uuid
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from dataagent.errors import DataAgentError, ErrorCode
from dataagent.runs.events import StoredEvent
from dataagent.runs.runner import RunContext, Runner
from dataagent.services import ontologies
from dataagent.services.builds import Build
from dataagent.store import runs
from dataagent.store.models import AgentRun, Ontology

BUILD_CANCELLED = "The build was cancelled; rebuild the ontology."


class OntologyBuilds:
    """The `ontology_build` run kind."""

    cancelled_message = BUILD_CANCELLED
    interrupted_message = ontologies.INTERRUPTED

    def __init__(self) -> None:
        # The build functions handed to `RunBuilds.start`, by run id; a run without one
        # (started elsewhere) builds the plain way.
        self.bodies: dict[uuid.UUID, Build] = {}

    async def execute(self, run: RunContext) -> None:
        """Build the ontology; `build_complete`, or raise with the ontology's error."""
        assert run.ontology_id is not None
        body = self.bodies.pop(run.run_id, None)
        await run.emit(
            "build_start", {"ontologyId": str(run.ontology_id), "runId": str(run.run_id)}
        )
        if body is not None:
            await body()
        else:
            await ontologies.build_ontology(run.app, run.ontology_id)
        async with run.app.database.session() as session:
            ontology = await session.get(Ontology, run.ontology_id)
        if ontology is None:
            raise DataAgentError(ErrorCode.NOT_FOUND, "The ontology was deleted while it built.")
        if ontology.status != "ready":
            raise DataAgentError(ErrorCode.VALIDATION_ERROR, ontology.error or "The build failed.")
        await run.emit(
            "build_complete",
            {
                "ontologyId": str(ontology.id),
                "status": ontology.status,
                "datasetCount": ontology.dataset_count,
                "relationshipCount": ontology.relationship_count,
            },
        )

    async def abandon(
        self,
        session: AsyncSession,
        run: AgentRun,
        code: ErrorCode,
        message: str,
        events: list[StoredEvent],
    ) -> tuple[str, dict[str, Any]]:
        """The ontology failed (unless its build had ended); `build_error`."""
        if run.ontology_id is not None:
            await runs.fail_building_ontology(session, run.ontology_id, message)
        return "build_error", {
            "ontologyId": str(run.ontology_id),
            "message": message,
            "code": code.value,
        }

    def forget(self, run_id: uuid.UUID) -> None:
        """Drop the build function of a run that ended without executing."""
        self.bodies.pop(run_id, None)


class RunBuilds:
    """`BuildJobs` on the runner: each build a run of kind `ontology_build`."""

    def __init__(self, runner: Runner, kind: OntologyBuilds, lease_s: float) -> None:
        self.runner = runner
        self.kind = kind
        self.lease_s = lease_s
        self._recorded: dict[uuid.UUID, uuid.UUID] = {}
        self._latest: dict[uuid.UUID, uuid.UUID] = {}

    async def record(
        self, session: AsyncSession, owner_id: uuid.UUID, ontology_id: uuid.UUID
    ) -> None:
        """A queued build run, in the transaction that sets the ontology `building`."""
        run = runs.add_build_run(session, owner_id, ontology_id, self.lease_s)
        self._recorded[ontology_id] = run.id

    async def start(self, ontology_id: uuid.UUID, build: Build) -> None:
        """Submit the recorded build run, which will run `build`."""
        run_id = self._recorded.pop(ontology_id)
        self.kind.bodies[run_id] = build
        self._latest[ontology_id] = run_id
        if not await self.runner.submit(run_id):
            self.kind.forget(run_id)

    async def wait(self, ontology_id: uuid.UUID) -> None:
        """Wait for the ontology's latest build started here."""
        run_id = self._latest.get(ontology_id)
        if run_id is not None:
            await self.runner.wait(run_id)
            self.kind.forget(run_id)

    async def cancel_all(self) -> None:
        """Stop the runner (the app is closing): builds in flight end INTERRUPTED."""
        await self.runner.stop()
