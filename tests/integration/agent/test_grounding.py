"""Grounding an answer holds no database connection while the question is embedded (an
embedding server may take its time; the app database's connections are for everyone)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from sqlalchemy import event
from tests.fakes.scripted_model import Reply
from tests.integration.agent.conftest import Retail

from dataagent.llm.embeddings import EmbeddingProvider, Matrix


class _Watching:
    """The app's embedding provider, noting how many app-database connections are checked
    out each time it embeds a question."""

    def __init__(self, inner: EmbeddingProvider, checked_out: list[int]) -> None:
        self.inner = inner
        self.checked_out = checked_out
        self.seen: list[int] = []

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def dimension(self) -> int:
        return self.inner.dimension

    def embed_documents(self, texts: Sequence[str]) -> Matrix:
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> Matrix:
        self.seen.append(self.checked_out[0])
        return self.inner.embed_query(text)

    async def aembed_documents(self, texts: Sequence[str]) -> Matrix:
        return await self.inner.aembed_documents(texts)

    async def aembed_query(self, text: str) -> Matrix:
        self.seen.append(self.checked_out[0])
        return await self.inner.aembed_query(text)


@contextmanager
def _watching(retail: Retail) -> Iterator[_Watching]:
    ctx = retail.world.context
    pool = retail.world.database.engine.sync_engine.pool
    checked_out = [0]

    def checkout(*args: Any) -> None:
        checked_out[0] += 1

    def checkin(*args: Any) -> None:
        checked_out[0] -= 1

    inner = ctx.embeddings
    watching = _Watching(inner, checked_out)
    event.listen(pool, "checkout", checkout)
    event.listen(pool, "checkin", checkin)
    ctx.__dict__["embeddings"] = watching  # the cached property's value
    try:
        yield watching
    finally:
        ctx.__dict__["embeddings"] = inner
        event.remove(pool, "checkout", checkout)
        event.remove(pool, "checkin", checkin)


async def test_no_connection_is_held_while_the_question_is_embedded(retail: Retail) -> None:
    with _watching(retail) as watching:
        asked = await retail.ask("How many orders are there?", [Reply(text="Many.")])
    assert asked.answer.content == "Many."
    assert watching.seen == [0]
    # Retrieval still found the orders for the prompt.
    assert "name: orders" in str(asked.model.calls[0][0].content)
