"""Phase 1, the planner: the question decomposed into steps (seed 001's PlanArtifact).

Contract: `plan(state, run)` makes one structured-output model call (`run.client`,
phase `planner`) and returns `{"plan": PlanArtifact}`, plus `{"status":
"clarification_needed"}` when it asks (at most 3 questions, each with its assumption).
"""

from __future__ import annotations

from typing import Any

from dataagent.agent.pipeline.state import PipelineRun, PipelineState


async def plan(state: PipelineState, run: PipelineRun) -> dict[str, Any]:
    """The plan of the question."""
    raise NotImplementedError("the planner is being built (issue 23)")
