"""The plan's invariants, as validators: what a model's plan must hold to be used."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from dataagent.agent.pipeline.state import PlanArtifact

STEP = {"id": 1, "description": "Count orders", "datasets": ["orders"]}


def plan(**fields: Any) -> PlanArtifact:
    return PlanArtifact.model_validate({"complexity": "simple", "steps": [STEP], **fields})


def test_a_plan_in_seed_001s_form_is_read() -> None:
    artifact = plan(acceptanceChecks=["Counts are positive"], timeWindow=None)
    assert artifact.acceptance_checks[0].description == "Counts are positive"
    assert artifact.step(1) is not None and artifact.step(2) is None


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"steps": [STEP, STEP]}, "step ids must be unique; 1 appears twice"),
        ({"steps": [{**STEP, "dependsOn": [2]}]}, "dependsOn may name only steps listed before"),
        ({"steps": [{**STEP, "dependsOn": [1]}]}, "step 1 depends on itself"),
        ({"steps": []}, "a simple question needs at least one step"),
        ({"steps": [], "shouldClarify": True}, "shouldClarify needs at least one clarification"),
        (
            {
                "steps": [
                    {
                        **STEP,
                        "strategy": "python",
                        "queryPlan": {"dimensions": [{"field": "orders.status"}]},
                    }
                ]
            },
            "a queryPlan needs strategy sql or sql_then_python",
        ),
        (
            {
                "shouldClarify": True,
                "clarificationQuestions": [{"question": "q", "assumption": "a"}] * 4,
            },
            "at most 3 items",
        ),
        ({"stepz": []}, "Extra inputs are not permitted"),
    ],
)
def test_a_plan_breaking_an_invariant_is_refused(fields: dict[str, Any], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        plan(**fields)


def test_conversational_and_clarifying_plans_need_no_steps() -> None:
    assert PlanArtifact.model_validate({"complexity": "conversational"}).steps == []
    asks = plan(
        steps=[],
        shouldClarify=True,
        clarificationQuestions=[{"question": "Which window?", "assumption": "12 months"}],
    )
    assert asks.should_clarify


def test_a_capitalised_complexity_or_strategy_is_what_the_model_meant() -> None:
    artifact = PlanArtifact.model_validate(
        {"complexity": "Simple", "steps": [{**STEP, "strategy": "SQL"}]}
    )
    assert artifact.complexity == "simple" and artifact.steps[0].strategy == "sql"
