"""Running the model's tool calls: every failure becomes text the model can read."""

from __future__ import annotations

import asyncio

from langchain_core.messages import AIMessage
from langchain_core.tools import BaseTool, StructuredTool, ToolException
from pydantic import BaseModel

from dataagent.agent.budget import ToolBudget, ToolLimits
from dataagent.agent.tool_calls import ToolOutcome, invalid_call_outcome, run_tool_call, run_turn
from dataagent.errors import DataAgentError, ErrorCode


class EchoArgs(BaseModel):
    text: str


async def _echo(text: str) -> str:
    await asyncio.sleep(0.01 if text == "slow" else 0)
    if text == "tool-error":
        raise ToolException("Error (QUERY_FAILED): no such column")
    if text == "agent-error":
        raise DataAgentError(ErrorCode.QUERY_TIMEOUT, "The query took too long.")
    if text == "bug":
        raise KeyError("x")
    return f"echo {text}"


TOOLS: dict[str, BaseTool] = {
    "echo": StructuredTool.from_function(
        coroutine=_echo, name="echo", description="Echo.", args_schema=EchoArgs
    )
}


async def test_success() -> None:
    outcome = await run_tool_call(TOOLS, {"id": "1", "name": "echo", "args": {"text": "hi"}})
    assert (outcome.id, outcome.text, outcome.is_error, outcome.malformed) == (
        "1",
        "echo hi",
        False,
        False,
    )
    message = outcome.message()
    assert (message.tool_call_id, message.content, message.status) == ("1", "echo hi", "success")


async def test_failures_are_text() -> None:
    async def run(args: dict, name: str = "echo") -> tuple[str, bool, bool]:
        o = await run_tool_call(TOOLS, {"id": "1", "name": name, "args": args})
        return o.text, o.is_error, o.malformed

    assert await run({"text": "tool-error"}) == (
        "Error (QUERY_FAILED): no such column",
        True,
        False,
    )
    assert await run({"text": "agent-error"}) == (
        "Error (QUERY_TIMEOUT): The query took too long.",
        True,
        False,
    )
    assert await run({"text": "bug"}) == (
        "Error (INTERNAL_ERROR): echo failed (KeyError).",
        True,
        False,
    )
    text, is_error, malformed = await run({"txt": "hi"})
    assert text == "Error (VALIDATION_ERROR): invalid arguments for echo: text: Field required."
    assert is_error and malformed
    text, is_error, malformed = await run({}, name="shell")
    assert text == "Error (VALIDATION_ERROR): there is no tool named 'shell'; use echo."
    assert is_error and not malformed


async def test_concurrent_calls_keep_their_order_and_ids() -> None:
    reply = AIMessage(
        "",
        tool_calls=[
            {"id": "a", "name": "echo", "args": {"text": "slow"}},
            {"id": "b", "name": "echo", "args": {"text": "fast"}},
        ],
    )
    finished: list[str] = []

    async def on_outcome(outcome: ToolOutcome) -> None:
        finished.append(outcome.id)

    turn = await run_turn(ToolBudget(ToolLimits()), TOOLS, reply, on_outcome=on_outcome)
    assert [(o.id, o.text) for o in turn.outcomes] == [("a", "echo slow"), ("b", "echo fast")]
    assert [(m.tool_call_id, m.content) for m in turn.messages] == [
        ("a", "echo slow"),
        ("b", "echo fast"),
    ]
    assert finished == ["b", "a"]  # reported as each finished, returned in call order


def test_malformed_json_outcome() -> None:
    outcome = invalid_call_outcome({"id": "z", "name": "echo", "args": "{bad", "error": None})
    assert outcome.is_error and outcome.malformed and outcome.id == "z"
    assert "were not valid JSON" in outcome.text
    assert invalid_call_outcome({"name": "echo", "args": "{"}).id.startswith("call_")
