"""Phase 2, the navigator: the plan's datasets and the join paths among them.

Contract: `navigate(state, run)` returns `{"join_plan": JoinPlanArtifact}` or
`{"cannot_answer": CannotAnswer}`. Join paths come from `semantic.joins.join_paths` with no
model call; the model's mini-ReAct runs only when the plan names no dataset, or names ones
the ontology lacks.
"""

from __future__ import annotations

from typing import Any

from dataagent.agent.pipeline.state import PipelineRun, PipelineState


async def navigate(state: PipelineState, run: PipelineRun) -> dict[str, Any]:
    """The join plan of the plan's steps, or why nothing fits."""
    raise NotImplementedError("the navigator is being built (issue 23)")
