"""The verifier phase against the demo retailer: steps that ran (real SQLite, through the
guarded executor), checked against their plan without a model call."""

from __future__ import annotations

from typing import Any

from tests.integration.agent.conftest import Recorder
from tests.integration.agent.pipeline.conftest import run_sql

from dataagent.agent.pipeline.state import (
    MAX_REVISIONS,
    PipelineRun,
    PipelineState,
    PlanArtifact,
    PlanStep,
    QuerySpec,
    StepResult,
)
from dataagent.agent.pipeline.verifier import verify
from dataagent.semantic.compiler import compile_plan
from dataagent.semantic.plan import QueryPlan

ORDERS_BY_SEGMENT = QueryPlan.model_validate(
    {
        "measures": [{"field": "orders.*", "aggregation": "count", "alias": "orders"}],
        "dimensions": [{"field": "customers.segment"}],
        "filters": [{"field": "orders.status", "op": "=", "value": "completed"}],
    }
)
ORDERS_BY_CHANNEL = QueryPlan.model_validate(
    {
        "measures": [{"field": "orders.*", "aggregation": "count", "alias": "orders"}],
        "dimensions": [{"field": "orders.channel"}],
        "filters": [{"field": "orders.status", "op": "=", "value": "completed"}],
    }
)


def state_of(steps: list[tuple[PlanStep, StepResult]], **extra: Any) -> PipelineState:
    plan = PlanArtifact(complexity="analytical", steps=[s for s, _ in steps])
    state: PipelineState = {
        "question": "How many completed orders per segment?",
        "conversation": "",
        "preferences": {},
        "answered_clarification": [],
        "plan": plan,
        "step_results": [r for _, r in steps],
        "query_specs": [
            QuerySpec(step_id=r.step_id, pilot_sql=r.sql_result.sql, full_sql=r.sql_result.sql)
            for _, r in steps
            if r.sql_result is not None
        ],
    }
    state.update(extra)  # type: ignore[typeddict-item]
    return state


async def step(
    run: PipelineRun, number: int, plan: QueryPlan, sql: str | None = None
) -> tuple[PlanStep, StepResult]:
    compiled = compile_plan(plan, run.model, run.model.dialect).sql
    result = await run_sql(run, sql or compiled)
    plan_step = PlanStep(id=number, description=f"step {number}", query_plan=plan)
    return plan_step, StepResult(step_id=number, sql_result=result)


async def test_a_compiled_plan_passes_every_check(pipeline_run: PipelineRun) -> None:
    state = state_of([await step(pipeline_run, 1, ORDERS_BY_SEGMENT)])
    updates = await verify(state, pipeline_run)
    report = updates["verification"]
    assert report.passed, report.diagnosis
    assert set(updates) == {"verification"}
    names = [c.name for c in report.checks]
    assert names[:7] == [
        "unknown_column",
        "join_key",
        "fan_out",
        "null_key_loss",
        "dropped_filter",
        "grain",
        "wrong_aggregate",
    ]
    assert {"empty_result", "duplicate_rows"} <= set(names)
    assert all(c.step_id == 1 and c.kind == "deterministic" for c in report.checks)
    assert pipeline_run.client.calls == []  # no model call
    assert isinstance(pipeline_run.emit, Recorder) and pipeline_run.emit.events == []


async def test_a_fanned_out_count_goes_back_to_the_navigator(pipeline_run: PipelineRun) -> None:
    inflated = (
        "SELECT c.segment, COUNT(*) AS orders FROM orders o JOIN customers c "
        "ON o.customer_id = c.id JOIN order_items oi ON oi.order_id = o.id "
        "WHERE o.status = 'completed' GROUP BY c.segment"
    )
    state = state_of([await step(pipeline_run, 1, ORDERS_BY_SEGMENT, inflated)], revision_count=1)
    updates = await verify(state, pipeline_run)
    report = updates["verification"]
    assert not report.passed
    failing = [c for c in report.checks if not c.passed]
    assert [c.name for c in failing] == ["fan_out"]
    assert failing[0].target == "navigator"
    assert report.recommended_target == "navigator"
    assert updates["revision_count"] == 2
    assert updates["revision_target"] == "navigator"
    assert "COUNT(*) over orders is inflated" in updates["revision_diagnosis"]
    assert report.caveats == []


async def test_a_dropped_filter_goes_back_to_the_sql_builder(pipeline_run: PipelineRun) -> None:
    unfiltered = (
        "SELECT c.segment, COUNT(*) AS orders FROM orders o LEFT JOIN customers c "
        "ON o.customer_id = c.id GROUP BY c.segment"
    )
    state = state_of([await step(pipeline_run, 1, ORDERS_BY_SEGMENT, unfiltered)])
    updates = await verify(state, pipeline_run)
    assert [c.name for c in updates["verification"].checks if not c.passed] == ["dropped_filter"]
    assert updates["revision_target"] == "sql_builder"
    assert updates["revision_count"] == 1


async def test_revisions_used_up_become_caveats(pipeline_run: PipelineRun) -> None:
    empty = (
        "SELECT c.segment, COUNT(*) AS orders FROM orders o LEFT JOIN customers c "
        "ON o.customer_id = c.id WHERE o.status = 'completed' AND o.channel = 'mail' "
        "GROUP BY c.segment"
    )
    state = state_of(
        [await step(pipeline_run, 1, ORDERS_BY_SEGMENT, empty)], revision_count=MAX_REVISIONS
    )
    updates = await verify(state, pipeline_run)
    report = updates["verification"]
    assert [c.name for c in report.checks if not c.passed] == ["empty_result"]
    assert updates["revision_count"] == MAX_REVISIONS + 1  # the graph now goes to the explainer
    assert report.caveats == [
        f"Unresolved after {MAX_REVISIONS} revisions: The query returned no rows: the datasets, "
        "joins or filters match nothing."
    ]


async def test_a_failed_step_and_totals_that_disagree(pipeline_run: PipelineRun) -> None:
    by_segment = await step(pipeline_run, 1, ORDERS_BY_SEGMENT)
    # The second step forgets that only completed orders count... and applies it in a CASE
    # the checks accept, so only the totals tell.
    sneaky = (
        "SELECT o.channel, COUNT(CASE WHEN o.status = 'completed' OR o.status = 'returned' "
        "THEN 1 END) AS orders FROM orders o GROUP BY o.channel"
    )
    by_channel = await step(pipeline_run, 2, ORDERS_BY_CHANNEL, sneaky)
    failed = (
        PlanStep(id=3, description="step 3"),
        StepResult(step_id=3, error="no such table: returns", error_code="QUERY_ERROR"),
    )
    state = state_of([by_segment, by_channel, failed])
    updates = await verify(state, pipeline_run)
    failing = [c for c in updates["verification"].checks if not c.passed]
    assert [(c.name, c.step_id) for c in failing] == [
        ("step_failed", 3),
        ("totals_disagree", 2),
    ]
    assert failing[0].message == "Step 3 failed: no such table: returns"


async def test_totals_that_agree_pass(pipeline_run: PipelineRun) -> None:
    state = state_of(
        [
            await step(pipeline_run, 1, ORDERS_BY_SEGMENT),
            await step(pipeline_run, 2, ORDERS_BY_CHANNEL),
        ]
    )
    report = (await verify(state, pipeline_run))["verification"]
    assert report.passed, report.diagnosis
    assert any(c.name == "totals_disagree" and c.passed for c in report.checks)


async def test_a_step_without_a_query_plan_is_checked_for_what_is_known(
    pipeline_run: PipelineRun,
) -> None:
    sql = (
        "SELECT s.region, SUM(s.square_feet) AS area FROM stores s "
        "JOIN orders o ON o.store_id = s.id GROUP BY s.region"
    )
    result = await run_sql(pipeline_run, sql)
    plan_step = PlanStep(id=1, description="area by region", datasets=["stores"])
    report = (
        await verify(
            state_of([(plan_step, StepResult(step_id=1, sql_result=result))]), pipeline_run
        )
    )["verification"]
    # No QueryPlan: grain, filters and measures are unknown, but a SUM over repeated
    # stores rows is wrong whatever the plan said.
    assert [c.name for c in report.checks if not c.passed] == ["fan_out"]


async def test_as_a_graph_node_it_streams_its_report(pipeline_run: PipelineRun) -> None:
    from dataagent.agent.pipeline.graph import phase_node

    state = state_of([await step(pipeline_run, 1, ORDERS_BY_SEGMENT)])
    node = phase_node("verifier", verify)
    updates = await node(state, {"configurable": {"pipeline": pipeline_run}})
    assert updates["verification"].passed
    events = pipeline_run.emit
    assert isinstance(events, Recorder)
    assert events.names() == ["phase_start", "phase_artifact", "phase_end"]
    artifact = events.of("phase_artifact")[0]
    assert artifact["kind"] == "verification"
    assert set(artifact["artifact"]) == {"passed", "checks", "diagnosis", "caveats"}
    assert events.of("phase_end")[0]["tokensUsed"]["total"] == 0
