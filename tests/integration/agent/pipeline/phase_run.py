"""A `PipelineRun` over the demo retailer's ontology (the `retail` fixture), with the scripted
model as its client: each phase can be run alone as a typed function of a state."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tests.fakes.scripted_model import ScriptedChatModel
from tests.integration.agent.conftest import Recorder, Retail, scripted_client

from dataagent.agent.grounding import ground
from dataagent.agent.pipeline.state import PipelineRun, PipelineState
from dataagent.agent.tools import ToolScope
from dataagent.services import ontologies
from dataagent.services.connections import ontology_target


@dataclass
class PhaseRun:
    """A run, the scripted model behind it and the events it emitted."""

    run: PipelineRun
    model: ScriptedChatModel
    events: Recorder


async def phase_run(retail: Retail, question: str, script: list[Any]) -> PhaseRun:
    """A run of one question over the retail ontology, grounded as an answer grounds it."""
    ctx = retail.world.context
    async with retail.world.database.session() as session:
        access = await ontologies.reach(session, retail.owner_id, retail.ontology_id)
        model = ontologies.access_model(access)
        target = await ontology_target(ctx, session, access)
    grounding = await ground(ctx, access, model, question)
    events = Recorder()
    scope = ToolScope(
        ctx=ctx,
        owner_id=retail.owner_id,
        access=access,
        model=model,
        target=target,
        emit=events,
        question=question,
    )
    scripted = ScriptedChatModel(script=script)
    run = PipelineRun(
        ctx=ctx, client=scripted_client(scripted), emit=events, scope=scope, grounding=grounding
    )
    return PhaseRun(run, scripted, events)


def state_of(question: str, **working: Any) -> PipelineState:
    """A state with this question (no history, preferences or clarification) and fields."""
    state: dict[str, Any] = {
        "question": question,
        "conversation": "",
        "preferences": {},
        "answered_clarification": [],
    }
    state.update(working)
    return state  # type: ignore[return-value]
