"""The conversation an answer sees: recent messages verbatim, older ones summarised once.

The last `agent_history_messages` messages before the question are quoted with short
summaries of their tool calls (name, arguments and result, 200 characters each). Messages
older than those are summarised by the model once and the summary is kept on the chat
(`history_summary`, `summary_through_seq`); a later answer reuses it, and summarises again
only when more messages have aged out (the previous summary plus the newly aged messages).
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage

from dataagent.agent.prompts import SUMMARY_INSTRUCTIONS
from dataagent.llm.calls import ChatClient, text_of, tool_arguments_json
from dataagent.services import chats
from dataagent.services.context import AppContext
from dataagent.store.models import DataChatMessage

SUMMARY_CHARS = 200
NAME_CHARS = 50
ELLIPSIS = "…"


@dataclass(frozen=True)
class HistoryMessage:
    """One earlier message, detached from the database session."""

    seq: int
    role: str
    content: str
    status: str
    metadata: dict[str, Any]

    @classmethod
    def of(cls, message: DataChatMessage) -> HistoryMessage:
        """The plain copy of a stored message."""
        return cls(
            message.seq,
            message.role,
            message.content or "",
            message.status,
            dict(message.metadata_ or {}),
        )


@dataclass(frozen=True)
class SavedSummary:
    """The summary a chat keeps, and the seq of the last message it covers."""

    text: str | None
    through_seq: int | None


def clip(text: str, limit: int) -> str:
    """`text` cut to `limit` characters, the cut marked with an ellipsis."""
    if len(text) <= limit:
        return text
    return text[: max(limit - len(ELLIPSIS), 0)] + ELLIPSIS


def name_from_question(text: str) -> str:
    """A chat name from its first question: at most 50 characters, cut at a word boundary."""
    words = " ".join(text.split())
    if len(words) <= NAME_CHARS:
        return words
    room = NAME_CHARS - len(ELLIPSIS)
    cut = words[: room + 1]
    space = cut.rfind(" ")
    head = cut[:space] if space > room // 2 else words[:room]
    return head.rstrip(" ,;:.-") + ELLIPSIS


def _tool_lines(metadata: dict[str, Any]) -> list[str]:
    lines = []
    for item in metadata.get("toolCalls") or []:
        if not isinstance(item, dict):
            continue
        args = clip(tool_arguments_json(item.get("args", {})), SUMMARY_CHARS)
        result = clip(" ".join(str(item.get("result", "")).split()), SUMMARY_CHARS)
        lines.append(f"  - tool {item.get('name')}({args}) -> {result}")
    return lines


def transcript(messages: Sequence[HistoryMessage]) -> str:
    """Messages as the prompt quotes them: role, text, and abbreviated tool calls."""
    blocks = []
    for message in messages:
        role = "User" if message.role == "user" else "Assistant"
        text = message.content.strip()
        if message.status == "failed":
            error = message.metadata.get("error") or {}
            text = (text + "\n" if text else "") + f"(this answer failed: {error.get('message')})"
        lines = [f"{role}: {text}"]
        if message.role == "assistant":
            lines += _tool_lines(message.metadata)
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def quotable(messages: Sequence[HistoryMessage]) -> list[HistoryMessage]:
    """The messages worth quoting: questions, and answers that finished (complete or failed)."""
    return [
        m
        for m in messages
        if m.role == "user" or (m.status in ("complete", "failed") and (m.content or m.metadata))
    ]


async def conversation_context(
    ctx: AppContext,
    client: ChatClient,
    chat_id: uuid.UUID,
    saved: SavedSummary,
    earlier: Sequence[HistoryMessage],
) -> str:
    """The "Previous Conversation" text: the summary of old messages, then the recent ones."""
    messages = quotable(earlier)
    keep = ctx.settings.agent_history_messages
    recent = messages[-keep:] if keep > 0 else []
    aged = messages[: len(messages) - len(recent)]
    summary = await _summary(ctx, client, chat_id, saved, aged)
    parts = []
    if summary:
        parts.append(f"Summary of the earlier conversation:\n{summary}")
    if recent:
        parts.append(transcript(recent))
    return "\n\n".join(parts)


async def _summary(
    ctx: AppContext,
    client: ChatClient,
    chat_id: uuid.UUID,
    saved: SavedSummary,
    aged: Sequence[HistoryMessage],
) -> str | None:
    if not aged:
        return None
    through = aged[-1].seq
    if saved.text and saved.through_seq is not None and saved.through_seq >= through:
        return saved.text
    if saved.text and saved.through_seq is not None:
        new = [m for m in aged if m.seq > saved.through_seq]
        material = f"Summary so far:\n{saved.text}\n\nLater messages:\n{transcript(new)}"
    else:
        material = transcript(aged)
    reply = await client.invoke(
        [SystemMessage(SUMMARY_INSTRUCTIONS), HumanMessage(material)],
        phase="history",
        purpose="summarise_history",
    )
    text = text_of(reply.content).strip()
    if not text:
        return saved.text
    async with ctx.database.session() as session:
        await chats.save_history_summary(session, chat_id, text, through)
    return text
