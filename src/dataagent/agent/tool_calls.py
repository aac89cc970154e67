"""Running the model's tool calls: one call (every failure becomes text the model reads) and
one turn of calls under the answer's `ToolBudget`.

Both loops (`react.ReactLoop` and the stateless chat) run a turn with `run_turn`: the calls
past the turn's limit are not run but answered, so every call the model made has its result
(the pairing providers require); the kept calls run at most `parallel_calls` at a time while
the answer has tool time left; and the results are cut to what the model may read.
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import Any

from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.messages.tool import invalid_tool_call, tool_call
from langchain_core.tools import BaseTool, ToolException
from pydantic import ValidationError

from dataagent.agent.budget import ToolBudget
from dataagent.agent.prompts import call_not_run, tool_time_spent
from dataagent.agent.tools import error_text
from dataagent.errors import DataAgentError, validation_problems
from dataagent.llm.calls import clip_text


@dataclass(frozen=True)
class ToolOutcome:
    """One tool call and how it went: its whole text, and whether it failed."""

    id: str
    name: str
    args: Any
    text: str
    is_error: bool
    duration_ms: int
    # Malformed JSON or arguments that do not fit the tool's schema (the model's fault).
    malformed: bool = False

    def message(self) -> ToolMessage:
        """The result as the model reads it, matched to its call by id."""
        return ToolMessage(
            content=self.text,
            tool_call_id=self.id,
            name=self.name,
            status="error" if self.is_error else "success",
        )


def _call_id(call: dict[str, Any]) -> str:
    return str(call.get("id") or f"call_{uuid.uuid4().hex[:12]}")


def invalid_call_outcome(call: dict[str, Any]) -> ToolOutcome:
    """A tool call whose arguments were not valid JSON, answered with an error."""
    name = str(call.get("name") or "")
    text = (
        f"Error (VALIDATION_ERROR): the arguments of {name or 'the tool call'} were not valid "
        f"JSON ({call.get('error') or 'could not be parsed'}); send them again as one JSON object."
    )
    return ToolOutcome(_call_id(call), name, call.get("args"), text, True, 0, True)


def not_run_outcome(call: dict[str, Any], reason: str) -> ToolOutcome:
    """A tool call a limit kept from running, answered with why."""
    return ToolOutcome(
        _call_id(call), str(call.get("name") or ""), call.get("args"), reason, True, 0
    )


async def run_tool_call(tools: dict[str, BaseTool], call: dict[str, Any]) -> ToolOutcome:
    """Run one tool call; every failure becomes error text the model can read."""
    call_id, name, args = str(call.get("id") or ""), str(call.get("name") or ""), call.get("args")
    started = time.perf_counter()

    def outcome(text: str, is_error: bool = False, malformed: bool = False) -> ToolOutcome:
        ms = round((time.perf_counter() - started) * 1000)
        return ToolOutcome(call_id, name, args, text, is_error, ms, malformed)

    tool = tools.get(name)
    if tool is None:
        known = ", ".join(sorted(tools))
        return outcome(
            f"Error (VALIDATION_ERROR): there is no tool named {name!r}; use {known}.", True
        )
    # Invoked as a tool call, so a tool that answers a refusal itself (`handle_tool_error`)
    # reports it as an error result.
    invocation = {
        "type": "tool_call",
        "id": call_id,
        "name": name,
        "args": args if isinstance(args, dict) else {},
    }
    try:
        result = await tool.ainvoke(invocation)
    except ValidationError as exc:
        problems = validation_problems(exc, "arguments")
        return outcome(
            f"Error (VALIDATION_ERROR): invalid arguments for {name}: {problems}.", True, True
        )
    except ToolException as exc:
        return outcome(str(exc), True)
    except DataAgentError as exc:
        return outcome(error_text(exc), True)
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # a tool's own bug must not end the answer: the model is told
        return outcome(f"Error (INTERNAL_ERROR): {name} failed ({type(exc).__name__}).", True)
    failed = isinstance(result, ToolMessage) and result.status == "error"
    content = result.content if isinstance(result, ToolMessage) else result
    text = content if isinstance(content, str) else json.dumps(content, default=str)
    return outcome(text, failed)


OnCall = Callable[[dict[str, Any]], Awaitable[None]]
OnOutcome = Callable[[ToolOutcome], Awaitable[None]]


@dataclass(frozen=True)
class Turn:
    """A model turn's tool calls as they went."""

    # The calls within the turn's limit, in order: run, kept from running by the tool-time
    # budget, or malformed. Only these are reported as events and in the metadata.
    outcomes: list[ToolOutcome]
    # The model's turn as the conversation keeps it: only the calls within the limit, each
    # argument longer than a result may be replaced by a note (see `kept_turn`).
    reply: AIMessage
    # The result of each call in `reply`, as the model receives it (cut to the budget), in
    # call order; the last one also says how many calls past the limit were not run.
    messages: list[ToolMessage]
    # Calls past the turn's limit, answered "Not run" without running.
    not_run: int


async def run_turn(
    budget: ToolBudget,
    tools: dict[str, BaseTool],
    reply: AIMessage,
    *,
    on_call: OnCall | None = None,
    on_outcome: OnOutcome | None = None,
) -> Turn:
    """Run the tool calls of one model turn under the answer's budget.

    `on_call` hears each kept call (with its id) before any runs; `on_outcome` each kept
    call's outcome as it finishes. Calls past the turn's limit are heard by neither.
    """
    valid = [dict(c) for c in reply.tool_calls]
    invalid = [dict(c) for c in reply.invalid_tool_calls]
    for call in (*valid, *invalid):
        call["id"] = _call_id(call)
    limit = budget.limits.calls_per_turn
    limit_chars = budget.limits.chars_per_call
    asked = len(valid) + len(invalid)
    run, malformed = valid[:limit], invalid[: max(limit - len(valid), 0)]
    over = valid[limit:] + invalid[len(malformed) :]
    if on_call is not None:
        for call in (*run, *malformed):
            await on_call(call)

    async def report(outcome: ToolOutcome) -> ToolOutcome:
        if on_outcome is not None:
            await on_outcome(outcome)
        return outcome

    async def one(call: dict[str, Any]) -> ToolOutcome:
        async with budget.slots:
            if budget.time_is_spent:
                outcome = not_run_outcome(call, tool_time_spent(budget.limits.time_budget_s))
            else:
                started = time.perf_counter()
                try:
                    outcome = await run_tool_call(tools, call)
                finally:
                    budget.spend(time.perf_counter() - started)
        return await report(outcome)

    outcomes = list(await asyncio.gather(*(one(call) for call in run)))
    for call in malformed:
        outcomes.append(await report(invalid_call_outcome(call)))
    budget.calls_not_run += len(over)
    texts = budget.for_model([o.text for o in outcomes])
    if over:
        texts[-1] += "\n\n" + call_not_run(limit, asked, len(over))
    messages = [replace(o, text=t).message() for o, t in zip(outcomes, texts, strict=True)]
    return Turn(outcomes, kept_turn(reply, run, malformed, limit_chars), messages, len(over))


def kept_turn(
    reply: AIMessage, run: list[dict[str, Any]], malformed: list[dict[str, Any]], limit: int
) -> AIMessage:
    """The model's turn as the conversation keeps it: the calls within the turn's limit only
    (the rest were never run, and their results would grow every later prompt), and any
    call's arguments longer than `limit` characters replaced by a note (they ran whole; the
    model need not read them again)."""
    valid = [
        tool_call(name=str(c.get("name") or ""), args=_kept_args(c.get("args"), limit), id=c["id"])
        for c in run
    ]
    invalid = [
        invalid_tool_call(
            name=c.get("name"),
            args=clip_text(str(c.get("args") or ""), limit),
            id=c["id"],
            error=c.get("error"),
        )
        for c in malformed
    ]
    return reply.model_copy(update={"tool_calls": valid, "invalid_tool_calls": invalid})


def _kept_args(args: Any, limit: int) -> dict[str, Any]:
    arguments = args if isinstance(args, dict) else {}
    size = len(json.dumps(arguments, default=str))
    if size <= limit:
        return arguments
    return {"omitted": f"{size:,} characters of arguments, not repeated here"}
