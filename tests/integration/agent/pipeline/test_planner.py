"""The planner as a typed function of a state, over the demo retailer: one structured call,
grounded on the retrieved datasets, with preferences and clarifications; invariants that a
model's plan breaks are asked for again."""

from __future__ import annotations

import json
from typing import Any

import pytest
from tests.fakes.scripted_model import Reply
from tests.integration.agent.conftest import Retail
from tests.integration.agent.pipeline.phase_run import phase_run, state_of

from dataagent.agent.pipeline.planner import ASKED_AGAIN, plan
from dataagent.agent.pipeline.state import PlanArtifact
from dataagent.errors import DataAgentError, ErrorCode

QUESTION = "How many orders are there per status?"

SIMPLE: dict[str, Any] = {
    "complexity": "simple",
    "intent": "Count orders by status",
    "metrics": ["order count"],
    "dimensions": ["status"],
    "grain": "status",
    "acceptanceChecks": [
        {
            "description": "Counts are positive",
            "python": "assert (step_1_data['orders'] > 0).all()",
        }
    ],
    "steps": [
        {
            "id": 1,
            "description": "Count orders per status",
            "strategy": "sql",
            "datasets": ["orders"],
            "queryPlan": {
                "measures": [{"field": "orders.*", "aggregation": "count", "alias": "orders"}],
                "dimensions": [{"field": "orders.status"}],
            },
        }
    ],
}

CLARIFY: dict[str, Any] = {
    "complexity": "analytical",
    "intent": "Analyse sales",
    "shouldClarify": True,
    "clarificationQuestions": [
        {
            "question": "Which time window should I analyse?",
            "assumption": "The last 12 months",
            "preferenceKey": "default_time_window",
        }
    ],
}


def reply(artifact: dict[str, Any]) -> Reply:
    return Reply(text=json.dumps(artifact))


async def test_a_simple_question_is_one_call_with_a_query_plan(retail: Retail) -> None:
    phase = await phase_run(retail, QUESTION, [reply(SIMPLE)])
    state = state_of(QUESTION, preferences={"default_time_window": "last 12 months"})
    updates = await plan(state, phase.run)
    artifact = updates["plan"]
    assert isinstance(artifact, PlanArtifact)
    assert "status" not in updates
    [step] = artifact.steps
    assert step.query_plan is not None and step.query_plan.measures[0].aggregation == "count"
    assert artifact.acceptance_checks[0].python is not None
    [call] = phase.run.client.calls
    assert (call.phase, call.purpose, call.structured_output) == ("planner", "plan", True)
    system, question = phase.model.calls[0]
    prompt = str(system.content)
    # Grounded on what retrieval found: the orders' YAML, not every dataset.
    assert "### orders" in prompt and "name: orders" in prompt
    assert "The database is SQLite" in prompt
    assert "## User Preferences" in prompt and "- default_time_window: last 12 months" in prompt
    assert "## Query Plans" in prompt and '"time_grain"' in prompt
    assert "## Answer Format" in prompt  # the scripted model is asked in prompt mode
    assert question.content == QUESTION


async def test_a_critical_ambiguity_asks_and_sets_the_status(retail: Retail) -> None:
    phase = await phase_run(retail, "Analyse sales", [reply(CLARIFY)])
    updates = await plan(state_of("Analyse sales"), phase.run)
    assert updates["status"] == "clarification_needed"
    [asked] = updates["plan"].clarification_questions
    assert asked.assumption == "The last 12 months"
    assert asked.preference_key == "default_time_window"


async def test_a_reply_to_a_clarification_is_planned_not_asked_again(retail: Retail) -> None:
    answered = {
        **SIMPLE,
        "preferencesFromClarification": [
            {"key": "default_time_window", "value": "last 6 months", "question": "Which?"}
        ],
    }
    phase = await phase_run(retail, "Last 6 months", [reply(CLARIFY), reply(answered)])
    state = state_of(
        "Analyse sales. Which time window should I analyse? Last 6 months",
        answered_clarification=[
            {
                "question": "Which time window should I analyse?",
                "assumption": "The last 12 months",
                "preferenceKey": "default_time_window",
            }
        ],
    )
    updates = await plan(state, phase.run)
    assert "status" not in updates
    artifact = updates["plan"]
    assert not artifact.should_clarify and len(artifact.steps) == 1
    assert artifact.preferences_from_clarification[0].value == "last 6 months"
    first, second = phase.model.calls
    assert "## Clarification Answered" in str(first[0].content)
    assert "key: default_time_window" in str(first[0].content)
    assert second[-1].content == ASKED_AGAIN


async def test_a_plan_that_breaks_an_invariant_is_asked_for_again(retail: Retail) -> None:
    broken = {
        **SIMPLE,
        "steps": [
            {**SIMPLE["steps"][0], "id": 1, "dependsOn": [2]},
            {"id": 2, "description": "Chart it", "strategy": "python", "dependsOn": [1]},
        ],
    }
    phase = await phase_run(retail, QUESTION, [reply(broken), reply(SIMPLE)])
    updates = await plan(state_of(QUESTION), phase.run)
    assert len(updates["plan"].steps) == 1
    reasked = str(phase.model.calls[1][-1].content)
    assert "step 1 depends on 2: dependsOn may name only steps listed before it" in reasked


async def test_a_data_question_without_steps_twice_is_an_llm_error(retail: Retail) -> None:
    empty = {"complexity": "simple", "intent": "Count orders"}
    phase = await phase_run(retail, QUESTION, [reply(empty), reply(empty)])
    with pytest.raises(DataAgentError) as caught:
        await plan(state_of(QUESTION), phase.run)
    assert caught.value.code == ErrorCode.LLM_ERROR
    assert "The model's plan did not match the expected form" in caught.value.message
    assert "needs at least one step" in caught.value.message


async def test_a_conversational_question_has_no_steps(retail: Retail) -> None:
    phase = await phase_run(retail, "Thanks!", [reply({"complexity": "conversational"})])
    updates = await plan(state_of("Thanks!"), phase.run)
    assert updates["plan"].complexity == "conversational" and updates["plan"].steps == []
