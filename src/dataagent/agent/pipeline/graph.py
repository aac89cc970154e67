"""The pipeline's graph: seed 001's six phases and its routes, compiled once per process.

    planner ──clarify──▶ END (clarification_needed)
       │ └─conversational──▶ explainer
       ▼
    navigator ──cannot answer──▶ explainer (a helpful refusal)
       ▼
    sql_builder ─▶ executor ─▶ verifier ──pass, or 3 revisions used──▶ explainer ─▶ END
                                   └──fail──▶ navigator | sql_builder (its recommendedTarget)

An answer the offline planner planned (`PipelineRun.offline`, the state's `offline`) takes
the same phases with no model call, and is never revised (the verifier's failures become
caveats).

Each node is a phase function of the state (`async (state, run) -> updates`), wrapped so
that it emits `phase_start`, its `phase_artifact` and `phase_end` and keeps the phase's time
and tokens. What belongs to one answer travels in the config as a `PipelineRun`.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Awaitable, Callable
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from pydantic import BaseModel

from dataagent.agent.pipeline import executor, explainer, navigator, planner, sql_builder, verifier
from dataagent.agent.pipeline.state import (
    MAX_REVISIONS,
    Phase,
    PipelineRun,
    PipelineState,
)
from dataagent.llm.usage import TokenUsage

PhaseFn = Callable[[PipelineState, PipelineRun], Awaitable[dict[str, Any]]]

DESCRIPTIONS: dict[Phase, str] = {
    "planner": "Decomposing the question into steps",
    "navigator": "Finding the datasets and join paths",
    "sql_builder": "Writing the SQL of each step",
    "executor": "Running the steps",
    "verifier": "Checking the results",
    "explainer": "Writing the answer",
}
# The state field each phase's artifact is streamed from (`phase_artifact`).
ARTIFACTS: dict[Phase, tuple[str, ...]] = {
    "planner": ("plan",),
    "navigator": ("join_plan", "cannot_answer"),
    "sql_builder": ("query_specs",),
    "executor": ("step_results",),
    "verifier": ("verification",),
    "explainer": (),
}


def run_of(config: RunnableConfig) -> PipelineRun:
    """The answer's `PipelineRun`, from the graph's config."""
    run = config.get("configurable", {}).get("pipeline")
    assert isinstance(run, PipelineRun), "the pipeline runs with its answer in the config"
    return run


def _json(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", by_alias=True, exclude_none=True)
    if isinstance(value, list):
        return [_json(item) for item in value]
    return value


def _usage_since(run: PipelineRun, first_call: int) -> TokenUsage:
    total = TokenUsage()
    for call in run.client.calls[first_call:]:
        total = total + call.usage
    return total


def phase_node(phase: Phase, fn: PhaseFn) -> Callable[..., Awaitable[dict[str, Any]]]:
    """`fn` as a graph node: `phase_start`, the phase, `phase_artifact`, `phase_end`."""

    async def node(state: PipelineState, config: RunnableConfig) -> dict[str, Any]:
        run = run_of(config)
        await run.emit("phase_start", {"phase": phase, "description": DESCRIPTIONS[phase]})
        started = time.perf_counter()
        first_call = len(run.client.calls)
        updates = await fn(state, run)
        elapsed = round((time.perf_counter() - started) * 1000)
        run.phase_ms[phase] = run.phase_ms.get(phase, 0) + elapsed
        used = _usage_since(run, first_call)
        run.phase_usage[phase] = run.phase_usage.get(phase, TokenUsage()) + used
        for key in ARTIFACTS[phase]:
            if updates.get(key) is not None:
                artifact = {"phase": phase, "kind": key, "artifact": _json(updates[key])}
                await run.emit("phase_artifact", artifact)
        await run.emit(
            "phase_end",
            {"phase": phase, "durationMs": elapsed, "tokensUsed": used.to_json()},
        )
        return updates

    return node


def after_planner(state: PipelineState) -> str:
    """Clarify → END; conversational → explainer; everything else → navigator."""
    plan = state.get("plan")
    if plan is not None and plan.should_clarify and plan.clarification_questions:
        return END
    if plan is not None and plan.complexity == "conversational":
        return "explainer"
    return "navigator"


def after_navigator(state: PipelineState) -> str:
    """Nothing in the ontology fits → explainer (a refusal); else → sql_builder."""
    return "explainer" if state.get("cannot_answer") is not None else "sql_builder"


def after_verifier(state: PipelineState) -> str:
    """Pass (or the revisions are used up) → explainer; else the recommended phase."""
    report = state.get("verification")
    if report is None or report.passed or state.get("offline"):
        # An offline answer is not revised (its revisions would need the model).
        return "explainer"
    if state.get("revision_count", 0) > MAX_REVISIONS or report.recommended_target is None:
        return "explainer"
    return report.recommended_target


@functools.cache
def pipeline_graph() -> CompiledStateGraph[Any, Any, Any, Any]:
    """The pipeline's graph, compiled once per process."""
    builder = StateGraph(PipelineState)
    builder.add_node("planner", phase_node("planner", planner.plan))
    builder.add_node("navigator", phase_node("navigator", navigator.navigate))
    builder.add_node("sql_builder", phase_node("sql_builder", sql_builder.build_sql))
    builder.add_node("executor", phase_node("executor", executor.execute))
    builder.add_node("verifier", phase_node("verifier", verifier.verify))
    builder.add_node("explainer", phase_node("explainer", explainer.explain))
    builder.add_edge(START, "planner")
    builder.add_conditional_edges("planner", after_planner, ["navigator", "explainer", END])
    builder.add_conditional_edges("navigator", after_navigator, ["sql_builder", "explainer"])
    builder.add_edge("sql_builder", "executor")
    builder.add_edge("executor", "verifier")
    builder.add_conditional_edges(
        "verifier", after_verifier, ["explainer", "navigator", "sql_builder"]
    )
    builder.add_edge("explainer", END)
    return builder.compile()
