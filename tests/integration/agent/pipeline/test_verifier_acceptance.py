"""The plan's acceptance checks in the real sandbox: `step_N_data` and `current_data` are
DataFrames; a failing assert fails the check, a check that cannot run passes with a
caveat; each run is a `run_python` tool call of the verifier."""

from __future__ import annotations

import pytest
from tests.integration.agent.conftest import Recorder
from tests.integration.agent.pipeline.conftest import run_sql
from tests.integration.sandbox.conftest import require_bwrap

from dataagent.agent.pipeline.state import (
    AcceptanceCheck,
    PipelineRun,
    PipelineState,
    PlanArtifact,
    PlanStep,
    StepResult,
)
from dataagent.agent.pipeline.verifier import verify

pytestmark = pytest.mark.sandbox

BY_REGION = "SELECT s.region, COUNT(*) AS stores FROM stores s GROUP BY s.region"
ALL_STORES = "SELECT COUNT(*) AS stores FROM stores"


async def state_with(run: PipelineRun, checks: list[AcceptanceCheck]) -> PipelineState:
    results = [
        StepResult(step_id=1, sql_result=await run_sql(run, BY_REGION)),
        StepResult(step_id=2, sql_result=await run_sql(run, ALL_STORES)),
    ]
    plan = PlanArtifact(
        complexity="analytical",
        steps=[PlanStep(id=1, description="by region"), PlanStep(id=2, description="all")],
        acceptance_checks=checks,
    )
    return {
        "question": "How are the stores spread over regions?",
        "conversation": "",
        "preferences": {},
        "answered_clarification": [],
        "plan": plan,
        "step_results": results,
        "query_specs": [],
    }


async def test_acceptance_checks_run_over_the_steps_rows(pipeline_run: PipelineRun) -> None:
    require_bwrap()
    checks = [
        AcceptanceCheck(
            description="Regions add up to every store",
            python='assert step_1_data["stores"].sum() == int(current_data["stores"].iloc[0])',
        ),
        AcceptanceCheck(description="Four regions", python="assert len(step_1_data) == 5"),
        AcceptanceCheck(description="Uses a frame that is not there", python="print(step_9_data)"),
        AcceptanceCheck(description="In words only: every region has a store"),
    ]
    updates = await verify(await state_with(pipeline_run, checks), pipeline_run)
    report = updates["verification"]
    acceptance = [c for c in report.checks if c.kind == "acceptance"]
    assert [(c.name, c.passed) for c in acceptance] == [
        ("acceptance_1", True),
        ("acceptance_2", False),
        ("acceptance_3", True),
    ]
    assert acceptance[1].target == "sql_builder"
    assert acceptance[1].message.startswith("Four regions: failed (AssertionError")
    assert report.caveats == [
        "Not checked (its code raised NameError: name 'step_9_data' is not defined): "
        "Uses a frame that is not there"
    ]
    assert not report.passed and updates["revision_target"] == "sql_builder"
    events = pipeline_run.emit
    assert isinstance(events, Recorder)
    assert events.names() == [
        "tool_start",
        "tool_end",
        "tool_start",
        "tool_error",
        "tool_start",
        "tool_error",
    ]
    assert all(e["phase"] == "verifier" and e["name"] == "run_python" for _, e in events.events)
    assert events.of("tool_start")[0]["args"] == {
        "code": checks[0].python,
        "description": checks[0].description,
    }
    assert "AssertionError" in events.of("tool_error")[0]["error"]
    assert [c["isError"] for c in pipeline_run.tool_calls] == [False, True, True]
    assert pipeline_run.tool_calls[0]["args"]["code"] == checks[0].python
    assert pipeline_run.client.calls == []
