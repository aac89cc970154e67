"""The offline answer mode through the real routes: no model provider at all, an `offline`
chat, the fast path of a `pipeline` chat, and the model pipeline when the fast path is off or
the offline planner is unsure."""

from __future__ import annotations

import json

from tests.fakes.scripted_model import Reply, ScriptedChatModel
from tests.integration.offline_answers.conftest import Answered, Offline
from tests.integration.runs.conftest import message_of

from dataagent.agent.pipeline.answer import READ_ALONE

PHASES = ["planner", "navigator", "sql_builder", "executor", "verifier", "explainer"]
CLEAR = "What was revenue by region in 2025?"
UNCLEAR = "Write me a poem about the weather on Mars"


def phases(answered: Answered) -> list[str]:
    """The phases in the order they ran."""
    return [data["phase"] for data in answered.of("phase_start")]


def assert_no_model_call(answered: Answered) -> None:
    """No model call was made: no call event, and every phase and the answer spent 0 tokens."""
    assert "llm_call_start" not in answered.names()
    assert all(end["tokensUsed"]["total"] == 0 for end in answered.of("phase_end"))
    assert answered.complete["metadata"]["tokensUsed"]["total"] == 0


async def test_with_no_provider_an_offline_chat_answers_through_every_phase(
    offline: Offline,
) -> None:
    offline.no_provider()
    chat_id = await offline.chat("offline")
    answered = await offline.ask(chat_id, CLEAR)

    assert phases(answered) == PHASES
    assert_no_model_call(answered)
    [plan] = [a["artifact"] for a in answered.of("phase_artifact") if a["kind"] == "plan"]
    [step] = plan["steps"]
    assert [m["name"] for m in step["queryPlan"]["metrics"]] == ["revenue"]
    done = answered.complete
    assert done["status"] == "complete"
    meta = done["metadata"]
    assert meta["agentMode"] == "offline"
    assert meta["offline"]["fastPath"] is False
    assert meta["offline"]["confidence"] > 0
    [result] = meta["stepResults"]
    sql = result["sqlResult"]
    assert "revenue" in " ".join(sql["columns"]).lower()
    assert sql["rowCount"] == len(sql["rows"]) >= 2
    assert set(meta["dataLineage"]["datasets"]) >= {"orders", "stores"}
    assert meta["verificationReport"]["passed"] is True
    # The narrative names the result's figures (the numbers check found none it lacks).
    assert not [c for c in meta["caveats"] if "numbers the query results do not contain" in c]
    first_region = str(sql["rows"][0][0])
    assert first_region in done["content"]
    assert answered.of("chart"), "a result by region is charted"
    assert meta["charts"]
    stored = await message_of(offline.world, answered.message_id)
    assert stored.status == "complete" and stored.content == done["content"]


async def test_with_no_provider_every_chat_answers_offline_whatever_its_mode(
    offline: Offline,
) -> None:
    offline.no_provider()
    for mode in ("pipeline", "react"):
        chat_id = await offline.chat(mode)
        answered = await offline.ask(chat_id, CLEAR)
        assert_no_model_call(answered)
        meta = answered.complete["metadata"]
        assert meta["agentMode"] == "offline", mode
        assert meta["stepResults"][0]["sqlResult"]["rowCount"] > 0


async def test_an_abstention_is_a_complete_message_saying_what_was_understood(
    offline: Offline,
) -> None:
    offline.no_provider()
    chat_id = await offline.chat("offline")
    answered = await offline.ask(chat_id, UNCLEAR)

    assert phases(answered) == ["planner", "explainer"]
    assert_no_model_call(answered)
    done = answered.complete
    assert done["status"] == "complete"
    meta = done["metadata"]
    details = meta["offline"]
    assert set(details) >= {"confidence", "understood", "notUnderstood", "suggestions"}
    assert details["notUnderstood"] and details["suggestions"]
    assert "stepResults" not in meta or meta["stepResults"] == []
    # The content is the planner's own description of what it understood and what not.
    assert done["content"].strip()
    assert any(s in done["content"] for s in details["suggestions"])
    assert "OPENAI_API_KEY" in done["content"]


async def test_the_fast_path_answers_a_clear_question_with_no_model_call(
    offline: Offline,
) -> None:
    model = ScriptedChatModel(script=[])
    offline.scripted(model)
    chat_id = await offline.chat("pipeline")
    answered = await offline.ask(chat_id, CLEAR)

    assert model.calls == []
    assert phases(answered) == PHASES
    assert_no_model_call(answered)
    meta = answered.complete["metadata"]
    assert meta["agentMode"] == "pipeline"
    assert meta["offline"]["fastPath"] is True
    assert meta["stepResults"][0]["sqlResult"]["rowCount"] > 0


CONVERSATIONAL_PLAN = json.dumps({"complexity": "conversational", "intent": "", "steps": []})


async def test_an_unclear_question_falls_through_to_the_model(offline: Offline) -> None:
    model = ScriptedChatModel(
        script=[Reply(text=CONVERSATIONAL_PLAN), Reply(text="I answer questions on sales.")]
    )
    offline.scripted(model)
    chat_id = await offline.chat("pipeline")
    answered = await offline.ask(chat_id, UNCLEAR)

    assert len(model.calls) == 2
    done = answered.complete
    assert done["content"] == "I answer questions on sales."
    assert "offline" not in done["metadata"]
    assert done["metadata"]["agentMode"] == "pipeline"


REVENUE_PLAN = json.dumps(
    {
        "complexity": "simple",
        "intent": "Revenue by region in 2025",
        "steps": [
            {
                "id": 1,
                "description": "Revenue by region in 2025",
                "strategy": "sql",
                "queryPlan": {
                    "metrics": [{"name": "revenue"}],
                    "dimensions": [{"field": "stores.region"}],
                    "filters": [
                        {"field": "orders.order_date", "op": ">=", "value": "2025-01-01"},
                        {"field": "orders.order_date", "op": "<", "value": "2026-01-01"},
                    ],
                },
            }
        ],
    }
)


async def test_with_the_fast_path_off_the_model_always_plans(offline: Offline) -> None:
    model = ScriptedChatModel(
        script=[Reply(text=REVENUE_PLAN), Reply(text="Revenue by region is in the table.")]
    )
    offline.scripted(model, fast_path=False)
    chat_id = await offline.chat("pipeline")
    answered = await offline.ask(chat_id, CLEAR)

    assert len(model.calls) == 2
    meta = answered.complete["metadata"]
    assert "offline" not in meta
    assert meta["stepResults"][0]["sqlResult"]["rowCount"] > 0


async def test_an_offline_chat_makes_no_model_call_even_with_a_provider(
    offline: Offline,
) -> None:
    model = ScriptedChatModel(script=[])
    offline.scripted(model)
    chat_id = await offline.chat("offline")
    answered = await offline.ask(chat_id, UNCLEAR)

    assert model.calls == []
    meta = answered.complete["metadata"]
    assert meta["agentMode"] == "offline"
    assert meta["offline"]["notUnderstood"]
    assert "OPENAI_API_KEY" in answered.complete["content"]


async def test_a_follow_up_leaning_on_the_conversation_goes_to_the_model(
    offline: Offline,
) -> None:
    model = ScriptedChatModel(
        script=[Reply(text=CONVERSATIONAL_PLAN), Reply(text="Per store, see the table.")]
    )
    offline.scripted(model)
    chat_id = await offline.chat("pipeline")
    first = await offline.ask(chat_id, CLEAR)
    assert first.complete["metadata"]["offline"]["fastPath"] is True and model.calls == []
    # The offline planner would read this alone, confidently and wrongly ("it" is revenue).
    answered = await offline.ask(chat_id, "now show it per store")
    assert len(model.calls) == 2
    assert "offline" not in answered.complete["metadata"]


async def test_an_offline_follow_up_says_it_was_read_on_its_own(offline: Offline) -> None:
    offline.no_provider()
    chat_id = await offline.chat("offline")
    await offline.ask(chat_id, CLEAR)
    answered = await offline.ask(chat_id, "now show it per store")
    done = answered.complete
    # Answered (the planner reads "it per store" alone), it says so; else it abstained.
    if done["metadata"].get("stepResults"):
        assert READ_ALONE in done["metadata"]["assumptions"]
        assert READ_ALONE in done["content"]
    else:
        assert "OPENAI_API_KEY" in done["content"]
