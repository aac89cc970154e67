"""Phase 3, the SQL builder: the pilot and full SQL of each step that reads the database.

Contract: `build_sql(state, run)` returns `{"query_specs": list[QuerySpec]}`, one per step
whose strategy is `sql` or `sql_then_python`. A step's QueryPlan is compiled by
`semantic.compiler.compile_plan` (no model call); otherwise the model writes the SQL.
"""

from __future__ import annotations

from typing import Any

from dataagent.agent.pipeline.state import PipelineRun, PipelineState


async def build_sql(state: PipelineState, run: PipelineRun) -> dict[str, Any]:
    """The SQL of each step."""
    raise NotImplementedError("the SQL builder is being built (issue 23)")
