"""Chat names from questions, and how earlier messages are quoted."""

from __future__ import annotations

import pytest

from dataagent.agent.history import HistoryMessage, clip, name_from_question, quotable, transcript


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
    assert clip("abc", 3) == "abc"
    assert clip("abcd", 3) == "ab…"


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
