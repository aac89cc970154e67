"""A question asked in process: the command line (`dataagent ask`, `dataagent eval`) and
the MCP server's `ask` tool answer through the same chats, runs and event log as the web
page.

`ask` starts a chat on the ontology (or continues one of the caller's), stores the question
and its placeholder (`services.chats.send_message`), claims the answer and submits its run
(`runs.answers.start_answer`), then reads the run's events from the log until the answer
ends, handing each to `on_event`, and waits for the run's task to end. The answer is the
terminal event's: `message_complete`'s content, metadata and status, or `message_error`'s
code and sentence (`failed`).
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from dataagent.errors import ErrorCode
from dataagent.runs.answers import start_answer
from dataagent.runs.system import RunSystem
from dataagent.services import chats
from dataagent.vocabulary import AgentMode

OnEvent = Callable[[str, dict[str, Any]], Awaitable[None]]
AskedStatus = Literal["complete", "clarification_needed", "failed"]


@dataclass(frozen=True)
class AskedAnswer:
    """How a question asked in process was answered."""

    chat_id: uuid.UUID
    message_id: uuid.UUID
    run_id: uuid.UUID
    status: AskedStatus
    content: str
    metadata: dict[str, Any] = field(default_factory=dict)
    error_code: str | None = None
    error_message: str | None = None


async def ask(
    system: RunSystem,
    owner_id: uuid.UUID,
    ontology_id: uuid.UUID,
    question: str,
    *,
    mode: AgentMode | None = None,
    chat_id: uuid.UUID | None = None,
    on_event: OnEvent | None = None,
) -> AskedAnswer:
    """Answer `question` on one of the owner's ontologies, in a new chat in `mode` (default:
    the server's) or in their chat `chat_id` (which keeps its own mode). The owner's checks
    are the API's: another user's ontology or chat is NOT_FOUND."""
    app = system.app
    async with app.database.session() as session:
        if chat_id is None:
            chat = await chats.create_chat(
                app, session, owner_id, chats.DEFAULT_CHAT_NAME, ontology_id, agent_mode=mode
            )
            chat_id = chat.id
        _question, reply = await chats.send_message(app, session, owner_id, chat_id, question)
        message_id = reply.id
        run_id, after = await start_answer(system, session, owner_id, chat_id, message_id)
    answer: AskedAnswer | None = None
    async for event in system.events.tail(run_id, after):
        if event is None:
            continue
        payload = event.payload()
        if on_event is not None:
            await on_event(event.event, payload)
        if event.event == "message_complete":
            status = payload.get("status", "complete")
            answer = AskedAnswer(
                chat_id,
                message_id,
                run_id,
                "clarification_needed" if status == "clarification_needed" else "complete",
                str(payload.get("content", "")),
                dict(payload.get("metadata") or {}),
            )
        elif event.event == "message_error":
            answer = AskedAnswer(
                chat_id,
                message_id,
                run_id,
                "failed",
                str(payload.get("partialContent", "")),
                error_code=str(payload.get("code", "")),
                error_message=str(payload.get("message", "")),
            )
    # The terminal event is stored before the run's task has ended: wait for it, so that
    # the owner's next question is not refused as one already being answered.
    await system.runner.wait(run_id)
    if answer is None:
        # The log ended without a terminal event: the run was taken from this process.
        return AskedAnswer(
            chat_id,
            message_id,
            run_id,
            "failed",
            "",
            error_code=ErrorCode.INTERRUPTED.value,
            error_message="The answer ended without a result.",
        )
    return answer
