"""Ontology builds as durable runs: the `ontology_build` run kind, `RunBuilds` (the
`services.builds.BuildJobs` every context that builds gets: the API's, the command line's,
the demo set-up's), and the build run a client streams.

A build is an `AgentRun` (kind `ontology_build`) recorded in the transaction that sets its
ontology `building`; it executes on the runner under a lease like an answer, ends with
`build_complete` or `build_error`, and is failed by the reaper if its process stops.
"""

from __future__ import annotations

import uuid
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from dataagent.errors import DataAgentError, ErrorCode
from dataagent.runs.event_log import StoredEvent
from dataagent.runs.runner import RunContext, Runner
from dataagent.services import ontologies, value_index
from dataagent.store import runs
from dataagent.store.models import AgentRun, Ontology

BUILD_CANCELLED = "The build was cancelled; rebuild the ontology."


class OntologyBuilds:
    """The `ontology_build` run kind."""

    cancelled_message = BUILD_CANCELLED
    interrupted_message = ontologies.INTERRUPTED

    async def execute(self, run: RunContext) -> None:
        """Build the ontology; `build_complete`, or raise with the ontology's error."""
        assert run.ontology_id is not None
        await run.emit(
            "build_start", {"ontologyId": str(run.ontology_id), "runId": str(run.run_id)}
        )
        await ontologies.build_ontology(
            run.app, run.ontology_id, read_values=value_index.read_values
        )
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


class RunBuilds:
    """`BuildJobs` on the runner: each build a run of kind `ontology_build`."""

    def __init__(self, runner: Runner, lease_s: float) -> None:
        self.runner = runner
        self.lease_s = lease_s
        self._latest: dict[uuid.UUID, uuid.UUID] = {}

    async def record(
        self, session: AsyncSession, owner_id: uuid.UUID, ontology_id: uuid.UUID
    ) -> uuid.UUID:
        """A queued build run, in the transaction that sets the ontology `building`."""
        return runs.add_build_run(session, owner_id, ontology_id, self.lease_s).id

    async def start(self, ontology_id: uuid.UUID, build_id: uuid.UUID) -> None:
        """Submit the recorded build run (it executes `services.ontologies.build_ontology`)."""
        self._latest[ontology_id] = build_id
        await self.runner.submit(build_id)

    async def wait(self, ontology_id: uuid.UUID) -> None:
        """Wait for the ontology's latest build started here."""
        run_id = self._latest.get(ontology_id)
        if run_id is not None:
            await self.runner.wait(run_id)

    async def cancel_all(self) -> None:
        """Stop the runner (the app is closing): builds in flight end INTERRUPTED."""
        await self.runner.stop()


async def build_run(session: AsyncSession, owner_id: uuid.UUID, ontology_id: uuid.UUID) -> AgentRun:
    """The latest build run of one of the caller's ontologies (the one a client streams);
    NOT_FOUND for another's ontology, and for one never built as a run."""
    ontology = await ontologies.get_own_ontology(session, owner_id, ontology_id)
    found = await runs.runs_of_ontology(session, ontology.id)
    if not found:
        raise DataAgentError(ErrorCode.NOT_FOUND, "This ontology has no build to show.")
    return found[-1]
