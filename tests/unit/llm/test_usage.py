"""Token usage read from LangChain's, OpenAI's and Anthropic's response formats."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import AIMessage, AIMessageChunk

from dataagent.llm.usage import TokenUsage, usage_of


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        # LangChain's own field, whichever provider filled it.
        (
            AIMessage(
                "",
                usage_metadata={"input_tokens": 12, "output_tokens": 5, "total_tokens": 17},
            ),
            TokenUsage(12, 5),
        ),
        # OpenAI chat completions: response_metadata.token_usage.
        (
            AIMessage(
                "",
                response_metadata={
                    "token_usage": {
                        "prompt_tokens": 100,
                        "completion_tokens": 20,
                        "total_tokens": 120,
                    }
                },
            ),
            TokenUsage(100, 20),
        ),
        # OpenAI's `usage` key (older integrations, compatible servers).
        (
            AIMessage(
                "", response_metadata={"usage": {"prompt_tokens": 7, "completion_tokens": 3}}
            ),
            TokenUsage(7, 3),
        ),
        # Anthropic: response_metadata.usage with input/output tokens.
        (
            AIMessage(
                "",
                response_metadata={
                    "usage": {
                        "input_tokens": 40,
                        "output_tokens": 9,
                        "cache_read_input_tokens": 0,
                    }
                },
            ),
            TokenUsage(40, 9),
        ),
        # Nothing reported: zeros, not an error.
        (AIMessage("no usage"), TokenUsage()),
        (AIMessage("", response_metadata={"usage": "n/a"}), TokenUsage()),
        # Nonsense values count as zero (a bool is not a count).
        (
            AIMessage(
                "", response_metadata={"usage": {"prompt_tokens": True, "completion_tokens": "9"}}
            ),
            TokenUsage(0, 0),
        ),
    ],
)
def test_usage_of_each_format(message: Any, expected: TokenUsage) -> None:
    assert usage_of(message) == expected


def test_usage_of_merged_stream_chunks_adds_up() -> None:
    # How a stream reports it: the usage chunk at the end, merged into the rest.
    merged = AIMessageChunk(content="Hel") + AIMessageChunk(content="lo")
    merged = merged + AIMessageChunk(
        content="", usage_metadata={"input_tokens": 30, "output_tokens": 2, "total_tokens": 32}
    )
    assert usage_of(merged) == TokenUsage(30, 2)


def test_token_usage_sums_and_serialises() -> None:
    total = TokenUsage(10, 2) + TokenUsage(5, 1)
    assert total.total == 18
    assert total.to_json() == {"prompt": 15, "completion": 3, "total": 18}
