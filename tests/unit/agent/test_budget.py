"""An answer's tool budget: what the model reads of each result, of a turn and of an answer;
calls per turn, calls at once and tool time, kept by `run_turn` for both loops."""

from __future__ import annotations

import asyncio

from langchain_core.messages import AIMessage
from langchain_core.tools import BaseTool, StructuredTool
from pydantic import BaseModel

from dataagent.agent.budget import FLOOR_CHARS, ToolBudget, ToolLimits, cut_output
from dataagent.agent.tool_calls import run_turn

LIMITS = ToolLimits(chars_per_call=1000, chars_per_turn=2500, chars_per_answer=4000)


def test_a_long_result_is_cut_with_what_was_left_out_and_how_to_get_less() -> None:
    budget = ToolBudget(LIMITS)
    (shown,) = budget.for_model(["a" * 1500])
    assert shown.startswith("a" * 1000 + "\n\n[500 more characters of this result were left out")
    assert "a tool result shows at most 1,000." in shown
    assert "aggregate (GROUP BY), add a LIMIT, or print less" in shown
    assert budget.chars_given == len(shown)


def test_a_turn_and_an_answer_have_totals_past_which_results_are_summarised() -> None:
    budget = ToolBudget(LIMITS)
    first = budget.for_model(["b" * 900, "c" * 900, "d" * 900, "short"])
    assert first[:2] == ["b" * 900, "c" * 900]
    # 700 of the turn's 2,500 are left for the third; the fourth still gets its floor.
    assert first[2].startswith("d" * 700 + "\n\n[200 more characters left out: this turn's")
    assert first[3] == "short"
    given = sum(len(s) for s in first)
    second = budget.for_model(["e" * 1000, "f" * 900, "g" * 900])
    assert second[0] == "e" * 1000
    answer_left = 4000 - given - 1000
    assert second[1].startswith("f" * answer_left + f"\n\n[{900 - answer_left} more characters")
    assert "this answer's tool results reached their limit of 4,000 characters" in second[1]
    assert second[2].startswith("g" * FLOOR_CHARS + "\n\n[")
    assert "Answer with what you have" in second[2]


def test_printed_output_keeps_its_start_and_errors_their_end() -> None:
    assert cut_output("short", 10) == "short"
    head = cut_output("0123456789" * 10, 20)
    assert (
        head
        == "01234567890123456789\n[80 more characters of output left out; showing the first part.]"
    )
    tail = cut_output("x" * 50 + "ValueError: boom", 16, keep="last")
    assert tail.endswith("\nValueError: boom") and "showing the last part" in tail


class Args(BaseModel):
    name: str


def _tools(
    log: list[str], running: list[int], peak: list[int], delay: float = 0.01
) -> dict[str, BaseTool]:
    async def work(name: str) -> str:
        running[0] += 1
        peak[0] = max(peak[0], running[0])
        await asyncio.sleep(delay)
        running[0] -= 1
        log.append(name)
        return f"did {name}"

    return {
        "work": StructuredTool.from_function(
            coroutine=work, name="work", description="Work.", args_schema=Args
        )
    }


def _reply(count: int, malformed: int = 0) -> AIMessage:
    return AIMessage(
        "",
        tool_calls=[
            {"id": f"c{i}", "name": "work", "args": {"name": f"n{i}"}} for i in range(count)
        ],
        invalid_tool_calls=[
            {
                "id": f"bad{i}",
                "name": "work",
                "args": "{",
                "error": "truncated",
                "type": "invalid_tool_call",
            }
            for i in range(malformed)
        ],
    )


async def test_calls_past_the_turns_limit_do_not_run_but_are_answered() -> None:
    log: list[str] = []
    budget = ToolBudget(ToolLimits(calls_per_turn=3))
    announced: list[str] = []

    async def on_call(call: dict) -> None:
        announced.append(call["id"])

    turn = await run_turn(budget, _tools(log, [0], [0]), _reply(4, malformed=2), on_call=on_call)
    assert sorted(log) == ["n0", "n1", "n2"]
    assert announced == ["c0", "c1", "c2"]
    assert [o.id for o in turn.outcomes] == ["c0", "c1", "c2"]
    # The kept turn holds the calls that ran; each has its result, and the last result says
    # how many more were not run (their results would grow every later prompt).
    assert [c["id"] for c in turn.reply.tool_calls] == ["c0", "c1", "c2"]
    assert turn.reply.invalid_tool_calls == []
    assert [m.tool_call_id for m in turn.messages] == ["c0", "c1", "c2"]
    assert turn.messages[-1].content == (
        "did n2\n\nNot run: 3 more tool calls of this turn. A turn runs at most 3 tool calls "
        "and this one asked for 6; call again for what you still need, at most 3 at a time."
    )
    assert turn.not_run == 3 and budget.calls_not_run == 3


async def test_malformed_calls_count_towards_the_turns_limit() -> None:
    budget = ToolBudget(ToolLimits(calls_per_turn=3))
    turn = await run_turn(budget, _tools([], [0], [0]), _reply(1, malformed=3))
    assert [o.id for o in turn.outcomes] == ["c0", "bad0", "bad1"]
    assert [o.malformed for o in turn.outcomes] == [False, True, True]
    assert [c["id"] for c in turn.reply.invalid_tool_calls] == ["bad0", "bad1"]
    assert turn.not_run == 1


async def test_the_kept_turn_does_not_repeat_long_arguments() -> None:
    budget = ToolBudget(ToolLimits(chars_per_call=1000))
    reply = AIMessage(
        "thinking",
        tool_calls=[
            {"id": "big", "name": "work", "args": {"name": "x" * 5000}},
            {"id": "small", "name": "work", "args": {"name": "y"}},
        ],
    )
    log: list[str] = []
    turn = await run_turn(budget, _tools(log, [0], [0]), reply)
    assert log == ["x" * 5000, "y"]  # both ran whole
    assert turn.reply.id == reply.id and turn.reply.content == "thinking"
    assert [c["args"] for c in turn.reply.tool_calls] == [
        {"omitted": "5,012 characters of arguments, not repeated here"},
        {"name": "y"},
    ]


async def test_at_most_the_parallel_limit_runs_at_once() -> None:
    running, peak = [0], [0]
    budget = ToolBudget(ToolLimits(calls_per_turn=8, parallel_calls=2))
    turn = await run_turn(budget, _tools([], running, peak), _reply(8))
    assert peak == [2]
    assert [m.content for m in turn.messages] == [f"did n{i}" for i in range(8)]


async def test_once_the_tool_time_is_spent_calls_are_answered_not_run() -> None:
    log: list[str] = []
    budget = ToolBudget(ToolLimits(parallel_calls=1, time_budget_s=0.005))
    turn = await run_turn(budget, _tools(log, [0], [0], delay=0.02), _reply(3))
    assert log == ["n0"]  # the first ran (and ran over); the others found the time spent
    assert budget.time_is_spent and budget.time_spent_s >= 0.02
    spent = "Not run: this answer's tool time (0.005 s) is spent; answer with what you have."
    assert [o.text for o in turn.outcomes] == ["did n0", spent, spent]
    assert [o.is_error for o in turn.outcomes] == [False, True, True]
    later = await run_turn(budget, _tools(log, [0], [0]), _reply(1))
    assert [m.content for m in later.messages] == [spent] and log == ["n0"]
