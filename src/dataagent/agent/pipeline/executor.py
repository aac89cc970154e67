"""Phase 4, the executor: the steps in dependency order, SQL pilot then full, Python in the
sandbox.

Contract: `execute(state, run)` returns `{"step_results": list[StepResult]}`.
"""

from __future__ import annotations

from typing import Any

from dataagent.agent.pipeline.state import PipelineRun, PipelineState


async def execute(state: PipelineState, run: PipelineRun) -> dict[str, Any]:
    """Run every step."""
    raise NotImplementedError("the executor is being built (issue 23)")
