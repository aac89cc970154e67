"""What a model following a prompt injection can make an answer cost, and the limits that
bound it: tool calls per turn, what the model reads, tool time, history and traces.

The real agent against the demo retailer, the real sandbox where run_python matters; only
the chat model is scripted (the attacker's tool calls).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from langchain_core.messages import AIMessage, BaseMessage, SystemMessage, ToolMessage
from sqlalchemy import func, select
from tests.fakes.scripted_model import Reply, ScriptedChatModel, call
from tests.integration.agent.conftest import Asked, Recorder, Retail, scripted_client
from tests.integration.sandbox.conftest import require_bwrap

from dataagent.agent.stateless_answer import chat_stream
from dataagent.llm.calls import ChatClient
from dataagent.services import llm
from dataagent.store.models import Chart, QueryRecord

PRINT_2MB = "print('x' * 2_000_000)"


def _chars(messages: list[BaseMessage]) -> int:
    """What one prompt holds: every message's text and tool-call arguments."""
    total = 0
    for message in messages:
        total += len(str(message.content))
        for item in getattr(message, "tool_calls", None) or []:
            total += len(json.dumps(item["args"]))
    return total


def _results(messages: list[BaseMessage]) -> list[ToolMessage]:
    """The tool results since the model's last turn."""
    found: list[ToolMessage] = []
    for message in reversed(messages):
        if not isinstance(message, ToolMessage):
            break
        found.append(message)
    return list(reversed(found))


async def _trace_chars(retail: Retail, asked: Asked) -> int:
    """The characters the answer's traces hold once saved and read back."""
    async with retail.world.database.session() as session:
        await llm.save_traces(
            session,
            retail.owner_id,
            asked.client.calls,
            run_id=asked.run_id,
            message_id=asked.message_id,
        )
        await session.commit()
    async with retail.world.database.session() as session:
        traces = await llm.list_traces(session, retail.owner_id, retail.chat_id, asked.message_id)
    assert len(traces) == len(asked.client.calls)
    return sum(
        len(json.dumps([t.prompt_messages, t.response_content, t.tool_calls], default=str))
        for t in traces
    )


async def test_a_turn_of_3000_calls_runs_the_cap_and_writes_bounded_events(
    retail: Retail,
) -> None:
    settings = retail.world.context.settings
    cap = settings.agent_max_tool_calls_per_turn
    flood = Reply(tool_calls=[call("list_datasets", f"c{i}") for i in range(3000)])
    seen: list[list[ToolMessage]] = []

    def answer(messages: list[BaseMessage]) -> Reply:
        seen.append(_results(messages))
        return Reply(text="Listed.")

    asked = await retail.ask("List everything", [flood, answer])

    # The model's turn is kept with the calls that ran, each with its result; the last result
    # says how many more were not run. So the next prompt does not grow with what was asked.
    (results,) = seen
    assert [r.tool_call_id for r in results] == [f"c{i}" for i in range(cap)]
    assert all("datasets available" in str(r.content) for r in results)
    assert str(results[-1].content).endswith(
        f"Not run: {3000 - cap} more tool calls of this turn. A turn runs at most {cap} tool "
        f"calls and this one asked for 3000; call again for what you still need, at most "
        f"{cap} at a time."
    )
    (sent,) = [m for m in asked.model.calls[1] if isinstance(m, AIMessage) and m.tool_calls]
    assert [c["id"] for c in sent.tool_calls] == [f"c{i}" for i in range(cap)]
    # Events and metadata: the kept calls only, so a bounded number whatever the model asks.
    assert len(asked.events.of("tool_call")) == cap
    assert len(asked.events.of("tool_result")) == cap
    assert len(asked.events.events) < 4 * cap + 20
    assert len(asked.answer.metadata["toolCalls"]) == cap
    assert asked.answer.metadata["toolCallsNotRun"] == 3000 - cap

    # The next question of the chat quotes that answer's calls briefly.
    later = await retail.ask("And now?", [Reply(text="Nothing more.")])
    system = str(later.model.calls[0][0].content)
    history = system[system.index("## Previous Conversation") :]
    assert history.count("- tool list_datasets(") == 10
    assert len(history) < settings.agent_history_chars


async def test_a_2mb_print_reaches_the_model_cut_to_the_cap(retail: Retail) -> None:
    require_bwrap()
    settings = retail.world.context.settings
    seen: list[str] = []

    def answer(messages: list[BaseMessage]) -> Reply:
        seen.extend(str(r.content) for r in _results(messages))
        return Reply(text="Printed.")

    flood_errors = "import sys\nsys.stderr.write('e' * 900_000)\nraise ValueError('the real error')"
    asked = await retail.ask(
        "Print a lot",
        [
            Reply(
                tool_calls=[
                    call("run_python", "out", code=PRINT_2MB),
                    call("run_python", "err", code=flood_errors),
                ]
            ),
            answer,
        ],
    )
    output, errors = seen
    assert len(output) <= settings.agent_result_chars_per_call + 400
    assert output.startswith("**Output:**\n```\nxxxx")
    assert "more characters of output left out; showing the first part." in output
    # Stderr is cut from its start, so the error at its end still reaches the model.
    assert len(errors) <= settings.agent_result_chars_per_call + 400
    assert "showing the last part" in errors and "ValueError: the real error" in errors
    # Events and metadata keep their own, shorter cut.
    for result in asked.events.of("tool_result"):
        assert len(result["result"]) <= settings.agent_tool_result_chars


async def test_five_turns_of_20_big_prints_keep_prompts_and_traces_bounded(
    retail: Retail,
) -> None:
    require_bwrap()
    settings = retail.world.context.settings
    turn = Reply(tool_calls=[call("run_python", code=PRINT_2MB) for _ in range(20)])
    asked = await retail.ask("Flood me", [turn] * 5 + [Reply(text="Done.")])

    prompts = asked.model.calls
    assert len(prompts) == 6
    system = len(str(prompts[0][0].content))
    # The attack reached 200 MB; every prompt now stays under the answer's budget for tool
    # results, plus a short floor and note for the results past it.
    bound = system + settings.agent_result_chars_per_answer + 100 * 600
    assert all(_chars(p) < bound for p in prompts)
    last = _results(prompts[-1])
    assert len(last) == settings.agent_max_tool_calls_per_turn
    assert "this answer's tool results reached their limit" in str(last[0].content)
    assert "Not run: 10 more tool calls of this turn." in str(last[-1].content)

    # Traces keep each call's new messages: linear in what was said, not prompt x calls.
    stored = await _trace_chars(retail, asked)
    assert stored < 2 * bound
    assert asked.client.calls[2].prompt_messages[0] == {
        "role": "earlier",
        "callIndex": 1,
        "messageCount": len(prompts[1]),
    }

    # The next answer of the chat quotes this one within the history's bound.
    later = await retail.ask("What did you find?", [Reply(text="Lots of x.")])
    history_chars = len(str(later.model.calls[0][0].content)) - system
    assert history_chars < settings.agent_history_chars + settings.agent_history_message_chars


async def test_the_tool_time_budget_stops_further_calls(retail: Retail) -> None:
    settings = retail.world.context.settings
    settings.agent_tool_time_budget_s = 1e-6  # spent by the first query, whatever its speed
    settings.agent_max_parallel_tool_calls = 1
    sql = "SELECT COUNT(*) AS n FROM stores"
    seen: list[list[ToolMessage]] = []

    def record(reply: Reply) -> Any:
        def step(messages: list[BaseMessage]) -> Reply:
            seen.append(_results(messages))
            return reply

        return step

    asked = await retail.ask(
        "Count stores twice",
        [
            Reply(
                tool_calls=[
                    call("query_database", "a", sql=sql),
                    call("query_database", "b", sql=sql),
                ]
            ),
            record(Reply(tool_calls=[call("query_database", "c", sql=sql)])),
            record(Reply(text="One count.")),
        ],
    )
    first, second = seen
    assert "| n |" in str(first[0].content)
    spent = "Not run: this answer's tool time (1e-06 s) is spent; answer with what you have."
    assert str(first[1].content) == spent and first[1].status == "error"
    assert [str(m.content) for m in second] == [spent]
    async with retail.world.database.session() as session:
        ran = await session.scalar(
            select(func.count()).select_from(QueryRecord).where(QueryRecord.run_id == asked.run_id)
        )
    assert ran == 1
    # The refused calls were within the turn's cap: reported, as errors.
    results = {r["id"]: r for r in asked.events.of("tool_result")}
    assert results["b"]["isError"] and results["c"]["result"] == spent


async def test_huge_arguments_are_kept_out_of_events_and_metadata(retail: Retail) -> None:
    settings = retail.world.context.settings
    blob = "y" * 5_000_000
    asked = await retail.ask(
        "Take this",
        [Reply(tool_calls=[call("get_everything", "big", blob=blob)]), Reply(text="No.")],
    )
    (announced,) = asked.events.of("tool_call")
    assert len(json.dumps(announced)) < settings.agent_tool_result_chars + 200
    (kept,) = asked.answer.metadata["toolCalls"]
    assert len(json.dumps(kept)) < 3 * settings.agent_tool_result_chars
    assert "no tool named 'get_everything'" in kept["result"]


async def _stateless(retail: Retail, model: ScriptedChatModel) -> tuple[Recorder, ChatClient]:
    events = Recorder()
    client = scripted_client(model)
    await chat_stream(
        retail.world.context,
        retail.owner_id,
        retail.ontology_id,
        [{"role": "user", "content": "Show me everything"}],
        client,
        events,
    )
    return events, client


async def test_the_stateless_chat_keeps_the_same_limits(retail: Retail) -> None:
    require_bwrap()
    settings = retail.world.context.settings
    cap = settings.agent_max_tool_calls_per_turn
    seen: list[list[ToolMessage]] = []

    def step(reply: Reply) -> Any:
        def answer(messages: list[BaseMessage]) -> Reply:
            seen.append(_results(messages))
            return reply

        return answer

    model = ScriptedChatModel(
        script=[
            Reply(tool_calls=[call("list_datasets", f"c{i}") for i in range(500)]),
            step(Reply(tool_calls=[call("run_python", "p", code=PRINT_2MB)])),
            step(Reply(text="Done.")),
        ]
    )
    events, _ = await _stateless(retail, model)
    assert events.names()[-1] == "done"
    listed, printed = seen
    assert len(listed) == cap
    assert f"Not run: {500 - cap} more tool calls of this turn." in str(listed[-1].content)
    assert len(events.of("tool_call")) == cap + 1
    (python,) = printed
    assert len(str(python.content)) <= settings.agent_result_chars_per_call + 400


async def test_the_stateless_chat_has_a_tool_time_budget_too(retail: Retail) -> None:
    settings = retail.world.context.settings
    settings.agent_tool_time_budget_s = 1e-6
    settings.agent_max_parallel_tool_calls = 1
    seen: list[list[ToolMessage]] = []

    def step(reply: Reply) -> Any:
        def answer(messages: list[BaseMessage]) -> Reply:
            seen.append(_results(messages))
            return reply

        return answer

    model = ScriptedChatModel(
        script=[
            Reply(tool_calls=[call("list_datasets", "a"), call("list_datasets", "b")]),
            step(Reply(tool_calls=[call("list_datasets", "c")])),
            step(Reply(text="Done.")),
        ]
    )
    events, _ = await _stateless(retail, model)
    spent = "Not run: this answer's tool time (1e-06 s) is spent; answer with what you have."
    first, second = seen
    assert "datasets available" in str(first[0].content)
    assert [str(first[1].content), str(second[0].content)] == [spent, spent]
    assert [t["result_summary"] for t in events.of("tool_call")][1:] == [spent, spent]


async def test_a_22mb_chart_is_refused_by_its_caps_and_nothing_big_is_kept(
    retail: Retail,
) -> None:
    settings = retail.world.context.settings
    rows = [{"label": f"{i:05d}" + "z" * 4400, "value": i} for i in range(5000)]
    chart = call(
        "create_chart", "big", chart_type="line", title="t", data=rows, x="label", y=["value"]
    )
    assert len(json.dumps(chart.args)) > 22_000_000
    seen: list[str] = []

    def answer(messages: list[BaseMessage]) -> Reply:
        seen.extend(str(r.content) for r in _results(messages))
        return Reply(text="No chart.")

    model = ScriptedChatModel(script=[Reply(tool_calls=[chart]), answer])
    events, client = await _stateless(retail, model)
    (refusal,) = seen
    assert refusal.startswith(
        "Error (VALIDATION_ERROR): the chart was not made. The arguments are over "
        f"{settings.chart_max_argument_chars:,} characters."
    )
    assert events.of("chart") == []
    (reported,) = events.of("tool_call")
    assert reported["result_summary"].startswith("Error (VALIDATION_ERROR)")
    assert len(json.dumps(events.events)) < 20_000
    # The traces hold the call's arguments cut down, not 22 MB.
    traced = sum(
        len(json.dumps([c.prompt_messages, c.response_content, c.tool_calls], default=str))
        for c in client.calls
    )
    assert traced < 4 * settings.llm_trace_chars + len(str(model.calls[0][0].content))
    assert isinstance(model.calls[0][0], SystemMessage)


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"label": "w" * 300}, "a column name or text value has at most 200 characters"),
        ({**{f"extra{i}": i for i in range(25)}}, "the rows have more than 20 columns"),
    ],
)
async def test_chart_labels_and_columns_are_capped(
    retail: Retail, change: dict[str, Any], expected: str
) -> None:
    rows = [{"label": "a", "value": 1}, {"label": "b", "value": 2} | change]
    chart = call("create_chart", chart_type="bar", title="t", data=rows, x="label", y=["value"])
    seen: list[str] = []

    def answer(messages: list[BaseMessage]) -> Reply:
        seen.extend(str(r.content) for r in _results(messages))
        return Reply(text="No chart.")

    events, _ = await _stateless(
        retail, ScriptedChatModel(script=[Reply(tool_calls=[chart]), answer])
    )
    (refusal,) = seen
    assert refusal.startswith("Error (VALIDATION_ERROR): the chart was not made.")
    assert expected in refusal
    assert events.of("chart") == []


async def test_a_chart_whose_spec_would_be_too_big_is_refused_before_it_is_drawn(
    retail: Retail,
) -> None:
    settings = retail.world.context.settings
    settings.chart_max_spec_chars = 10_000
    rows = [{"day": i} | {f"v{n}": i * n for n in range(10)} for i in range(300)]
    chart = call(
        "create_chart",
        chart_type="line",
        title="t",
        data=rows,
        x="day",
        y=[f"v{n}" for n in range(10)],
    )
    seen: list[str] = []

    def answer(messages: list[BaseMessage]) -> Reply:
        seen.extend(str(r.content) for r in _results(messages))
        return Reply(text="No chart.")

    events, _ = await _stateless(
        retail, ScriptedChatModel(script=[Reply(tool_calls=[chart]), answer])
    )
    assert seen == [
        "Error (VALIDATION_ERROR): the chart was not made. The chart would hold 3,000 values, "
        "over 10,000 characters: aggregate the rows first, or use fewer series or shorter labels."
    ]
    assert events.of("chart") == []
    async with retail.world.database.session() as session:
        assert await session.scalar(select(func.count()).select_from(Chart)) == 0
