"""What one answer's tool calls may cost: how many run, how long, and how much the model reads.

A model is not trusted: a prompt injection in the data can make it ask for thousands of
calls, print megabytes, or keep the sandbox busy. Every answer (of either loop) therefore
has one `ToolBudget`, on its `ToolScope`, and runs each turn's calls through
`tool_calls.run_turn`, which keeps these limits in one place:

- at most `calls_per_turn` calls of a turn run; the others are answered "Not run: …";
- at most `parallel_calls` calls of the answer run at once;
- once the answer has spent `time_budget_s` seconds in tools, further calls are answered
  "Not run: … tool time … is spent" (a call already running ends by its own timeout);
- the model reads at most `chars_per_call` characters of one result, and at most
  `chars_per_turn` and `chars_per_answer` of all of them; a result cut short ends with a note
  saying how much was left out and how to ask for less.

Events and the message's metadata keep their own shorter cut (`agent_tool_result_chars`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from dataagent.agent.prompts import PromptLimits, output_cut, result_cut
from dataagent.config import Settings

# A result cut by the turn's or the answer's total still shows this much: enough for an
# error message or a "Not run" notice to be read.
FLOOR_CHARS = 300


@dataclass(frozen=True)
class ToolLimits:
    """The limits of one answer's tool calls (see the module docstring)."""

    calls_per_turn: int = 10
    parallel_calls: int = 4
    time_budget_s: float = 300.0
    chars_per_call: int = 20_000
    chars_per_turn: int = 60_000
    chars_per_answer: int = 200_000

    @classmethod
    def of(cls, settings: Settings) -> ToolLimits:
        """The limits the settings name (`agent_*`)."""
        return cls(
            calls_per_turn=settings.agent_max_tool_calls_per_turn,
            parallel_calls=settings.agent_max_parallel_tool_calls,
            time_budget_s=settings.agent_tool_time_budget_s,
            chars_per_call=settings.agent_result_chars_per_call,
            chars_per_turn=settings.agent_result_chars_per_turn,
            chars_per_answer=settings.agent_result_chars_per_answer,
        )


def prompt_limits(settings: Settings) -> PromptLimits:
    """The limits the system prompt states: the database's and the tools'."""
    return PromptLimits(
        settings.query_max_rows,
        settings.query_timeout_s,
        calls_per_turn=settings.agent_max_tool_calls_per_turn,
        result_chars=settings.agent_result_chars_per_call,
    )


class ToolBudget:
    """One answer's tool limits and what it has used of them so far."""

    def __init__(self, limits: ToolLimits) -> None:
        self.limits = limits
        self.time_spent_s = 0.0
        self.chars_given = 0
        self.calls_not_run = 0
        # Calls of this answer running at once; the rest of a turn waits here.
        self.slots = asyncio.Semaphore(limits.parallel_calls)

    @property
    def time_is_spent(self) -> bool:
        """True once the answer's tools have run for the whole budget."""
        return self.time_spent_s >= self.limits.time_budget_s

    def spend(self, seconds: float) -> None:
        """Count the time one tool call ran."""
        self.time_spent_s += seconds

    def for_model(self, texts: Sequence[str]) -> list[str]:
        """A turn's results, in call order, as the model receives them: each cut to what is
        left of the per-result, turn and answer limits (never below a short floor)."""
        limits = self.limits
        turn_left = limits.chars_per_turn
        shown = []
        for text in texts:
            answer_left = limits.chars_per_answer - self.chars_given
            room, reached, limit = limits.chars_per_call, "call", limits.chars_per_call
            if turn_left < room:
                room, reached, limit = turn_left, "turn", limits.chars_per_turn
            if answer_left < room:
                room, reached, limit = answer_left, "answer", limits.chars_per_answer
            given = cut_result(text, max(room, FLOOR_CHARS), limit, reached)
            turn_left -= len(given)
            self.chars_given += len(given)
            shown.append(given)
        return shown


def cut_result(text: str, room: int, limit: int, reached: str) -> str:
    """`text` cut to its first `room` characters, with the note saying which limit cut it."""
    if len(text) <= room:
        return text
    return text[:room] + result_cut(len(text) - room, limit, reached)


def cut_output(text: str, room: int, keep: Literal["first", "last"] = "first") -> str:
    """Printed output cut to `room` characters: its first part (stdout) or its last part
    (stderr, where a traceback ends with the error)."""
    if len(text) <= room:
        return text
    note = output_cut(len(text) - room, keep)
    if keep == "first":
        return f"{text[:room]}\n{note}"
    return f"{note}\n{text[-room:]}"
