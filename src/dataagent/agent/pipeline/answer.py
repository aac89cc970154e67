"""The pipeline's entry point: a chat message answered by the six phases.

Contract: `answer_message(ctx, request, emit, client)` has `agent.react.answer_message`'s
signature and returns an `Answer` (content, metadata as seed 001 lists, and the message's
status).
"""

from __future__ import annotations

from dataagent.agent.events import Emit
from dataagent.agent.react import Answer, AnswerRequest
from dataagent.llm.calls import ChatClient
from dataagent.services.context import AppContext


async def answer_message(
    ctx: AppContext, request: AnswerRequest, emit: Emit, client: ChatClient
) -> Answer:
    """Answer the assistant message `request.message_id` with the pipeline."""
    raise NotImplementedError("the pipeline's entry point is being built (issue 23)")
