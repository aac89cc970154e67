"""Chat names from questions, and how earlier messages are quoted."""

from __future__ import annotations

import pytest

from dataagent.agent.history import (
    TOOL_LINES,
    HistoryLimits,
    HistoryMessage,
    name_from_question,
    quotable,
    transcript,
)
from dataagent.llm.calls import clip_text


@pytest.mark.parametrize(
    ("question", "name"),
    [
        ("How many orders?", "How many orders?"),
        ("  How   many\norders? ", "How many orders?"),
        ("x" * 50, "x" * 50),
        (
            "Which of our stores sold the most units of discounted products during the holidays?",
            "Which of our stores sold the most units of…",
        ),
        ("y" * 80, "y" * 49 + "…"),
        (
            "Revenue, by region, for the last twelve months, please: completed orders",
            "Revenue, by region, for the last twelve months…",
        ),
    ],
)
def test_name_from_question(question: str, name: str) -> None:
    assert name_from_question(question) == name
    assert len(name) <= 50


def test_clip() -> None:
    assert clip_text("abc", 3) == "abc"
    assert clip_text("abcd", 3) == "ab…"


def test_transcript_quotes_tool_calls_and_failures() -> None:
    messages = [
        HistoryMessage(0, "user", "Count orders", "complete", {}),
        HistoryMessage(
            1,
            "assistant",
            "There are 3.",
            "complete",
            {
                "toolCalls": [
                    {
                        "name": "query_database",
                        "args": {"sql": "SELECT 1"},
                        "result": "| 1 |\n|---|",
                    }
                ]
            },
        ),
        HistoryMessage(2, "user", "And stores?", "complete", {}),
        HistoryMessage(3, "assistant", "", "failed", {"error": {"message": "Cancelled."}}),
        HistoryMessage(4, "user", "Again?", "complete", {}),
        HistoryMessage(5, "assistant", "", "generating", {"claimed": True}),
    ]
    kept = quotable(messages)
    assert [m.seq for m in kept] == [0, 1, 2, 3, 4]
    assert transcript(kept) == (
        "User: Count orders\n\n"
        "Assistant: There are 3.\n"
        '  - tool query_database({"sql":"SELECT 1"}) -> | 1 | |---|\n\n'
        "User: And stores?\n\n"
        "Assistant: (this answer failed: Cancelled.)\n\n"
        "User: Again?"
    )


def test_clarifying_questions_are_quoted_so_the_reply_continues_them() -> None:
    messages = [
        HistoryMessage(0, "user", "Revenue by region?", "complete", {}),
        HistoryMessage(1, "assistant", "Which year: 2025 or 2026?", "clarification_needed", {}),
        HistoryMessage(2, "user", "2026", "complete", {}),
    ]
    assert quotable(messages) == messages
    assert transcript(messages) == (
        "User: Revenue by region?\n\nAssistant: Which year: 2025 or 2026?\n\nUser: 2026"
    )


def test_an_answer_with_thousands_of_tool_calls_is_quoted_briefly() -> None:
    calls = [
        {
            "name": "run_python",
            "args": {"code": "print('x' * 2_000_000)" * 1000},
            "result": "x" * 5000,
        }
        for _ in range(3000)
    ]
    answer = HistoryMessage(
        1, "assistant", "Done." + "!" * 100_000, "complete", {"toolCalls": calls}
    )
    quoted = transcript([answer], HistoryLimits(message_chars=4000, total_chars=40_000))
    assert len(quoted) <= 4000 + 50
    assert quoted.startswith("Assistant: Done.!!!")
    assert quoted.endswith(" more tool calls)")
    briefly = HistoryMessage(1, "assistant", "Done.", "complete", {"toolCalls": calls})
    text = transcript([briefly], HistoryLimits(message_chars=10_000))
    assert text.count("  - tool run_python(") == TOOL_LINES
    assert text.endswith(f"  - (and {3000 - TOOL_LINES} more tool calls)")
    assert all(len(line) < 500 for line in text.splitlines())


def test_past_the_total_the_oldest_messages_are_left_out() -> None:
    messages = [
        HistoryMessage(
            n, "user" if n % 2 == 0 else "assistant", f"message {n} " + "m" * 900, "complete", {}
        )
        for n in range(20)
    ]
    quoted = transcript(messages, HistoryLimits(message_chars=1000, total_chars=5000))
    assert len(quoted) <= 5000 + 100
    assert quoted.startswith("(15 earlier messages are left out here.)\n\nAssistant: message 15 ")
    assert quoted.rstrip("m").endswith("Assistant: message 19 ")
