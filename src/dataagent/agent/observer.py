"""Model calls as events: `llm_call_start`, `llm_call_end` and `token_update`."""

from __future__ import annotations

from dataagent.agent.events import Emit
from dataagent.llm.calls import CallObserver, LlmCall
from dataagent.llm.usage import TokenUsage


class EventObserver:
    """A `CallObserver` that emits each call's start and end and the answer's running tokens.

    It passes each call on to `inner` (the run's own observer, if it has one).
    """

    def __init__(self, emit: Emit, inner: CallObserver | None = None) -> None:
        self.emit = emit
        self.inner = inner
        self.total = TokenUsage()

    async def call_started(self, call: LlmCall) -> None:
        """Emit `llm_call_start`."""
        await self.emit("llm_call_start", call.start_event())
        if self.inner is not None:
            await self.inner.call_started(call)

    async def call_ended(self, call: LlmCall) -> None:
        """Emit `llm_call_end`, then `token_update` with this call's and the answer's tokens."""
        self.total = self.total + call.usage
        await self.emit("llm_call_end", call.end_event())
        await self.emit(
            "token_update",
            {
                "phase": call.phase,
                "tokensUsed": call.usage.to_json(),
                "totalTokensUsed": self.total.to_json(),
            },
        )
        if self.inner is not None:
            await self.inner.call_ended(call)
