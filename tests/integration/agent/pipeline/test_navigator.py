"""The navigator as a typed function of a state, over the demo retailer: join paths with no
model call when the plan names known datasets; the model's mini-ReAct over the ontology when
it names ones the ontology lacks; a refusal when nothing fits."""

from __future__ import annotations

from typing import Any

from tests.fakes.scripted_model import Reply, ToolCall, call
from tests.integration.agent.conftest import Retail
from tests.integration.agent.pipeline.phase_run import phase_run, state_of

from dataagent.agent.pipeline.navigator import MAX_SEARCH_ROUNDS, navigate
from dataagent.agent.pipeline.state import CannotAnswer, JoinPlanArtifact, PlanArtifact

QUESTION = "Revenue per customer segment"


def plan_of(*datasets: list[str], query_plan: dict[str, Any] | None = None) -> PlanArtifact:
    steps = [
        {"id": n, "description": f"Step {n}", "strategy": "sql", "datasets": names}
        for n, names in enumerate(datasets, start=1)
    ]
    if query_plan is not None:
        steps[0]["queryPlan"] = query_plan
    return PlanArtifact.model_validate({"complexity": "simple", "steps": steps})


async def test_known_datasets_get_their_join_tree_without_a_model_call(retail: Retail) -> None:
    query_plan = {
        "measures": [{"field": "order_items.quantity", "aggregation": "sum"}],
        "dimensions": [{"field": "customers.segment"}],
    }
    phase = await phase_run(retail, QUESTION, [])  # any model call would fail the test
    plan = plan_of(["Customers"], query_plan=query_plan)
    updates = await navigate(state_of(QUESTION, plan=plan), phase.run)
    join_plan = updates["join_plan"]
    assert isinstance(join_plan, JoinPlanArtifact)
    assert not join_plan.searched and phase.model.calls == []
    [path] = join_plan.join_paths
    assert set(path.datasets) == {"customers", "orders", "order_items"}
    assert join_plan.step_datasets == {1: ["customers", "order_items"]}
    names = [d.name for d in join_plan.relevant_datasets]
    assert set(names) == {"customers", "orders", "order_items"}
    assert all(f"name: {d.name}" in d.yaml for d in join_plan.relevant_datasets)
    assert join_plan.notes == ""


async def test_a_missing_dataset_is_searched_for_by_the_model(retail: Retail) -> None:
    script = [
        Reply(tool_calls=[call("list_datasets")]),
        Reply(tool_calls=[call("get_dataset_details", datasetNames=["orders"])]),
        Reply(tool_calls=[call("get_relationships", datasetNames=["orders"])]),
        Reply(tool_calls=[call("choose_datasets", datasets=["orders"], reason="sales = orders")]),
    ]
    phase = await phase_run(retail, "How many sales per channel?", script)
    plan = plan_of(["sales"])
    updates = await navigate(state_of("How many sales per channel?", plan=plan), phase.run)
    join_plan = updates["join_plan"]
    assert join_plan.searched
    assert join_plan.step_datasets == {1: ["orders"]}
    assert [p.datasets for p in join_plan.join_paths] == [("orders",)]
    assert "The plan named sales, which the semantic model lacks" in join_plan.notes
    calls = phase.run.client.calls
    assert len(calls) == 4 and {c.phase for c in calls} == {"navigator"}
    names = phase.events.names()
    assert names == ["tool_start", "tool_end"] * 4
    starts = phase.events.of("tool_start")
    assert [s["name"] for s in starts] == [
        "list_datasets",
        "get_dataset_details",
        "get_relationships",
        "choose_datasets",
    ]
    assert all(s["phase"] == "navigator" for s in starts)
    ends = phase.events.of("tool_end")
    assert "orders" in ends[0]["result"]
    assert "orders.customer_id = customers.id" in ends[2]["result"]
    assert [c["name"] for c in phase.run.tool_calls][:2] == ["list_datasets", "get_dataset_details"]
    # The prompt names what is missing.
    assert "sales" in str(phase.model.calls[0][0].content)
    assert [t["function"]["name"] for t in phase.model.tools_seen[0]] == [
        "get_dataset_details",
        "list_datasets",
        "get_relationships",
        "choose_datasets",
    ]


async def test_nothing_that_fits_is_a_refusal_listing_what_the_ontology_covers(
    retail: Retail,
) -> None:
    script = [
        Reply(tool_calls=[call("list_datasets")]),
        Reply(
            tool_calls=[call("choose_datasets", datasets=[], reason="There is no weather data.")]
        ),
    ]
    phase = await phase_run(retail, "What was the weather?", script)
    plan = plan_of(["weather"])
    updates = await navigate(state_of("What was the weather?", plan=plan), phase.run)
    refusal = updates["cannot_answer"]
    assert isinstance(refusal, CannotAnswer) and "join_plan" not in updates
    assert refusal.reason == "There is no weather data."
    assert refusal.missing_datasets == ["weather"]
    assert set(refusal.available_datasets) >= {"orders", "customers", "stores"}


async def test_a_failing_tool_call_is_a_tool_error_the_search_recovers_from(
    retail: Retail,
) -> None:
    script = [
        Reply(tool_calls=[call("get_dataset_details", datasetNames=["sales"])]),
        Reply(text="The orders dataset holds the sales."),
    ]
    phase = await phase_run(retail, "Sales per store", script)
    updates = await navigate(state_of("Sales per store", plan=plan_of([])), phase.run)
    assert updates["join_plan"].step_datasets == {1: ["orders"]}
    [error] = phase.events.of("tool_error")
    assert error["phase"] == "navigator" and "NOT_FOUND" in error["error"]
    assert phase.run.tool_calls[0]["isError"] is True


async def test_a_search_that_never_chooses_ends_after_eight_rounds(retail: Retail) -> None:
    malformed = Reply(tool_calls=[ToolCall("get_dataset_details", raw_args='{"datasetNames": [')])
    phase = await phase_run(retail, "What was the weather?", [malformed] * 8)
    updates = await navigate(
        state_of("What was the weather?", plan=plan_of(["weather"])), phase.run
    )
    assert len(phase.model.calls) == MAX_SEARCH_ROUNDS
    refusal = updates["cannot_answer"]
    assert refusal.reason == "The search ended after 8 rounds without a choice."
    errors = phase.events.of("tool_error")
    assert len(errors) == MAX_SEARCH_ROUNDS and "not valid JSON" in errors[0]["error"]


async def test_a_revision_sent_here_passes_the_diagnosis_on(retail: Retail) -> None:
    phase = await phase_run(retail, QUESTION, [])
    state = state_of(QUESTION, plan=plan_of(["customers", "order_items"]))
    first = (await navigate(state, phase.run))["join_plan"]
    diagnosis = "fan_out: SUM(quantity) is inflated by the join to order_items"
    state.update(  # type: ignore[typeddict-item]
        join_plan=first, revision_target="navigator", revision_diagnosis=diagnosis
    )
    again = (await navigate(state, phase.run))["join_plan"]
    assert f"Revision asked by the verifier: {diagnosis}" in again.notes
    assert phase.model.calls == []


async def test_a_revision_after_a_search_keeps_its_choice_without_searching_again(
    retail: Retail,
) -> None:
    choose = Reply(tool_calls=[call("choose_datasets", datasets=["orders", "stores"])])
    phase = await phase_run(retail, "Sales per region", [choose])
    state = state_of("Sales per region", plan=plan_of(["sales", "regions"]))
    first = (await navigate(state, phase.run))["join_plan"]
    assert first.searched and first.step_datasets == {1: ["orders", "stores"]}
    state.update(  # type: ignore[typeddict-item]
        join_plan=first, revision_target="navigator", revision_diagnosis="join_key: wrong key"
    )
    again = (await navigate(state, phase.run))["join_plan"]
    assert len(phase.model.calls) == 1  # the search ran once
    assert again.searched and again.step_datasets == first.step_datasets
    assert [p.datasets for p in again.join_paths] == [("orders", "stores")]
