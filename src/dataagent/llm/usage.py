"""Token usage of chat-model calls, read from OpenAI's and Anthropic's response formats."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class TokenUsage:
    """Prompt, completion and total tokens (seed 000's `tokensUsed`)."""

    prompt: int = 0
    completion: int = 0

    @property
    def total(self) -> int:
        """Prompt and completion together."""
        return self.prompt + self.completion

    def __add__(self, other: TokenUsage) -> TokenUsage:
        return TokenUsage(self.prompt + other.prompt, self.completion + other.completion)

    def to_json(self) -> dict[str, int]:
        """`{"prompt", "completion", "total"}`, as events and message metadata carry it."""
        return {"prompt": self.prompt, "completion": self.completion, "total": self.total}


def _int(value: Any) -> int:
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0


def usage_of(message: Any) -> TokenUsage:
    """The usage a LangChain AI message reports, whichever provider sent it.

    LangChain's own `usage_metadata` (input/output tokens) first; then OpenAI's
    `response_metadata.token_usage` / `usage` (prompt_tokens, completion_tokens) and
    Anthropic's `response_metadata.usage` (input_tokens, output_tokens). No usage: zeros.
    """
    metadata = getattr(message, "usage_metadata", None)
    if isinstance(metadata, dict) and ("input_tokens" in metadata or "output_tokens" in metadata):
        return TokenUsage(_int(metadata.get("input_tokens")), _int(metadata.get("output_tokens")))
    response = getattr(message, "response_metadata", None) or {}
    for key in ("token_usage", "usage"):
        usage = response.get(key) if isinstance(response, dict) else None
        if not isinstance(usage, dict):
            continue
        if "prompt_tokens" in usage or "completion_tokens" in usage:
            return TokenUsage(
                _int(usage.get("prompt_tokens")), _int(usage.get("completion_tokens"))
            )
        if "input_tokens" in usage or "output_tokens" in usage:
            return TokenUsage(_int(usage.get("input_tokens")), _int(usage.get("output_tokens")))
    return TokenUsage()
