"""Finishing an assistant message: complete or failed, once."""

from __future__ import annotations

from datetime import datetime

from tests.integration.agent.conftest import Retail

from dataagent.services import chats
from dataagent.store import runs
from dataagent.store.models import DataChat, DataChatMessage


async def _placeholder(retail: Retail) -> tuple[DataChatMessage, datetime]:
    async with retail.world.database.session() as session:
        _, reply = await chats.send_message(
            retail.world.context, session, retail.owner_id, retail.chat_id, "Hi?"
        )
        reply.metadata_ = {"claimed": True}
        await session.commit()
        chat = await session.get(DataChat, retail.chat_id)
        assert chat is not None
        return reply, chat.updated_at


async def _load(retail: Retail, message: DataChatMessage) -> tuple[DataChatMessage, DataChat]:
    async with retail.world.database.session() as session:
        row = await session.get(DataChatMessage, message.id)
        chat = await session.get(DataChat, retail.chat_id)
    assert row is not None and chat is not None
    return row, chat


async def test_complete_merges_metadata_and_is_final(retail: Retail) -> None:
    reply, before = await _placeholder(retail)
    async with retail.world.database.session() as session:
        await chats.complete_message(session, reply.id, "Hello.", {"tokensUsed": {"total": 3}})
        # Later attempts to finish it again change nothing.
        assert not await runs.fail_generating_message(session, reply.id, "partial", {"code": "X"})
        await session.commit()
        await chats.complete_message(session, reply.id, "Other.", {})
    row, chat = await _load(retail, reply)
    assert (row.status, row.content) == ("complete", "Hello.")
    assert row.metadata_ == {"claimed": True, "tokensUsed": {"total": 3}}
    assert chat.updated_at >= before


async def test_fail_keeps_partial_text_and_the_error(retail: Retail) -> None:
    reply, _ = await _placeholder(retail)
    async with retail.world.database.session() as session:
        error = {"code": "CANCELLED", "message": "Cancelled by the user."}
        assert await runs.fail_generating_message(session, reply.id, "Half", error)
        await session.commit()
        await chats.complete_message(session, reply.id, "Too late.", {"x": 1})
    row, _ = await _load(retail, reply)
    assert (row.status, row.content) == ("failed", "Half")
    assert row.metadata_ is not None
    error = row.metadata_["error"]
    assert (error["code"], error["message"]) == ("CANCELLED", "Cancelled by the user.")
    assert "x" not in row.metadata_


async def test_naming_only_an_unnamed_chat(retail: Retail) -> None:
    async with retail.world.database.session() as session:
        assert await chats.name_unnamed_chat(session, retail.chat_id, "Stores by region")
        assert not await chats.name_unnamed_chat(session, retail.chat_id, "Something else")
        chat = await session.get(DataChat, retail.chat_id)
    assert chat is not None and chat.name == "Stores by region"
