"""A `PipelineRun` over the demo retailer's ontology (the agent tests' `retail`), for
testing one phase alone; the scripted model is the only fake and the verifier never
calls it."""

from __future__ import annotations

import pytest
from tests.fakes.scripted_model import ScriptedChatModel
from tests.integration.agent.conftest import Recorder, Retail, scripted_client

from dataagent.agent.grounding import Grounding
from dataagent.agent.pipeline.state import PipelineRun, SqlResult
from dataagent.agent.tools import ToolScope
from dataagent.services.connections import ontology_target
from dataagent.services.ontologies import access_model, reach
from dataagent.services.queries import run_and_record


@pytest.fixture
async def pipeline_run(retail: Retail) -> PipelineRun:
    """An answer's run over the retailer: its context, scope and an event recorder."""
    ctx = retail.world.context
    async with ctx.database.session() as session:
        access = await reach(session, retail.owner_id, retail.ontology_id)
        model = access_model(access)
        target = await ontology_target(ctx, session, access)
    events = Recorder()
    scope = ToolScope(ctx, retail.owner_id, access, model, target, events)
    client = scripted_client(ScriptedChatModel(script=[]))
    return PipelineRun(ctx, client, events, scope, Grounding([], [], []))


async def run_sql(run: PipelineRun, sql: str) -> SqlResult:
    """Run SQL on the retailer through the guarded executor, as a step's result."""
    async with run.ctx.database.session() as session:
        recorded = await run_and_record(run.ctx, session, run.scope.owner_id, run.scope.target, sql)
    result = recorded.result
    return SqlResult(
        sql=sql,
        columns=result.columns,
        rows=result.rows,
        row_count=result.row_count,
        truncated=result.truncated,
        query_record_id=str(recorded.record.id),
    )
