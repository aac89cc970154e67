"""The explainer alone, as a function of a constructed state: step results from the demo
retailer, the real chart service, a scripted model."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import BaseMessage
from tests.fakes.scripted_model import Reply
from tests.integration.agent.conftest import Retail
from tests.integration.agent.pipeline.pipeline_runs import Phase, pipeline_phase, spec, sql_plan

from dataagent.agent.pipeline.executor import execute
from dataagent.agent.pipeline.explainer import (
    NO_NARRATIVE,
    REVISIONS_USED_UP,
    explain,
    main_result,
)
from dataagent.agent.pipeline.state import (
    Ambiguity,
    CannotAnswer,
    Check,
    PlanArtifact,
    PlanStep,
    SqlResult,
    StepResult,
    VerificationReport,
)

REGIONS = "SELECT region, COUNT(*) AS stores FROM stores GROUP BY region ORDER BY region"
MONTHLY = (
    "SELECT substr(order_date, 1, 7) || '-01' AS month, COUNT(*) AS orders FROM orders "
    "WHERE order_date >= '2024-01-01' AND order_date < '2024-07-01' GROUP BY 1 ORDER BY 1"
)
BY_CHANNEL_AND_STATUS = (
    "SELECT channel, status, COUNT(*) AS orders FROM orders GROUP BY channel, status "
    "ORDER BY channel, status"
)

# Two measures of unlike sizes, one row per store: a scatter of the stores.
SIZE_AND_ORDERS = (
    "SELECT s.name AS store, s.square_feet, COUNT(o.id) AS orders FROM stores s "
    "JOIN orders o ON o.store_id = s.id GROUP BY s.name, s.square_feet ORDER BY s.name"
)
PRICES = "SELECT unit_cost, unit_price FROM products ORDER BY id LIMIT 40"


async def _results(phase: Phase, *sqls: str) -> list[StepResult]:
    """Step results of these queries, run by the executor (one step each)."""
    steps = [PlanStep(id=i, description=f"Query {i}") for i in range(1, len(sqls) + 1)]
    specs = [spec(i, sql) for i, sql in enumerate(sqls, start=1)]
    state = phase.state("q", plan=sql_plan(*steps), query_specs=specs)
    results: list[StepResult] = (await execute(state, phase.run))["step_results"]
    phase.events.events.clear()
    return results


def _streamed(phase: Phase) -> str:
    return "".join(c["chunk"] for c in phase.events.of("message_chunk"))


async def test_the_narrative_is_streamed_and_grounded_in_the_results(retail: Retail) -> None:
    seen: list[list[BaseMessage]] = []

    def narrate(messages: list[BaseMessage]) -> Reply:
        seen.append(messages)
        return Reply(text="The South and the West have 3 stores each; 10 stores in all.", piece=7)

    phase = await pipeline_phase(retail, "How many stores per region?", [narrate])
    results = await _results(phase, REGIONS)
    plan = sql_plan(PlanStep(id=1, description="Query 1"))
    plan.intent = "Count the stores of each region"
    state = phase.state("How many stores per region?", plan=plan, step_results=results)

    out = await explain(state, phase.run)

    assert out["status"] == "complete"
    output = out["explainer_output"]
    assert output.narrative == "The South and the West have 3 stores each; 10 stores in all."
    assert _streamed(phase) == output.narrative  # chunk by chunk, nothing else
    assert len(phase.events.of("message_chunk")) > 1
    assert phase.calls() == [("explainer", "narrative", None)]
    assert phase.events.of("llm_call_start")[0]["phase"] == "explainer"
    material = str(seen[0][-1].content)
    assert "Count the stores of each region" in material
    assert "| region | stores |" in material and "| Midwest | 2 |" in material
    assert output.caveats == [] and output.assumptions == []
    # Lineage from the executed SQL, per step and merged.
    assert output.data_lineage is not None
    assert output.data_lineage.datasets == ["stores"]
    assert output.data_lineage.grain == "region" and output.data_lineage.row_count == 4
    assert [x.step_id for x in output.step_lineage] == [1]


async def test_a_number_the_results_do_not_hold_is_a_caveat(retail: Retail) -> None:
    phase = await pipeline_phase(
        retail, "Stores per region?", [Reply(text="The West has 3 stores, 37.5% of 12,345.")]
    )
    results = await _results(phase, REGIONS)
    state = phase.state("Stores per region?", plan=sql_plan(PlanStep(id=1, description="q")))
    state["step_results"] = results
    output = (await explain(state, phase.run))["explainer_output"]
    assert output.caveats == [
        "The answer states numbers the query results do not contain: 37.5%, 12,345. Check them."
    ]


async def test_assumptions_are_appended_and_streamed(retail: Retail) -> None:
    phase = await pipeline_phase(retail, "Stores per region?", [Reply(text="Four regions.")])
    results = await _results(phase, REGIONS)
    plan = sql_plan(PlanStep(id=1, description="q"))
    plan.ambiguities = [
        Ambiguity(question="Open stores only?", assumption="Every store counts, open or not."),
        Ambiguity(question="Which regions?", assumption="All four regions."),
    ]
    state = phase.state("Stores per region?", plan=plan, step_results=results)
    output = (await explain(state, phase.run))["explainer_output"]
    assert output.narrative == (
        "Four regions.\n\n## Assumptions\n\n- Every store counts, open or not.\n- All four regions."
    )
    assert output.assumptions == ["Every store counts, open or not.", "All four regions."]
    assert _streamed(phase) == output.narrative


@pytest.mark.parametrize(
    ("sql", "chart_type"),
    [
        (REGIONS, "bar"),
        (MONTHLY, "line"),
        (BY_CHANNEL_AND_STATUS, "stacked_bar"),
        (SIZE_AND_ORDERS, "scatter"),
        (PRICES, "scatter"),
    ],
)
async def test_the_chart_is_chosen_from_the_results_shape(
    retail: Retail, sql: str, chart_type: str
) -> None:
    phase = await pipeline_phase(retail, "Chart it", [Reply(text="Here it is.")])
    results = await _results(phase, sql)
    state = phase.state("Chart it", plan=sql_plan(PlanStep(id=1, description="q")))
    state["step_results"] = results
    output = (await explain(state, phase.run))["explainer_output"]
    (chart,) = phase.events.of("chart")
    assert chart["chartType"] == chart_type and chart["spec"]["$schema"].startswith("https://")
    assert output.charts == [{k: chart[k] for k in ("id", "url", "title", "chartType")}]
    assert phase.run.scope.charts == output.charts


async def test_a_scatter_of_two_measures_names_each_point(retail: Retail) -> None:
    phase = await pipeline_phase(retail, "Do bigger stores sell more?", [Reply(text="Yes.")])
    results = await _results(phase, SIZE_AND_ORDERS)
    state = phase.state(
        "Do bigger stores sell more?", plan=sql_plan(PlanStep(id=1, description="q"))
    )
    state["step_results"] = results
    await explain(state, phase.run)
    (chart,) = phase.events.of("chart")
    spec = chart["spec"]
    assert chart["title"] == "Orders against square feet"
    assert spec["mark"]["type"] == "point"
    assert {spec["encoding"][axis]["field"] for axis in ("x", "y")} == {"square_feet", "orders"}
    assert {spec["encoding"][axis]["type"] for axis in ("x", "y")} == {"quantitative"}
    assert spec["encoding"]["tooltip"][0]["field"] == "store"
    rows = results[0].sql_result.rows if results[0].sql_result else []
    assert spec["data"]["values"] == [
        {"square_feet": size, "orders": orders, "store": store} for store, size, orders in rows
    ]
    assert len(rows) == 10


async def test_no_chart_for_a_single_number(retail: Retail) -> None:
    phase = await pipeline_phase(retail, "How many?", [Reply(text="There are 10 stores.")])
    results = await _results(phase, "SELECT COUNT(*) AS stores FROM stores")
    state = phase.state("How many?", plan=sql_plan(PlanStep(id=1, description="q")))
    state["step_results"] = results
    output = (await explain(state, phase.run))["explainer_output"]
    assert phase.events.of("chart") == [] and output.charts == []
    assert output.caveats == []


async def test_failed_checks_and_used_up_revisions_are_caveats(retail: Retail) -> None:
    seen: list[str] = []

    def narrate(messages: list[BaseMessage]) -> Reply:
        seen.append(str(messages[-1].content))
        return Reply(text="Probably four regions.")

    phase = await pipeline_phase(retail, "Stores per region?", [narrate])
    results = await _results(phase, REGIONS)
    failed = StepResult(step_id=2, description="Query 2", error="no such column: nope")
    results.append(failed)
    report = VerificationReport(
        passed=False,
        checks=[
            Check(name="grain", passed=False, message="The query groups by city, not region."),
            Check(name="empty", passed=True, message="Rows came back."),
        ],
        recommended_target="sql_builder",
        caveats=["An acceptance check could not run in the sandbox."],
    )
    plan = sql_plan(PlanStep(id=1, description="Query 1"), PlanStep(id=2, description="Query 2"))
    state = phase.state(
        "Stores per region?",
        plan=plan,
        step_results=results,
        verification=report,
        revision_count=4,
    )
    output = (await explain(state, phase.run))["explainer_output"]
    assert output.caveats[0] == "The query groups by city, not region."
    assert output.caveats[1] == "An acceptance check could not run in the sandbox."
    assert output.caveats[2] == "Step 2 (Query 2) failed: no such column: nope"
    assert output.caveats[3] == REVISIONS_USED_UP
    assert REVISIONS_USED_UP.startswith("Maximum revision attempts reached")
    assert "The query groups by city, not region." in seen[0]
    assert "This step failed:" in seen[0]
    # The failed step has no lineage; the one that ran does.
    assert [x.step_id for x in output.step_lineage] == [1]


async def test_a_model_that_writes_nothing_gets_a_default(retail: Retail) -> None:
    phase = await pipeline_phase(retail, "Stores?", [Reply(text="")])
    results = await _results(phase, REGIONS)
    state = phase.state("Stores?", plan=sql_plan(PlanStep(id=1, description="q")))
    state["step_results"] = results
    output = (await explain(state, phase.run))["explainer_output"]
    assert output.narrative == NO_NARRATIVE == _streamed(phase)


async def test_the_refusal_costs_no_model_call(retail: Retail) -> None:
    phase = await pipeline_phase(retail, "What is the weather in Paris?", [])
    refusal = CannotAnswer(reason="no dataset holds weather", missing_datasets=["weather"])
    state = phase.state("What is the weather in Paris?", cannot_answer=refusal)
    output = (await explain(state, phase.run))["explainer_output"]
    assert phase.calls() == []
    text = output.narrative
    assert text.startswith("I can't answer this from the data in this ontology: ")
    assert "no dataset holds weather." in text and "**weather**" in text
    for name in ("stores", "orders", "customers"):
        assert f"- **{name}**" in text
    assert "You could ask, for example:" in text
    assert _streamed(phase) == text
    assert output.data_lineage is None and output.charts == []


async def test_a_conversational_question_is_one_streamed_call(retail: Retail) -> None:
    seen: list[list[BaseMessage]] = []

    def reply(messages: list[BaseMessage]) -> Reply:
        seen.append(messages)
        return Reply(text="Hello! I can answer questions about stores, orders and customers.")

    phase = await pipeline_phase(retail, "Hi, what can you do?", [reply])
    plan = PlanArtifact(complexity="conversational", intent="greeting")
    state = phase.state(
        "Hi, what can you do?",
        plan=plan,
        preferences={"preferred_output_format": "bullet points"},
    )
    state["conversation"] = "User: earlier question\nAssistant: earlier answer"
    output = (await explain(state, phase.run))["explainer_output"]
    assert phase.calls() == [("explainer", "conversation", None)]
    assert output.narrative == _streamed(phase) and output.narrative.startswith("Hello!")
    system, human = (str(m.content) for m in seen[0])
    assert "## User Preferences" in system and "- preferred_output_format: bullet points" in system
    assert "earlier answer" in human and "- stores" in human


def test_the_main_result_is_the_last_sql_step_that_succeeded() -> None:
    def result(step_id: int, **fields: Any) -> StepResult:
        return StepResult(step_id=step_id, **fields)

    rows = SqlResult(sql="SELECT 1", columns=["a"], rows=[[1]], row_count=1)
    results = [result(1, sql_result=rows), result(2, sql_result=rows, error="x"), result(3)]
    assert main_result(results) is results[0]
    assert main_result([]) is None


async def test_lineage_names_the_time_window_and_grain_of_the_sql_that_ran(
    retail: Retail,
) -> None:
    phase = await pipeline_phase(retail, "Orders per month?", [Reply(text="Monthly orders.")])
    results = await _results(phase, MONTHLY)
    state = phase.state("Orders per month?", plan=sql_plan(PlanStep(id=1, description="q")))
    state["step_results"] = results
    lineage = (await explain(state, phase.run))["explainer_output"].data_lineage
    assert lineage is not None
    assert lineage.datasets == ["orders"]
    assert lineage.time_window == "order_date >= '2024-01-01' AND order_date < '2024-07-01'"
    assert lineage.grain == "SUBSTRING(order_date, 1, 7) || '-01'"  # GROUP BY 1, resolved
    assert lineage.row_count == 6
