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
import re
from pathlib import Path
from typing import Any

from tests.fakes.scripted_model import Reply
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
            step(1, "Revenue by region in 2025", datasets=["order_items", "orders", "stores"],
                 queryPlan=REVENUE_BY_REGION)
        ],
    )
    asked = await demo.ask(
        "What was revenue by region in 2025?",
        [Reply(text=plan), Reply(text="The South led revenue in 2025.", piece=6)],
    )
    assert phases(asked) == [
        "planner", "navigator", "sql_builder", "executor", "verifier", "explainer"
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
