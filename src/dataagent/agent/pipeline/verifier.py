"""Phase 5, the verifier: deterministic checks, then the plan's acceptance checks.

Contract: `verify(state, run)` returns `{"verification": VerificationReport}`; on a failure
also `revision_count` (the state's plus one), `revision_diagnosis` and `revision_target`.
The graph sends a failure back to `recommended_target` while `revision_count` is at most
`MAX_REVISIONS`, then on to the explainer with the caveats.
"""

from __future__ import annotations

from typing import Any

from dataagent.agent.pipeline.state import PipelineRun, PipelineState


async def verify(state: PipelineState, run: PipelineRun) -> dict[str, Any]:
    """The verification report of the step results."""
    raise NotImplementedError("the verifier is being built (issue 23)")
