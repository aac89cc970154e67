"""A `PipelineRun` over the demo retailer (the `retail` fixture), for testing one phase alone:
a real question in the chat, real retrieval and tool scope, a scripted model."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from tests.fakes.scripted_model import ScriptedChatModel
from tests.integration.agent.conftest import Recorder, Retail, scripted_client, start_answer

from dataagent.agent.observer import EventObserver
from dataagent.agent.pipeline.state import (
    PipelineRun,
    PipelineState,
    PlanArtifact,
    PlanStep,
    QuerySpec,
)
from dataagent.agent.react import prepare_answer
from dataagent.store.models import QueryRecord


@dataclass
class Phase:
    """A run of one answer's pipeline, its events and the scripted model."""

    run: PipelineRun
    events: Recorder
    model: ScriptedChatModel
    message_id: uuid.UUID
    run_id: uuid.UUID

    def state(self, question: str, **working: Any) -> PipelineState:
        """An input state for `question` with these working fields."""
        state = PipelineState(
            question=question, conversation="", preferences={}, answered_clarification=[]
        )
        state.update(working)  # type: ignore[typeddict-item]
        return state

    def calls(self) -> list[tuple[str, str, int | None]]:
        """The model calls made: (phase, purpose, step id)."""
        return [(c.phase, c.purpose, c.step_id) for c in self.run.client.calls]


async def pipeline_phase(
    retail: Retail, question: str, script: list[Any], *, default: Any = None
) -> Phase:
    """A question asked in the retail chat, prepared as the pipeline prepares an answer."""
    ctx = retail.world.context
    started = await start_answer(retail.world, retail.owner_id, retail.chat_id, question)
    model = ScriptedChatModel(script=script, default=default)
    client = scripted_client(model)
    events = Recorder()
    client.observer = EventObserver(events)
    prepared = await prepare_answer(ctx, started.request, events)
    run = PipelineRun(ctx, client, events, prepared.scope, prepared.grounding)
    return Phase(run, events, model, started.message_id, started.run_id)


def sql_plan(*steps: PlanStep, complexity: str = "simple") -> PlanArtifact:
    """A plan of these steps."""
    return PlanArtifact.model_validate(
        {"complexity": complexity, "intent": "answer", "steps": [s.to_json() for s in steps]}
    )


def spec(step_id: int, sql: str, origin: str = "model") -> QuerySpec:
    """A step's SQL: the pilot is the same query (the executor caps it at 10 rows)."""
    return QuerySpec(step_id=step_id, pilot_sql=sql, full_sql=sql, origin=origin)  # type: ignore[arg-type]


async def records_of(retail: Retail, run_id: uuid.UUID) -> list[QueryRecord]:
    """The query records linked to a run, oldest first."""
    async with retail.world.database.session() as session:
        rows = await session.scalars(
            select(QueryRecord).where(QueryRecord.run_id == run_id).order_by(QueryRecord.created_at)
        )
        return list(rows)
