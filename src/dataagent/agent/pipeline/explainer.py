"""Phase 6, the explainer: the narrative (streamed), lineage, caveats, assumptions, charts.

Contract: `explain(state, run)` streams the narrative as `message_chunk` events and
returns `{"explainer_output": ExplainerOutput, "status": "complete"}`. It also answers
conversational questions and writes the helpful refusal when the navigator found nothing.
"""

from __future__ import annotations

from typing import Any

from dataagent.agent.pipeline.state import PipelineRun, PipelineState


async def explain(state: PipelineState, run: PipelineRun) -> dict[str, Any]:
    """The answer."""
    raise NotImplementedError("the explainer is being built (issue 23)")
