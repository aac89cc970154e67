"""Every route of the pipeline's graph, driven by a scripted model over the curated demo
retailer (real compiler, executor, verifier and sandbox); each route's events must equal its
golden transcript in tests/fixtures/pipeline/ (DATAAGENT_UPDATE_GOLDEN=1 rewrites them).

Routes (seed 001's "Conditional Routing"):
- simple: planner (a QueryPlan) → navigator → sql_builder → executor → verifier → explainer;
  two model calls in all (the planner and the explainer);
- clarify: planner → END, the message `clarification_needed`; the reply continues it;
- conversational: planner → explainer;
- cannot answer: planner → navigator (nothing fits) → explainer's refusal;
- revision: verifier fails → its recommended phase → ... → pass;
- revisions used up: the verifier fails four times → explainer with caveats.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.fakes.scripted_model import Reply, call
from tests.fixtures.compiler.compiler_golden import update_golden
from tests.integration.agent.conftest import Asked
from tests.integration.answers.test_golden_streams import _Ids, normalise
from tests.integration.pipeline_routes.conftest import Demo

GOLDEN = Path(__file__).parents[2] / "fixtures" / "pipeline"
# Token counts (the scripted model estimates them from the prompt's length, which any prompt
# edit changes) and durations are not part of a route's transcript.
_UNSTABLE = {
    "durationMs",
    "duration_ms",
    "totalChars",
    "promptTokens",
    "completionTokens",
    "totalTokens",
    "prompt",
    "completion",
    "total",
    "execTimeMs",
}


def plan_json(**fields: Any) -> str:
    """A PlanArtifact as the model writes it."""
    plan: dict[str, Any] = {"complexity": "simple", "intent": "", "steps": []}
    plan.update(fields)
    return json.dumps(plan)


def step(id_: int, description: str, **fields: Any) -> dict[str, Any]:
    """A plan step."""
    return {"id": id_, "description": description, "strategy": "sql", "dependsOn": [], **fields}


def _stable(value: Any, ids: _Ids) -> Any:
    if isinstance(value, dict):
        return {
            key: 0 if key in _UNSTABLE and isinstance(item, int) else _stable(item, ids)
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [_stable(item, ids) for item in value]
    return normalise(value, ids)


def transcript(asked: Asked) -> list[list[Any]]:
    """The answer's events, `message_chunk`s in a row joined, ids/times/durations/tokens made
    stable."""
    ids = _Ids()
    out: list[list[Any]] = []
    for event, data in asked.events.events:
        if event == "message_chunk" and out and out[-1][0] == "message_chunk":
            out[-1][1]["chunk"] += data["chunk"]
            continue
        out.append([event, _stable(json.loads(json.dumps(data, default=str)), ids)])
    return out


def check_golden(name: str, asked: Asked) -> None:
    """The route's events equal tests/fixtures/pipeline/`name`.json."""
    path = GOLDEN / f"{name}.json"
    text = json.dumps(transcript(asked), indent=1, ensure_ascii=False) + "\n"
    if update_golden():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    assert text == path.read_text(), f"{name} differs from its golden transcript"


def phases(asked: Asked) -> list[str]:
    """The phases in the order they ran."""
    return [data["phase"] for event, data in asked.events.events if event == "phase_start"]


def chunks(asked: Asked) -> str:
    """The streamed text."""
    return "".join(d["chunk"] for d in asked.events.of("message_chunk"))


REVENUE_BY_REGION = {
    "datasets": ["order_items", "orders", "stores"],
    "metrics": [{"name": "revenue"}],
    "dimensions": [{"field": "stores.region"}],
    "filters": [
        {"field": "orders.order_date", "op": ">=", "value": "2025-01-01"},
        {"field": "orders.order_date", "op": "<", "value": "2026-01-01"},
    ],
    "order": [{"by": "revenue", "direction": "desc"}],
}


async def test_a_simple_question_runs_every_phase_with_two_model_calls(demo: Demo) -> None:
    plan = plan_json(
        intent="Revenue by store region in 2025",
        metrics=["revenue"],
        dimensions=["stores.region"],
        timeWindow="2025",
        grain="region",
        steps=[
            step(
                1,
                "Revenue by region in 2025",
                datasets=["order_items", "orders", "stores"],
                queryPlan=REVENUE_BY_REGION,
            )
        ],
    )
    asked = await demo.ask(
        "What was revenue by region in 2025?",
        [Reply(text=plan), Reply(text="The South led revenue in 2025.", piece=6)],
    )
    assert phases(asked) == [
        "planner",
        "navigator",
        "sql_builder",
        "executor",
        "verifier",
        "explainer",
    ]
    assert len(asked.model.calls) == 2
    answer = asked.answer
    assert answer.status == "complete"
    assert answer.content.startswith("The South led revenue in 2025.")
    assert chunks(asked) == answer.content
    meta = answer.metadata
    assert meta["agentMode"] == "pipeline"
    assert meta["verificationReport"]["passed"] is True
    [result] = meta["stepResults"]
    assert result["sqlResult"]["rowCount"] == len(result["sqlResult"]["rows"]) > 0
    assert set(meta["dataLineage"]["datasets"]) >= {"order_items", "orders", "stores"}
    assert meta["revisionsUsed"] == 0
    check_golden("simple", asked)


TIME_WINDOW_QUESTION = {
    "question": "Which period should revenue cover?",
    "assumption": "The last 12 months.",
    "preferenceKey": "default_time_window",
}


async def test_a_critical_ambiguity_asks_first_and_the_reply_continues(demo: Demo) -> None:
    ask = plan_json(
        complexity="analytical",
        intent="Analyse sales",
        shouldClarify=True,
        clarificationQuestions=[TIME_WINDOW_QUESTION],
    )
    asked = await demo.ask("Analyse sales", [Reply(text=ask)])
    assert phases(asked) == ["planner"]
    assert len(asked.model.calls) == 1
    assert asked.answer.status == "clarification_needed"
    [requested] = asked.events.of("clarification_requested")
    assert requested == {
        "questions": [
            {"question": TIME_WINDOW_QUESTION["question"], "assumption": "The last 12 months."}
        ]
    }
    assert "Which period should revenue cover?" in asked.answer.content
    assert asked.answer.metadata["clarificationQuestions"][0]["assumption"] == "The last 12 months."
    check_golden("clarify", asked)

    # The reply continues the question: the planner sees what was asked, settles the
    # preference (auto-capture is `auto` by default: saved, `preference_auto_saved`).
    answered = plan_json(
        intent="Revenue by region in 2025",
        steps=[step(1, "Revenue by region", datasets=["order_items"], queryPlan=REVENUE_BY_REGION)],
        preferencesFromClarification=[
            {"key": "default_time_window", "value": "calendar 2025", "question": "period"}
        ],
    )
    reply = await demo.ask(
        "Calendar 2025, please.",
        [Reply(text=answered), Reply(text="Revenue by region for 2025 is shown.")],
    )
    assert reply.answer.status == "complete"
    planner_prompt = "\n".join(str(m.content) for m in reply.model.calls[0])
    assert "Which period should revenue cover?" in planner_prompt
    assert reply.events.of("preference_auto_saved") == [
        {"preferences": [{"key": "default_time_window", "value": "calendar 2025"}]}
    ]
    # The saved preference reaches the next question's planner.
    third = await demo.ask(
        "And by store?",
        [Reply(text=answered), Reply(text="Shown by store.")],
    )
    planner_prompt = "\n".join(str(m.content) for m in third.model.calls[0])
    assert "default_time_window: calendar 2025" in planner_prompt


async def test_a_conversational_question_goes_straight_to_the_explainer(demo: Demo) -> None:
    plan = plan_json(complexity="conversational", intent="Explain what grain means")
    asked = await demo.ask(
        "What does grain mean?",
        [Reply(text=plan), Reply(text="Grain is the level one row of a result stands for.")],
    )
    assert phases(asked) == ["planner", "explainer"]
    assert len(asked.model.calls) == 2
    assert asked.answer.content == "Grain is the level one row of a result stands for."
    assert asked.answer.status == "complete"
    check_golden("conversational", asked)


async def test_what_the_ontology_lacks_is_a_helpful_refusal(demo: Demo) -> None:
    plan = plan_json(
        intent="Rainfall by store",
        steps=[step(1, "Rainfall per store", datasets=["weather"])],
    )
    search = [
        Reply(text=plan),
        Reply(tool_calls=[call("list_datasets")]),
        Reply(tool_calls=[call("choose_datasets", datasets=[], reason="No weather data.")]),
    ]
    asked = await demo.ask("How much did it rain at each store?", search)
    assert phases(asked) == ["planner", "navigator", "explainer"]
    # The refusal is written from the ontology, with no model call of its own.
    assert len(asked.model.calls) == 3
    content = asked.answer.content
    assert "orders" in content and "revenue" in content
    assert asked.answer.metadata["cannotAnswer"]["missingDatasets"] == ["weather"]
    check_golden("cannot_answer", asked)


NOWHERE = (
    "SELECT s.region, SUM(oi.quantity * oi.unit_price * (1 - oi.discount)) AS revenue "
    "FROM order_items oi "
    "JOIN orders o ON o.id = oi.order_id JOIN stores s ON s.id = o.store_id "
    "WHERE s.region = 'Atlantis' GROUP BY s.region"
)
BY_REGION = (
    "SELECT s.region, SUM(oi.quantity * oi.unit_price * (1 - oi.discount)) AS revenue "
    "FROM order_items oi "
    "JOIN orders o ON o.id = oi.order_id JOIN stores s ON s.id = o.store_id "
    "WHERE o.status = 'completed' GROUP BY s.region ORDER BY s.region"
)


def sql_reply(sql: str) -> Reply:
    """The SQL builder's structured answer."""
    return Reply(text=json.dumps({"sql": sql, "expectedColumns": ["region", "revenue"]}))


def model_sql_plan(**fields: Any) -> str:
    return plan_json(
        complexity="analytical",
        intent="Revenue by region",
        steps=[
            step(
                1,
                "Revenue of completed orders by region",
                datasets=["order_items", "orders", "stores"],
            )
        ],
        **fields,
    )


async def test_a_failed_check_sends_the_answer_back_and_the_revision_passes(demo: Demo) -> None:
    # An empty result goes back to the navigator (and on to the SQL builder), which writes
    # the SQL again; the second result passes.
    asked = await demo.ask(
        "Revenue by region?",
        [
            Reply(text=model_sql_plan()),
            sql_reply(NOWHERE),
            sql_reply(BY_REGION),
            Reply(text="Revenue by region is shown."),
        ],
    )
    assert phases(asked) == [
        "planner",
        "navigator",
        "sql_builder",
        "executor",
        "verifier",
        "navigator",
        "sql_builder",
        "executor",
        "verifier",
        "explainer",
    ]
    meta = asked.answer.metadata
    assert meta["revisionsUsed"] == 1
    assert meta["verificationReport"]["passed"] is True
    assert len(asked.model.calls) == 4
    check_golden("revision_navigator", asked)


async def test_a_failed_acceptance_check_goes_to_the_sql_builder(demo: Demo) -> None:
    one_row = (
        "SELECT SUM(oi.quantity * oi.unit_price * (1 - oi.discount)) AS revenue "
        "FROM order_items oi "
        "JOIN orders o ON o.id = oi.order_id WHERE o.status = 'completed'"
    )
    plan = model_sql_plan(
        acceptanceChecks=[
            {"description": "One row per region", "python": "assert len(current_data) == 4"}
        ]
    )
    asked = await demo.ask(
        "Revenue by region?",
        [Reply(text=plan), sql_reply(one_row), sql_reply(BY_REGION), Reply(text="Shown.")],
    )
    assert phases(asked) == [
        "planner",
        "navigator",
        "sql_builder",
        "executor",
        "verifier",
        "sql_builder",
        "executor",
        "verifier",
        "explainer",
    ]
    assert asked.answer.metadata["revisionsUsed"] == 1
    assert asked.answer.metadata["verificationReport"]["passed"] is True
    check_golden("revision_sql_builder", asked)


async def test_after_three_revisions_the_answer_comes_with_caveats(demo: Demo) -> None:
    asked = await demo.ask(
        "Revenue by region?",
        [
            Reply(text=model_sql_plan()),
            *(sql_reply(NOWHERE) for _ in range(4)),
            Reply(text="No revenue was found."),
        ],
    )
    assert phases(asked).count("verifier") == 4
    assert phases(asked)[-1] == "explainer"
    meta = asked.answer.metadata
    assert meta["revisionsUsed"] == 3
    assert meta["verificationReport"]["passed"] is False
    assert any("Maximum revision" in c for c in meta["caveats"])
    assert asked.answer.status == "complete"
    check_golden("revisions_used_up", asked)
