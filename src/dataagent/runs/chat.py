"""The run that answers a chat message: `message_start`, the agent's events, then
`message_complete`, or `message_error` with the partial text kept on the failed message.

The chat's answer mode picks the agent (`answerer_for`): the ReAct loop
(`agent.react.answer_message`) or seed 001's pipeline (`agent.pipeline.answer`), both
answering with the model client of the chat (`services.llm.chat_client`), or the pipeline
with the offline planner and a client that makes no call (`answer_offline`), in an
`offline` chat and in every chat when no provider is configured (`llm.answering_mode`).
The traces are kept whether it succeeds or fails.
"""

from __future__ import annotations

import uuid
from typing import Any, Protocol

from sqlalchemy.ext.asyncio import AsyncSession

from dataagent.agent import react
from dataagent.agent.events import Emit
from dataagent.agent.pipeline import answer as pipeline
from dataagent.errors import ErrorCode
from dataagent.llm.calls import ChatClient
from dataagent.runs.event_log import StoredEvent, partial_content
from dataagent.runs.runner import RunContext
from dataagent.services import chats as chat_services
from dataagent.services import llm
from dataagent.services.context import AppContext
from dataagent.store import runs
from dataagent.store.models import AgentRun
from dataagent.store.types import utcnow
from dataagent.vocabulary import AgentMode

ANSWER_CANCELLED = "The answer was cancelled."
ANSWER_INTERRUPTED = "The server stopped while this answer was being generated."


class Answerer(Protocol):
    """An agent's entry point: answer one assistant message (`react.answer_message`)."""

    async def __call__(
        self, ctx: AppContext, request: react.AnswerRequest, emit: Emit, client: ChatClient
    ) -> react.Answer:
        """The answer: its text, metadata and the message's status."""


# One entry per answer mode; each has the same signature (see `Answerer`).
ANSWERERS: dict[AgentMode, Answerer] = {
    "react": react.answer_message,
    "pipeline": pipeline.answer_message,
    "offline": pipeline.answer_offline,
}


def answerer_for(mode: AgentMode) -> Answerer:
    """The agent that answers a chat in this mode."""
    return ANSWERERS[mode]


def message_start(run: AgentRun) -> dict[str, Any]:
    """The payload of `message_start`, the first event of an answer (written with its claim)."""
    return {
        "messageId": str(run.message_id),
        "chatId": str(run.chat_id),
        "runId": str(run.id),
        "startedAt": run.created_at.isoformat(),
    }


def message_error(
    message_id: uuid.UUID | None, code: ErrorCode, message: str, partial: str
) -> dict[str, Any]:
    """The payload of `message_error`."""
    return {
        "messageId": str(message_id),
        "message": message,
        "code": code.value,
        "partialContent": partial,
    }


def partial_of(events: list[StoredEvent]) -> str:
    """The answer text the log holds so far (see `events.partial_content`)."""
    return partial_content((e.event, e.payload()) for e in events)


async def fail_answer(
    session: AsyncSession,
    run: AgentRun,
    code: ErrorCode,
    message: str,
    events: list[StoredEvent],
) -> tuple[str, dict[str, Any]]:
    """The message `failed` with its partial text (unless it had ended), in `session`;
    the `message_error` event. Shared by a failing worker and the reaper."""
    partial = partial_of(events)
    if run.message_id is not None:
        error = {"code": code.value, "message": message, "timestamp": utcnow().isoformat()}
        await runs.fail_generating_message(session, run.message_id, partial, error)
    return "message_error", message_error(run.message_id, code, message, partial)


class ChatAnswers:
    """The `chat_message` run kind."""

    cancelled_message = ANSWER_CANCELLED
    interrupted_message = ANSWER_INTERRUPTED

    async def execute(self, run: RunContext) -> None:
        """Answer the message with the agent and end the run with the answer stored, in its
        last transaction; raise on failure (the runner then fails the message through
        `abandon`), saving the traces either way."""
        assert run.chat_id is not None and run.message_id is not None
        # `message_start` was stored with the claim (runs.answers.start_answer). The chat is
        # read once here, and passed down to the agent.
        async with run.app.database.session() as session:
            conversation = await chat_services.load_conversation(
                run.app, session, run.owner_id, run.chat_id, run.message_id
            )
            chat = conversation.chat
            mode = await llm.answering_mode(
                run.app, session, run.owner_id, chat.llm_provider, chat.agent_mode
            )
            client: ChatClient = (
                llm.NoModelClient()
                if mode == "offline"
                else await llm.chat_client(run.app, session, run.owner_id, chat.llm_provider)
            )
        answer = await self._answer(run, client, conversation, mode)
        message_id = run.message_id

        async def store(session: AsyncSession) -> None:
            await chat_services.complete_message(
                session, message_id, answer.content, answer.metadata, answer.status
            )

        await run.end(
            "message_complete",
            {
                "messageId": str(message_id),
                "content": answer.content,
                "metadata": answer.metadata,
                "status": answer.status,
            },
            store,
        )

    async def _answer(
        self,
        run: RunContext,
        client: ChatClient,
        conversation: chat_services.Conversation,
        mode: AgentMode,
    ) -> react.Answer:
        answer_message = answerer_for(mode)
        try:
            request = react.AnswerRequest(run.owner_id, conversation, run.run_id)
            return await answer_message(run.app, request, run.emit, client)
        finally:
            async with run.app.database.session() as session:
                await llm.save_traces(
                    session,
                    run.owner_id,
                    client.calls,
                    run_id=run.run_id,
                    message_id=run.message_id,
                )
                await session.commit()

    async def abandon(
        self,
        session: AsyncSession,
        run: AgentRun,
        code: ErrorCode,
        message: str,
        events: list[StoredEvent],
    ) -> tuple[str, dict[str, Any]]:
        """The message failed with its partial text; `message_error`."""
        return await fail_answer(session, run, code, message, events)
