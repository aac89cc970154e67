"""The conversation an answer sees: recent messages verbatim, older ones summarised once.

The last `agent_history_messages` messages before the question are quoted with short
summaries of their tool calls (name, arguments and result, 200 characters each, at most
`TOOL_LINES` calls a message). Each quoted message is cut to `agent_history_message_chars`
characters and the quote to `agent_history_chars` in all, leaving out the oldest first: an
answer that made thousands of tool calls or printed megabytes adds a bounded amount to every
later prompt of the chat. Messages older than those are summarised by the model once and the
summary is kept on the chat (`history_summary`, `summary_through_seq`); a later answer reuses
it, and summarises again only when more messages have aged out (the previous summary plus the
newly aged messages). The summary too is cut to `agent_history_message_chars`.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage

from dataagent.agent.prompts import SUMMARY_INSTRUCTIONS
from dataagent.llm.calls import (
    ELLIPSIS,
    ChatClient,
    bounded_json,
    clip_text,
    text_of,
    tool_arguments_json,
)
from dataagent.services import chats
from dataagent.services.context import AppContext
from dataagent.store.models import DataChatMessage

SUMMARY_CHARS = 200
NAME_CHARS = 50
# Tool calls quoted of one earlier answer; the rest are counted.
TOOL_LINES = 10


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
class HistoryLimits:
    """How much of the earlier conversation a prompt quotes, per message and in all."""

    message_chars: int = 4000
    total_chars: int = 40_000


@dataclass(frozen=True)
class SavedSummary:
    """The summary a chat keeps, and the seq of the last message it covers."""

    text: str | None
    through_seq: int | None


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


def _tool_line(item: dict[str, Any]) -> str:
    args = tool_arguments_json(bounded_json(item.get("args", {}), SUMMARY_CHARS))
    result = " ".join(clip_text(str(item.get("result", "")), 2 * SUMMARY_CHARS).split())
    args, result = clip_text(args, SUMMARY_CHARS), clip_text(result, SUMMARY_CHARS)
    return f"  - tool {clip_text(str(item.get('name')), NAME_CHARS)}({args}) -> {result}"


def _block(message: HistoryMessage, chars: int) -> str:
    """One message as quoted: at most `chars` characters, of which its text has half when it
    made tool calls; at most `TOOL_LINES` calls, the rest counted."""
    role = "User" if message.role == "user" else "Assistant"
    found = message.metadata.get("toolCalls") if message.role == "assistant" else None
    calls = [c for c in found[: TOOL_LINES + 1] if isinstance(c, dict)] if found else []
    text = clip_text(message.content.strip(), chars // 2 if calls else chars)
    if message.status == "failed":
        error = message.metadata.get("error") or {}
        reason = clip_text(str(error.get("message")), SUMMARY_CHARS)
        text = (text + "\n" if text else "") + f"(this answer failed: {reason})"
    lines = [f"{role}: {text}"]
    room = chars - len(lines[0])
    shown = 0
    for item in calls[:TOOL_LINES]:
        line = _tool_line(item)
        if len(line) + SUMMARY_CHARS > room:
            break
        lines.append(line)
        room -= len(line) + 1
        shown += 1
    if found and len(found) > shown:
        lines.append(f"  - (and {len(found) - shown} more tool calls)")
    return "\n".join(lines)


def transcript(messages: Sequence[HistoryMessage], limits: HistoryLimits = HistoryLimits()) -> str:
    """Messages as the prompt quotes them: role, text, and abbreviated tool calls; each cut to
    `limits.message_chars`, and the oldest left out past `limits.total_chars`."""
    blocks: list[str] = []
    used = 0
    for message in reversed(messages):
        block = _block(message, limits.message_chars)
        if blocks and used + len(block) > limits.total_chars:
            left_out = len(messages) - len(blocks)
            blocks.append(f"({left_out} earlier messages are left out here.)")
            break
        blocks.append(block)
        used += len(block) + 2
    return "\n\n".join(reversed(blocks))


# The statuses of an answer that ended: quoted, as the next question follows on from them.
_FINISHED = frozenset({"complete", "failed", "clarification_needed"})


def quotable(messages: Sequence[HistoryMessage]) -> list[HistoryMessage]:
    """The messages worth quoting: questions, and answers that finished (complete, failed, or
    clarifying questions, which the next message answers)."""
    return [
        m
        for m in messages
        if m.role == "user" or (m.status in _FINISHED and (m.content or m.metadata))
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
    settings = ctx.settings
    limits = HistoryLimits(settings.agent_history_message_chars, settings.agent_history_chars)
    keep = settings.agent_history_messages
    recent = messages[-keep:] if keep > 0 else []
    aged = messages[: len(messages) - len(recent)]
    summary = await _summary(ctx, client, chat_id, saved, aged, limits)
    parts = []
    if summary:
        summary = clip_text(summary, limits.message_chars)
        parts.append(f"Summary of the earlier conversation:\n{summary}")
    if recent:
        parts.append(transcript(recent, limits))
    return "\n\n".join(parts)


async def _summary(
    ctx: AppContext,
    client: ChatClient,
    chat_id: uuid.UUID,
    saved: SavedSummary,
    aged: Sequence[HistoryMessage],
    limits: HistoryLimits,
) -> str | None:
    if not aged:
        return None
    through = aged[-1].seq
    if saved.text and saved.through_seq is not None and saved.through_seq >= through:
        return saved.text
    if saved.text and saved.through_seq is not None:
        new = [m for m in aged if m.seq > saved.through_seq]
        earlier = clip_text(saved.text, limits.message_chars)
        material = f"Summary so far:\n{earlier}\n\nLater messages:\n{transcript(new, limits)}"
    else:
        material = transcript(aged, limits)
    reply = await client.invoke(
        [SystemMessage(SUMMARY_INSTRUCTIONS), HumanMessage(material)],
        phase="history",
        purpose="summarise_history",
    )
    text = clip_text(text_of(reply.content).strip(), limits.message_chars)
    if not text:
        return saved.text
    async with ctx.database.session() as session:
        await chats.save_history_summary(session, chat_id, text, through)
    return text
