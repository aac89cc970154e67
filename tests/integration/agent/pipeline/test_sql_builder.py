"""The SQL builder as a typed function of a state, over the demo retailer: a QueryPlan is
compiled with no model call; otherwise the model writes the SQL from the step, the join path
and the YAML; an unknown column is caught before anything runs and written once more."""

from __future__ import annotations

import json
from typing import Any

from tests.fakes.scripted_model import Reply
from tests.integration.agent.conftest import Retail
from tests.integration.agent.pipeline.phase_run import PhaseRun, phase_run, state_of

from dataagent.agent.pipeline.navigator import navigate
from dataagent.agent.pipeline.planner import plan
from dataagent.agent.pipeline.sql_builder import build_sql
from dataagent.agent.pipeline.state import (
    Check,
    PipelineState,
    PlanArtifact,
    QuerySpec,
    VerificationReport,
)
from dataagent.services import queries

COUNT_BY_STATUS = {
    "measures": [{"field": "orders.*", "aggregation": "count", "alias": "orders"}],
    "dimensions": [{"field": "orders.status"}],
    "order": [{"by": "orders", "direction": "desc"}],
}
TOP_CUSTOMERS = (
    "SELECT c.segment, COUNT(*) AS orders FROM orders o JOIN customers c "
    "ON o.customer_id = c.id GROUP BY c.segment"
)


def draft(sql: str, columns: list[str] | None = None, notes: str = "") -> Reply:
    body = {"sql": sql, "expectedColumns": columns or [], "notes": notes}
    return Reply(text=json.dumps(body))


def plan_of(*steps: dict[str, Any]) -> PlanArtifact:
    return PlanArtifact.model_validate({"complexity": "analytical", "steps": list(steps)})


async def planned(
    retail: Retail, plan: PlanArtifact, script: list[Any]
) -> tuple[PhaseRun, PipelineState]:
    """A run and a state whose join plan the navigator made (no model call: known datasets)."""
    phase = await phase_run(retail, "question", script)
    state = state_of("question", plan=plan)
    state.update(await navigate(state, phase.run))  # type: ignore[typeddict-item]
    return phase, state


async def test_a_query_plan_is_compiled_with_no_model_call(retail: Retail) -> None:
    plan = plan_of(
        {
            "id": 1,
            "description": "Orders per status",
            "datasets": ["orders"],
            "queryPlan": COUNT_BY_STATUS,
        }
    )
    phase, state = await planned(retail, plan, [])
    [spec] = (await build_sql(state, phase.run))["query_specs"]
    assert isinstance(spec, QuerySpec)
    assert spec.origin == "plan" and phase.model.calls == []
    assert spec.expected_columns == ["status", "orders"]
    assert "COUNT(*)" in spec.full_sql and "LIMIT" not in spec.full_sql.upper()
    assert spec.pilot_sql.rstrip().upper().endswith("LIMIT 10")
    # The pilot runs as it is, through the guard and the ontology's allow-list.
    run = phase.run
    async with run.ctx.database.session() as session:
        recorded = await queries.run_and_record(
            run.ctx, session, run.scope.owner_id, run.scope.target, spec.pilot_sql, pilot=True
        )
    assert recorded.result.columns == ["status", "orders"]
    assert 1 <= len(recorded.result.rows) <= 10


async def test_a_step_without_a_plan_is_written_by_the_model(retail: Retail) -> None:
    plan = plan_of(
        {"id": 1, "description": "Orders per segment", "datasets": ["orders", "customers"]},
        {"id": 2, "description": "Chart it", "strategy": "python", "dependsOn": [1]},
    )
    phase, state = await planned(retail, plan, [draft(TOP_CUSTOMERS, ["segment", "orders"])])
    [spec] = (await build_sql(state, phase.run))["query_specs"]
    assert spec.origin == "model" and spec.step_id == 1
    assert spec.full_sql == TOP_CUSTOMERS and spec.expected_columns == ["segment", "orders"]
    assert "LIMIT 10" in spec.pilot_sql and "Problem" not in spec.notes
    [call] = phase.run.client.calls
    assert (call.phase, call.purpose, call.step_id) == ("sql_builder", "step_sql", 1)
    prompt = str(phase.model.calls[0][0].content)
    assert "orders.customer_id = customers.id (many-to-one" in prompt
    assert "### customers" in prompt and "name: segment" in prompt
    assert "The database is" not in prompt and "Write SQLite SQL" in prompt
    assert "### products" not in prompt  # only the step's datasets


async def test_an_unknown_column_is_caught_and_written_once_more(retail: Retail) -> None:
    bad = "SELECT segment_name, COUNT(*) FROM customers GROUP BY segment_name"
    good = "SELECT segment, COUNT(*) AS customers FROM customers GROUP BY segment"
    plan = plan_of({"id": 1, "description": "Customers per segment", "datasets": ["customers"]})
    phase, state = await planned(retail, plan, [draft(bad), draft(good)])
    [spec] = (await build_sql(state, phase.run))["query_specs"]
    assert spec.full_sql == good and "Problem" not in spec.notes
    assert len(phase.model.calls) == 2
    again = str(phase.model.calls[1][0].content)
    assert "## Problem to Fix" in again
    assert "segment_name" in again and bad in again


async def test_sql_still_bad_after_one_regeneration_keeps_the_problem(retail: Retail) -> None:
    derived = "SELECT SUM(line_amount) FROM order_items"
    plan = plan_of({"id": 1, "description": "Revenue", "datasets": ["order_items"]})
    phase, state = await planned(retail, plan, [draft(derived), draft(derived)])
    [spec] = (await build_sql(state, phase.run))["query_specs"]
    assert len(phase.model.calls) == 2
    assert spec.notes.startswith("Problem: the SQL reads a column the semantic model does not")
    # The derived field is named with its expression.
    assert "order_items.line_amount = `quantity * unit_price`" in spec.notes


async def test_a_table_outside_the_ontology_is_refused_before_anything_runs(
    retail: Retail,
) -> None:
    plan = plan_of({"id": 1, "description": "Tables", "datasets": ["orders"]})
    script = [draft("SELECT name FROM sqlite_master"), draft("SELECT COUNT(*) AS n FROM orders")]
    phase, state = await planned(retail, plan, script)
    [spec] = (await build_sql(state, phase.run))["query_specs"]
    assert spec.full_sql == "SELECT COUNT(*) AS n FROM orders"
    assert "SQL policy violation" in str(phase.model.calls[1][0].content)


async def test_a_query_plan_that_does_not_compile_falls_back_to_the_model(
    retail: Retail,
) -> None:
    wrong = {"measures": [{"field": "orders.amount", "aggregation": "sum"}]}
    plan = plan_of(
        {"id": 1, "description": "Order amounts", "datasets": ["orders"], "queryPlan": wrong}
    )
    phase, state = await planned(retail, plan, [draft("SELECT COUNT(*) AS n FROM orders")])
    [spec] = (await build_sql(state, phase.run))["query_specs"]
    assert spec.origin == "model"
    prompt = str(phase.model.calls[0][0].content)
    assert "its QueryPlan did not compile" in prompt and "amount" in prompt


async def test_a_revision_rewrites_only_the_steps_the_verifier_failed(retail: Retail) -> None:
    plan = plan_of(
        {
            "id": 1,
            "description": "Orders per status",
            "datasets": ["orders"],
            "queryPlan": COUNT_BY_STATUS,
        },
        {"id": 2, "description": "Orders per segment", "datasets": ["orders", "customers"]},
    )
    fixed = TOP_CUSTOMERS.replace("JOIN customers", "LEFT JOIN customers")
    phase, state = await planned(retail, plan, [draft(TOP_CUSTOMERS), draft(fixed)])
    state.update(await build_sql(state, phase.run))  # type: ignore[typeddict-item]
    first = state["query_specs"]
    report = VerificationReport(
        passed=False,
        checks=[
            Check(name="grain", passed=True, step_id=1),
            Check(name="null_key_loss", passed=False, step_id=2, target="sql_builder"),
        ],
        diagnosis="Step 2's inner join drops orders without a customer.",
        recommended_target="sql_builder",
    )
    state.update(  # type: ignore[typeddict-item]
        verification=report,
        revision_target="sql_builder",
        revision_diagnosis=report.diagnosis,
        revision_count=1,
    )
    again = (await build_sql(state, phase.run))["query_specs"]
    assert again[0] is first[0]  # untouched: no call
    assert again[1].full_sql == fixed
    assert len(phase.model.calls) == 2
    prompt = str(phase.model.calls[1][0].content)
    assert "## Revision" in prompt and "drops orders without a customer" in prompt
    assert TOP_CUSTOMERS in prompt


async def test_a_simple_question_costs_one_call_through_the_first_three_phases(
    retail: Retail,
) -> None:
    simple = {
        "complexity": "simple",
        "steps": [
            {
                "id": 1,
                "description": "Orders per status",
                "datasets": ["orders"],
                "queryPlan": COUNT_BY_STATUS,
            }
        ],
    }
    phase = await phase_run(retail, "Orders per status?", [Reply(text=json.dumps(simple))])
    state = state_of("Orders per status?")
    for step in (plan, navigate, build_sql):
        state.update(await step(state, phase.run))  # type: ignore[typeddict-item]
    assert [c.phase for c in phase.run.client.calls] == ["planner"]
    [spec] = state["query_specs"]
    assert spec.origin == "plan"
