"""Long history: the messages older than the last ten are summarised once and kept."""

from __future__ import annotations

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from tests.fakes.scripted_model import Reply, ScriptedChatModel
from tests.integration.agent.conftest import Retail, scripted_client

from dataagent.agent import history
from dataagent.agent.history import HistoryMessage, SavedSummary
from dataagent.agent.prompts import SUMMARY_INSTRUCTIONS
from dataagent.services import chats
from dataagent.store.models import DataChat

LONG_SQL = "SELECT " + ", ".join(f"column_{i}" for i in range(60)) + " FROM orders"


async def _pairs(retail: Retail, count: int) -> None:
    """`count` finished questions and answers, each answer with one tool call."""
    async with retail.world.database.session() as session:
        for i in range(1, count + 1):
            _, reply = await chats.send_message(
                retail.world.context, session, retail.owner_id, retail.chat_id, f"question {i}"
            )
            metadata = {
                "toolCalls": [
                    {
                        "id": f"c{i}",
                        "name": "query_database",
                        "args": {"sql": LONG_SQL},
                        "result": "x" * 500,
                    }
                ]
            }
            await chats.complete_message(session, reply.id, f"answer {i}", metadata)
        await session.commit()


def _summary_step(label: str, seen: list[str]) -> object:
    def step(messages: list[BaseMessage]) -> Reply:
        assert isinstance(messages[0], SystemMessage)
        assert messages[0].content == SUMMARY_INSTRUCTIONS
        assert isinstance(messages[1], HumanMessage)
        seen.append(str(messages[1].content))
        return Reply(text=label)

    return step


async def _chat(retail: Retail) -> DataChat:
    async with retail.world.database.session() as session:
        chat = await session.get(DataChat, retail.chat_id)
    assert chat is not None
    return chat


async def test_old_messages_are_summarised_once_and_the_summary_is_kept(retail: Retail) -> None:
    await _pairs(retail, 6)  # 12 messages: the 2 oldest fall outside the last 10
    seen: list[str] = []
    asked = await retail.ask(
        "question 7", [_summary_step("SUMMARY-A", seen), Reply(text="answer 7")]
    )
    assert len(asked.model.calls) == 2  # one summary, one answer
    (material,) = seen
    assert "User: question 1" in material and "Assistant: answer 1" in material
    assert "question 2" not in material
    chat = await _chat(retail)
    assert chat.history_summary == "SUMMARY-A"
    assert chat.summary_through_seq == 1  # question 1 is seq 0, its answer seq 1

    prompt = str(asked.model.calls[1][0].content)
    conversation = prompt.split("## Previous Conversation")[1]
    assert "Summary of the earlier conversation:\nSUMMARY-A" in conversation
    assert "User: question 2" in conversation and "Assistant: answer 6" in conversation
    assert "question 1\n" not in conversation and "question 7" not in conversation
    # Tool calls quoted by name, with arguments and results cut to 200 characters.
    tool_line = next(line for line in conversation.splitlines() if "tool query_database(" in line)
    args = tool_line.split("tool query_database(")[1].split(") -> ")[0]
    result = tool_line.split(") -> ")[1]
    assert len(args) == 200 and args.endswith("…")
    assert result == "x" * 199 + "…"

    # The same history again: the kept summary is used, the model is not called.
    async with retail.world.database.session() as session:
        _, messages = await chats.get_chat_with_messages(session, retail.owner_id, retail.chat_id)
    earlier = [HistoryMessage.of(m) for m in messages[:12]]
    idle = ScriptedChatModel(script=[])
    text = await history.conversation_context(
        retail.world.context,
        scripted_client(idle),
        retail.chat_id,
        SavedSummary(chat.history_summary, chat.summary_through_seq),
        earlier,
    )
    assert idle.calls == [] and text.startswith("Summary of the earlier conversation:\nSUMMARY-A")

    # Two more messages age out: the previous summary and only those two are summarised.
    seen.clear()
    asked = await retail.ask(
        "question 8", [_summary_step("SUMMARY-B", seen), Reply(text="answer 8")]
    )
    (material,) = seen
    assert material.startswith("Summary so far:\nSUMMARY-A")
    assert "User: question 2" in material and "Assistant: answer 2" in material
    assert "question 1" not in material and "question 3" not in material
    chat = await _chat(retail)
    assert (chat.history_summary, chat.summary_through_seq) == ("SUMMARY-B", 3)


async def test_short_history_needs_no_summary(retail: Retail) -> None:
    await _pairs(retail, 5)  # exactly the 10 quoted messages
    asked = await retail.ask("question 6", [Reply(text="answer 6")])
    assert len(asked.model.calls) == 1
    assert "User: question 1" in str(asked.model.calls[0][0].content)
    assert (await _chat(retail)).history_summary is None
