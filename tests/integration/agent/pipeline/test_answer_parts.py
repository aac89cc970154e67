"""The pipeline's entry point, part by part: what it reads from the previous answer, the
clarification message, the auto-capture events and the metadata it keeps. (The answer end
to end needs every phase: test_answer.py.)"""

from __future__ import annotations

from typing import Any

from tests.fakes.scripted_model import Reply
from tests.integration.agent.conftest import Retail
from tests.integration.agent.pipeline.pipeline_runs import pipeline_phase, spec, sql_plan

from dataagent.agent.history import HistoryMessage
from dataagent.agent.pipeline.answer import (
    RECURSION_LIMIT,
    _capture,
    answer_metadata,
    answered_clarification,
    clarification_text,
)
from dataagent.agent.pipeline.executor import execute
from dataagent.agent.pipeline.explainer import explain
from dataagent.agent.pipeline.state import (
    MAX_REVISIONS,
    Ambiguity,
    PlanStep,
    PreferenceSuggestion,
)
from dataagent.runs.event_log import partial_content

QUESTIONS = [
    {"question": "Which year?", "assumption": "The last 12 months.", "preferenceKey": "year"},
    {"question": "Net or gross?", "assumption": "Net of discounts."},
]


def _message(role: str, status: str = "complete", **metadata: Any) -> HistoryMessage:
    return HistoryMessage(1, role, "text", status, metadata)


def test_a_reply_to_a_clarification_carries_its_questions() -> None:
    asked = _message("assistant", "clarification_needed", clarificationQuestions=QUESTIONS)
    assert answered_clarification([_message("user"), asked]) == [
        {"question": "Which year?", "assumption": "The last 12 months."},
        {"question": "Net or gross?", "assumption": "Net of discounts."},
    ]
    # Only the answer just before the question counts, and only when it asked.
    assert answered_clarification([asked, _message("user"), _message("assistant")]) == []
    assert answered_clarification([_message("assistant", clarificationQuestions=QUESTIONS)]) == []
    assert answered_clarification([]) == []


def test_the_clarification_message_lists_each_question_with_its_assumption() -> None:
    text = clarification_text([Ambiguity.model_validate(q) for q in QUESTIONS])
    assert text == (
        "Before I answer, I need to check a few things:\n\n"
        "1. Which year?\n   - If you'd rather not say, I'll assume: The last 12 months.\n"
        "2. Net or gross?\n   - If you'd rather not say, I'll assume: Net of discounts."
    )


def test_the_recursion_limit_allows_three_revisions() -> None:
    # planner, navigator, SQL builder, executor, verifier; then a revision is four phases.
    assert RECURSION_LIMIT >= 5 + 4 * MAX_REVISIONS + 1


async def test_auto_capture_suggests_saves_or_does_nothing(retail: Retail) -> None:
    phase = await pipeline_phase(retail, "2024, net", [])
    settled = [PreferenceSuggestion(key="default_year", value="2024", question="Which year?")]
    saved: list[list[tuple[str, str]]] = []

    async def save(pairs: list[tuple[str, str]]) -> list[tuple[str, str]]:
        saved.append(pairs)
        return pairs

    await _capture(phase.run, settled, "off", save)
    await _capture(phase.run, [], "auto", save)
    assert phase.events.events == [] and saved == []

    await _capture(phase.run, settled, "ask", save)
    assert phase.events.events == [
        (
            "preference_suggested",
            {"suggestions": [{"key": "default_year", "value": "2024", "question": "Which year?"}]},
        )
    ]
    assert saved == []

    await _capture(phase.run, settled, "auto", save)
    assert saved == [[("default_year", "2024")]]
    assert phase.events.events[-1] == (
        "preference_auto_saved",
        {"preferences": [{"key": "default_year", "value": "2024"}]},
    )


async def test_the_metadata_keeps_seed_001s_fields(retail: Retail) -> None:
    phase = await pipeline_phase(
        retail, "Stores per region?", [Reply(text="Four regions: the South leads with 3.")]
    )
    plan = sql_plan(PlanStep(id=1, description="Stores per region"))
    plan.ambiguities = [Ambiguity(question="Open only?", assumption="All stores count.")]
    sql = "SELECT region, COUNT(*) AS stores FROM stores GROUP BY region ORDER BY region"
    state = phase.state("Stores per region?", plan=plan, query_specs=[spec(1, sql)])
    state.update(await execute(state, phase.run))
    out = await explain(state, phase.run)
    state.update(out)  # type: ignore[typeddict-item]
    timing = {"startedAt": "2026-01-01T00:00:00+00:00", "durationMs": 5}

    metadata = answer_metadata(state, phase.run, out["explainer_output"], timing)

    assert metadata["agentMode"] == "pipeline"
    assert metadata["plan"]["steps"][0]["description"] == "Stores per region"
    (step,) = metadata["stepResults"]
    assert step["sqlResult"]["rowCount"] == 4 and step["sqlResult"]["columns"] == [
        "region",
        "stores",
    ]
    assert metadata["dataLineage"]["datasets"] == ["stores"]
    assert [x["stepId"] for x in metadata["stepLineage"]] == [1]
    assert metadata["revisionsUsed"] == 0
    assert metadata["assumptions"] == ["All stores count."]
    assert metadata["explainerOutput"]["assumptions"] == ["All stores count."]
    assert "narrative" not in metadata["explainerOutput"]
    assert [c["name"] for c in metadata["toolCalls"]] == ["query_database"] * 2
    assert all(c["phase"] == "executor" and c["stepId"] == 1 for c in metadata["toolCalls"])
    assert metadata["tokensUsed"]["total"] > 0
    # Tokens per phase of the calls made: here the explainer's one call.
    assert metadata["tokensByPhase"] == {"explainer": metadata["tokensUsed"]}
    assert metadata["datasetsUsed"] == ["stores"]
    assert (
        len(metadata["charts"]) == 1 and metadata["charts"] == metadata["explainerOutput"]["charts"]
    )
    assert metadata["startedAt"] == timing["startedAt"] and metadata["durationMs"] == 5
    # The stream rebuilds the content, as a resumed stream or a failed answer shows it.
    assert partial_content(phase.events.events) == out["explainer_output"].narrative
