"""Phase 1, the planner: the question decomposed into steps (seed 001's PlanArtifact).

Contract: `plan(state, run)` makes one structured-output model call (`run.client`,
phase `planner`) and returns `{"plan": PlanArtifact}`, plus `{"status":
"clarification_needed"}` when it asks (at most 3 questions, each with its assumption).

The prompt holds the retrieved datasets (their YAML), metrics and joins (`run.grounding`),
the preferences, the conversation and an answered clarification; the plan's invariants are
the artifact's validators, so a plan that breaks one is asked for again with the error
(`ChatClient.structured`). A question that answers a clarification is not asked again: a
plan that still asks is sent back once with that rule, the only other call this phase makes.

An answer the offline planner planned (`run.offline`) makes no call: its plan is the
artifact (`offline.plan_artifact`).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage

from dataagent.agent.pipeline.offline import plan_artifact
from dataagent.agent.pipeline.prompts import planner_prompt
from dataagent.agent.pipeline.state import PipelineRun, PipelineState, PlanArtifact
from dataagent.config import Settings

PURPOSE = "plan"
ASKED_AGAIN = (
    "The user has already answered the clarifying questions (or accepted their "
    "assumptions) in this message. Do not ask again: write the plan with the answers, or "
    "with your assumptions where they give none, with shouldClarify false and its steps."
)


def today(settings: Settings) -> dt.date:
    """The date the plan's relative time windows are read against: the setting
    `DATAAGENT_REFERENCE_DATE`, else today's UTC date."""
    return settings.reference_date or dt.datetime.now(dt.UTC).date()


def planner_messages(state: PipelineState, run: PipelineRun) -> list[BaseMessage]:
    """The planner's prompt and the question."""
    grounding = run.grounding
    prompt = planner_prompt(
        grounding.datasets,
        grounding.joins,
        grounding.metrics,
        run.model.dialect,
        today(run.ctx.settings),
        conversation=state.get("conversation", ""),
        preferences=state.get("preferences") or {},
        answered_clarification=state.get("answered_clarification") or [],
    )
    return [SystemMessage(prompt), HumanMessage(state["question"])]


async def plan(state: PipelineState, run: PipelineRun) -> dict[str, Any]:
    """The plan of the question (the offline planner's, with no call, when it planned it)."""
    if run.offline is not None:
        return {"plan": plan_artifact(state["question"], run.offline.plan)}
    messages = planner_messages(state, run)
    artifact = await run.client.structured(messages, PlanArtifact, phase="planner", purpose=PURPOSE)
    if artifact.should_clarify and state.get("answered_clarification"):
        again = [*messages, AIMessage(artifact.model_dump_json(by_alias=True, exclude_none=True))]
        again.append(HumanMessage(ASKED_AGAIN))
        artifact = await run.client.structured(
            again, PlanArtifact, phase="planner", purpose=PURPOSE
        )
    updates: dict[str, Any] = {"plan": artifact}
    if artifact.should_clarify and artifact.clarification_questions:
        updates["status"] = "clarification_needed"
    return updates
