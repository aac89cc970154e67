"""The executor alone, as a function of a constructed state: the demo retailer's SQLite
database, the real SQL guard and query records, the real sandbox, a scripted model."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import BaseMessage
from tests.fakes.scripted_model import Reply
from tests.integration.agent.conftest import Retail
from tests.integration.agent.pipeline.pipeline_runs import (
    pipeline_phase,
    records_of,
    spec,
    sql_plan,
)
from tests.integration.sandbox.conftest import require_bwrap

from dataagent.agent.pipeline.executor import STEP_ROWS_KEPT, dependency_order, execute
from dataagent.agent.pipeline.state import PlanArtifact, PlanStep, StepResult
from dataagent.errors import DataAgentError, ErrorCode
from dataagent.semantic.compiler import compile_plan
from dataagent.semantic.plan import QueryPlan

REGIONS = "SELECT region, COUNT(*) AS stores FROM stores GROUP BY region ORDER BY region"
BAD = "SELECT regionn, COUNT(*) AS stores FROM stores GROUP BY regionn"


def _tool_events(events: list[tuple[str, dict[str, Any]]]) -> list[tuple[str, Any]]:
    return [
        (name, data.get("args", {}).get("pilot") if name == "tool_start" else data.get("stepId"))
        for name, data in events
        if name.startswith(("tool_", "step_"))
    ]


async def test_a_sql_step_runs_its_pilot_then_its_full_query(retail: Retail) -> None:
    phase = await pipeline_phase(retail, "How many stores per region?", [])
    step = PlanStep(id=1, description="Stores per region", datasets=["stores"])
    state = phase.state(
        phase.run.scope.question or "", plan=sql_plan(step), query_specs=[spec(1, REGIONS)]
    )

    out = await execute(state, phase.run)

    (result,) = out["step_results"]
    assert isinstance(result, StepResult) and result.error is None and not result.repaired
    assert result.sql_result is not None
    assert result.sql_result.columns == ["region", "stores"]
    assert result.sql_result.rows == [["Midwest", 2], ["South", 3], ["Southeast", 2], ["West", 3]]
    assert result.sql_result.row_count == 4 and result.sql_result.sql == REGIONS
    assert phase.calls() == []  # no model call
    names = [(n, d) for n, d in phase.events.events]
    assert [n for n, _ in names] == [
        "step_start",
        "tool_start",
        "tool_end",
        "tool_start",
        "tool_end",
        "step_complete",
    ]
    assert names[0][1] == {"stepId": 1, "description": "Stores per region", "strategy": "sql"}
    starts = phase.events.of("tool_start")
    assert [s["args"]["pilot"] for s in starts] == [True, False]
    assert all(s["phase"] == "executor" and s["stepId"] == 1 for s in starts)
    assert all(s["name"] == "query_database" for s in starts)
    assert [e["result"] for e in phase.events.of("tool_end")] == ["4 rows", "4 rows"]
    assert phase.events.of("step_complete") == [{"stepId": 1, "status": "ok", "rowCount": 4}]
    # Both runs are recorded, linked to the answer's run; the last is the step's record.
    records = await records_of(retail, phase.run_id)
    assert [(r.result_summary or {}).get("pilot") for r in records] == [True, False]
    assert result.sql_result.query_record_id == str(records[-1].id)
    assert [c["name"] for c in phase.run.tool_calls] == ["query_database"] * 2
    assert phase.run.scope.datasets_used == ["stores"] and phase.run.scope.queries_run == 2


async def test_a_compiled_step_is_recorded_as_a_plan_run(retail: Retail) -> None:
    phase = await pipeline_phase(retail, "Stores per region", [])
    query_plan = QueryPlan.model_validate(
        {
            "measures": [{"field": "stores.id", "aggregation": "count", "alias": "stores"}],
            "dimensions": [{"field": "stores.region", "alias": "region"}],
            "order": [{"by": "region"}],
        }
    )
    step = PlanStep(id=1, description="Stores per region", query_plan=query_plan)
    model = phase.run.model
    sql = compile_plan(query_plan, model, model.dialect).sql
    state = phase.state("Stores", plan=sql_plan(step), query_specs=[spec(1, sql, origin="plan")])
    (result,) = (await execute(state, phase.run))["step_results"]
    assert result.sql_result is not None and result.sql_result.row_count == 4
    records = await records_of(retail, phase.run_id)
    assert [r.mode for r in records] == ["plan", "plan"]
    assert records[-1].plan == query_plan.model_dump(mode="json")


async def test_a_failing_query_is_repaired_once(retail: Retail) -> None:
    seen: list[str] = []

    def repair(messages: list[BaseMessage]) -> Reply:
        seen.append(str(messages[-1].content))
        return Reply(text=f"Here it is:\n```sql\n{REGIONS}\n```")

    phase = await pipeline_phase(retail, "Stores per region", [repair])
    step = PlanStep(id=1, description="Stores per region", datasets=["stores"])
    state = phase.state("Stores per region", plan=sql_plan(step), query_specs=[spec(1, BAD)])

    (result,) = (await execute(state, phase.run))["step_results"]

    assert result.error is None and result.repaired
    assert result.sql_result is not None and result.sql_result.sql == REGIONS
    assert result.sql_result.row_count == 4
    assert phase.calls() == [("executor", "sql_repair", 1)]
    # The repair saw the SQL, the database's error and the datasets' YAML.
    (material,) = seen
    assert "regionn" in material and "Error: QUERY_FAILED" in material
    assert "name: stores" in material
    names = phase.events.names()
    assert names.count("tool_error") == 1
    (error,) = phase.events.of("tool_error")
    assert error["phase"] == "executor" and error["stepId"] == 1
    assert error["code"] == "QUERY_FAILED" and error["name"] == "query_database"
    # The repair's model call carries the phase and the step.
    (start,) = phase.events.of("llm_call_start")
    assert (start["phase"], start["purpose"], start["stepId"]) == ("executor", "sql_repair", 1)
    assert phase.events.of("token_update")[0]["phase"] == "executor"
    assert [c["isError"] for c in phase.run.tool_calls] == [True, False, False]


async def test_a_repair_that_fails_leaves_the_error_on_the_step(retail: Retail) -> None:
    phase = await pipeline_phase(
        retail, "Stores per region", [Reply(text=f"```sql\n{BAD.replace('regionn', 'x')}\n```")]
    )
    steps = [
        PlanStep(id=1, description="Stores per region", datasets=["stores"]),
        PlanStep(id=2, description="Orders", datasets=["orders"]),
    ]
    specs = [spec(1, BAD), spec(2, "SELECT COUNT(*) AS n FROM orders")]
    state = phase.state("Stores", plan=sql_plan(*steps), query_specs=specs)

    first, second = (await execute(state, phase.run))["step_results"]

    assert first.repaired and first.sql_result is None
    assert first.error_code == "QUERY_FAILED" and first.error
    assert second.error is None and second.sql_result is not None  # the next step still runs
    assert len(phase.calls()) == 1  # one repair, no more
    assert phase.events.of("step_complete")[0] == {"stepId": 1, "status": "failed"}


async def test_a_query_outside_the_ontology_is_refused_by_the_guard(retail: Retail) -> None:
    phase = await pipeline_phase(retail, "Tables", [Reply(text="SELECT name FROM sqlite_master")])
    step = PlanStep(id=1, description="Tables")
    state = phase.state("Tables", plan=sql_plan(step), query_specs=[spec(1, "DELETE FROM stores")])
    (result,) = (await execute(state, phase.run))["step_results"]
    assert result.error_code == "SQL_POLICY_VIOLATION"
    assert [e["code"] for e in phase.events.of("tool_error")] == ["SQL_POLICY_VIOLATION"] * 2


async def test_a_rate_limit_ends_the_answer(
    retail: Retail, monkeypatch: pytest.MonkeyPatch
) -> None:
    phase = await pipeline_phase(retail, "Stores", [])
    pool = phase.run.ctx.query_pool

    async def refuse(owner: Any, fn: Any) -> Any:
        raise DataAgentError(ErrorCode.RATE_LIMITED, "Too many queries at once.")

    monkeypatch.setattr(pool, "run", refuse)
    step = PlanStep(id=1, description="Stores")
    state = phase.state("Stores", plan=sql_plan(step), query_specs=[spec(1, REGIONS)])
    with pytest.raises(DataAgentError) as caught:
        await execute(state, phase.run)
    assert caught.value.code is ErrorCode.RATE_LIMITED
    assert phase.calls() == []  # no repair of what no rewrite can fix


async def test_results_keep_at_most_a_hundred_rows(retail: Retail) -> None:
    phase = await pipeline_phase(retail, "Orders", [])
    step = PlanStep(id=1, description="Orders")
    sql = "SELECT id FROM orders ORDER BY id LIMIT 150"
    state = phase.state("Orders", plan=sql_plan(step), query_specs=[spec(1, sql)])
    (result,) = (await execute(state, phase.run))["step_results"]
    assert result.sql_result is not None
    assert len(result.sql_result.rows) == STEP_ROWS_KEPT and result.sql_result.row_count == 150
    assert result.sql_result.truncated


def test_dependency_order_and_its_problems() -> None:
    steps = [
        PlanStep(id=1, description="a", depends_on=[2]),
        PlanStep(id=2, description="b"),
        PlanStep(id=3, description="c", depends_on=[9]),
        PlanStep(id=4, description="d", depends_on=[5]),
        PlanStep(id=5, description="e", depends_on=[4]),
    ]
    order, problems = dependency_order(steps)
    assert [s.id for s in order] == [2, 3, 1, 4, 5]
    assert problems[3] == "Step 3 depends on step 9, which the plan does not have."
    assert (
        problems[4] == problems[5] == "Steps 4 and 5 cannot run: their dependencies form a cycle."
    )
    assert 1 not in problems and 2 not in problems


async def test_steps_run_after_their_dependencies_and_not_after_a_failed_one(
    retail: Retail,
) -> None:
    phase = await pipeline_phase(retail, "Two steps", [Reply(text="no SQL here, sorry")])
    steps = [
        PlanStep(id=1, description="second", depends_on=[2]),
        PlanStep(id=2, description="first"),
        PlanStep(id=3, description="after a failure", strategy="python", depends_on=[4]),
        PlanStep(id=4, description="fails"),
    ]
    specs = [spec(1, REGIONS), spec(2, "SELECT COUNT(*) AS n FROM stores"), spec(4, BAD)]
    # The planner's artifact refuses a step that depends on a later one; the executor still
    # orders by dependencies whatever plan it is given (built here without that check).
    plan = PlanArtifact.model_construct(complexity="analytical", intent="answer", steps=steps)
    state = phase.state("Two", plan=plan, query_specs=specs)
    results = (await execute(state, phase.run))["step_results"]
    assert [r.step_id for r in results] == [1, 2, 3, 4]  # plan order
    assert [e["stepId"] for e in phase.events.of("step_start")] == [2, 4, 1, 3]
    assert results[0].error is None and results[1].error is None
    assert results[3].error_code == "QUERY_FAILED"
    assert results[2].error == "Not run: it depends on step 4, which failed."
    assert results[2].error_code == "QUERY_FAILED"
    # The repair answered no SQL it could run: one call, then the step failed.
    assert phase.calls() == [("executor", "sql_repair", 4)]


STEP_2_CODE = """
total = int(step_1_data["stores"].sum())
print("regions:", len(step_1_data), "stores:", total)
"""

THEN_CODE = """
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
share = current_data["stores"] / current_data["stores"].sum()
print("largest share:", round(float(share.max()), 2), "of", len(current_data))
plt.bar(current_data["region"], current_data["stores"])
plt.savefig("stores_by_region.png")
"""


@pytest.mark.sandbox
async def test_a_python_step_reads_its_dependency_as_step_n_data(retail: Retail) -> None:
    require_bwrap()
    seen: list[str] = []

    def code(messages: list[BaseMessage]) -> Reply:
        seen.append(str(messages[-1].content))
        return Reply(text=f"```python\n{STEP_2_CODE}\n```")

    phase = await pipeline_phase(retail, "Stores in all", [code])
    steps = [
        PlanStep(id=1, description="Stores per region"),
        PlanStep(
            id=2,
            description="Total",
            strategy="python",
            depends_on=[1],
            analysis="Add up the stores.",
        ),
    ]
    state = phase.state(
        "Stores in all",
        plan=sql_plan(*steps, complexity="analytical"),
        query_specs=[spec(1, REGIONS)],
    )
    first, second = (await execute(state, phase.run))["step_results"]
    assert first.error is None
    assert second.error is None and second.python_result is not None
    assert second.python_result.stdout.strip() == "regions: 4 stores: 10"
    (material,) = seen
    assert "`step_1_data`: 4 rows" in material and "Add up the stores." in material
    assert "Midwest" in material  # a few rows of each DataFrame, not pasted into the code
    assert phase.calls() == [("executor", "python", 2)]
    python_start = phase.events.of("tool_start")[-1]
    assert python_start["name"] == "run_python" and python_start["stepId"] == 2
    assert python_start["args"] == {"code": STEP_2_CODE.strip()}
    assert phase.events.of("tool_end")[-1]["result"].strip() == "regions: 4 stores: 10"


@pytest.mark.sandbox
async def test_sql_then_python_reads_current_data_and_keeps_its_images(retail: Retail) -> None:
    require_bwrap()
    phase = await pipeline_phase(
        retail, "Share of stores", [Reply(text=f"```python{THEN_CODE}```")]
    )
    step = PlanStep(
        id=1, description="Stores per region, then their share", strategy="sql_then_python"
    )
    state = phase.state("Share", plan=sql_plan(step), query_specs=[spec(1, REGIONS)])
    (result,) = (await execute(state, phase.run))["step_results"]
    assert result.error is None
    assert result.sql_result is not None and result.sql_result.row_count == 4
    assert result.python_result is not None
    assert result.python_result.stdout.strip() == "largest share: 0.3 of 4"
    (chart,) = phase.events.of("chart")
    assert chart["chartType"] == "image" and chart["title"] == "stores by region"
    assert result.python_result.charts == phase.run.scope.charts
    assert phase.run.scope.charts[0]["id"] == chart["id"]
    assert [n for n in phase.events.names() if n.startswith("tool_")] == [
        "tool_start",
        "tool_end",
    ] * 3


@pytest.mark.sandbox
async def test_python_that_raises_fails_its_step(retail: Retail) -> None:
    require_bwrap()
    phase = await pipeline_phase(
        retail, "Broken", [Reply(text="```python\nprint(step_1_data['nope'])\n```")]
    )
    steps = [
        PlanStep(id=1, description="Stores per region"),
        PlanStep(id=2, description="Broken", strategy="python", depends_on=[1]),
    ]
    state = phase.state("Broken", plan=sql_plan(*steps), query_specs=[spec(1, REGIONS)])
    _, second = (await execute(state, phase.run))["step_results"]
    assert second.error_code == "LLM_ERROR"
    assert second.error is not None and "KeyError" in second.error
    (error,) = phase.events.of("tool_error")
    assert error["name"] == "run_python" and error["code"] == "LLM_ERROR"
