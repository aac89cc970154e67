"""The API's `world` (real SQLite and PostgreSQL app databases) served over a real socket, a
chat ready for questions, and scripted run handlers standing in for the agent.

A handler here does what the agent's run does at its edges (events, then the message
completed) with gates the test opens, so every step is decided by the test, not by time.
"""

from __future__ import annotations

import asyncio
import json
import socket
import uuid
import weakref
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from langchain_core.callbacks import AsyncCallbackManagerForLLMRun
from langchain_core.messages import BaseMessage
from langchain_core.outputs import ChatGenerationChunk
from pydantic import PrivateAttr
from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.pool import QueuePool
from tests.fakes.scripted_model import Reply, ScriptedChatModel
from tests.integration.api.conftest import Account, World, database_url, world

from dataagent.config import Settings
from dataagent.errors import ErrorCode
from dataagent.runs.chat import ChatAnswers, fail_answer
from dataagent.runs.event_log import StoredEvent
from dataagent.runs.runner import RunContext
from dataagent.runs.system import RunSystem
from dataagent.store.migrations import upgrade
from dataagent.store.models import AgentRun, DataChatMessage, RunEvent

__all__ = ["database_url", "world"]


@pytest.fixture
def run_overrides() -> dict[str, Any]:
    """Run settings of a test (parametrize `run_overrides` to change them)."""
    return {}


@pytest.fixture
def settings(tmp_path: Path, database_url: str, run_overrides: dict[str, Any]) -> Settings:
    """The API tests' settings, with a model provider named (no model is ever called) and
    the test's run settings."""
    upgrade(database_url)
    return Settings(
        data_dir=tmp_path / "data",
        file_roots=[tmp_path],
        database_url=database_url,
        secret_key="test-secret-key-that-is-long-enough-for-hs256",
        max_body_bytes=64 * 1024,
        openai_api_key="sk-test-not-used",
        # The scripted handlers and models here answer as the ReAct agent does.
        agent_default_mode="react",
        _env_file=None,  # type: ignore[call-arg]
        **run_overrides,
    )


class Scripted:
    """A `chat_message` handler (the claim stored `message_start`): the `before` chunks,
    then (once `gate` is open) the `after` chunks, the message completed and
    `message_complete`."""

    cancelled_message = ChatAnswers.cancelled_message
    interrupted_message = ChatAnswers.interrupted_message

    def __init__(
        self, before: tuple[str, ...] = ("Hel", "lo"), after: tuple[str, ...] = (" world",)
    ):
        self.before = before
        self.after = after
        self.gate = asyncio.Event()
        self.waiting: dict[uuid.UUID, asyncio.Event] = {}
        self.raise_after_gate: Exception | None = None

    def at_gate(self, run_id: uuid.UUID) -> asyncio.Event:
        """Set once the run has stored its `before` chunks and waits at the gate."""
        return self.waiting.setdefault(run_id, asyncio.Event())

    async def execute(self, run: RunContext) -> None:
        for chunk in self.before:
            await run.emit("message_chunk", {"chunk": chunk})
        await run.flush()  # stored (as one chunk: they came within the window)
        self.at_gate(run.run_id).set()
        await self.gate.wait()
        if self.raise_after_gate is not None:
            raise self.raise_after_gate
        for chunk in self.after:
            await run.emit("message_chunk", {"chunk": chunk})
        await run.flush()  # a worker that lost its lease learns it here, and stops
        content = "".join(self.before + self.after)
        async with run.app.database.session() as session:
            await session.execute(
                update(DataChatMessage)
                .where(DataChatMessage.id == run.message_id)
                .values(status="complete", content=content, metadata_={"agentMode": "test"})
            )
            await session.commit()
        await run.emit(
            "message_complete",
            {"messageId": str(run.message_id), "content": content, "metadata": {}},
        )

    async def abandon(
        self,
        session: AsyncSession,
        run: AgentRun,
        code: ErrorCode,
        message: str,
        events: list[StoredEvent],
    ) -> tuple[str, dict[str, Any]]:
        return await fail_answer(session, run, code, message, events)


@dataclass
class Chat:
    """A chat of one account on a ready ontology."""

    account: Account
    id: str
    messages: list[str] = field(default_factory=list)

    async def ask(self, question: str = "How many customers?") -> str:
        """A question; the id of the assistant's `generating` placeholder."""
        sent = await self.account.client.post(
            f"/api/data-agent/chats/{self.id}/messages", json={"content": question}
        )
        assert sent.status_code == 201, sent.text
        message_id: str = sent.json()["data"]["assistantMessage"]["id"]
        return message_id

    def url(self, message_id: str, what: str) -> str:
        """The path of one of the message's run routes (`stream`, `events`, `cancel`)."""
        return f"/api/data-agent/chats/{self.id}/messages/{message_id}/{what}"


async def new_chat(world: World, account: Account) -> Chat:
    """A chat of `account` on a fresh ready ontology."""
    ontology_id = await world.make_ontology(account)
    created = await account.client.post(
        "/api/data-agent/chats", json={"name": "Runs", "ontologyId": str(ontology_id)}
    )
    assert created.status_code == 201, created.text
    return Chat(account, created.json()["data"]["id"])


@pytest.fixture
def system(world: World) -> RunSystem:
    """The app's run system."""
    runs: RunSystem = world.app.state.runs
    return runs


@pytest.fixture
def scripted(system: RunSystem) -> Scripted:
    """The scripted handler, registered for `chat_message` runs."""
    handler = Scripted()
    system.register("chat_message", handler)
    return handler


@dataclass
class Live:
    """The world's app behind a real HTTP server, with a client per account."""

    url: str
    clients: dict[str, httpx.AsyncClient]


async def serve(app: Any) -> AsyncIterator[str]:
    """Serve `app` on a free local port in this event loop; yields its URL."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(
        app, lifespan="off", log_level="warning", ws="none", http="h11", timeout_graceful_shutdown=1
    )
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve(sockets=[sock]))
    while not server.started:
        assert not task.done(), task
        await asyncio.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        server.force_exit = True
        await task
        sock.close()


@pytest.fixture
async def live(world: World) -> AsyncIterator[Live]:
    """The app over a socket: streaming responses stream, and a client may hang up."""
    async for url in serve(world.app):
        clients = {
            name: httpx.AsyncClient(base_url=url, headers=dict(account.client.headers), timeout=30)
            for name, account in (
                ("contributor", world.contributor),
                ("other", world.other),
                ("viewer", world.viewer),
            )
        }
        try:
            yield Live(url, clients)
        finally:
            for client in clients.values():
                await client.aclose()


class _Reader:
    """Reads one response's stream in several calls, frame by frame."""

    def __init__(self, response: httpx.Response) -> None:
        self.chunks = response.aiter_raw()
        self.buffer = b""

    async def read(self, count: int | None, stop_at: bytes | None) -> bytes:
        taken = b""
        while True:
            while b"\n\n" in self.buffer:
                block, self.buffer = self.buffer.split(b"\n\n", 1)
                taken += block + b"\n\n"
                if stop_at is not None and block + b"\n\n" == stop_at:
                    return taken
                if count is not None and not block.startswith(b":"):
                    count -= 1
                    if count == 0:
                        return taken
            try:
                self.buffer += await anext(self.chunks)
            except StopAsyncIteration:
                return taken + self.buffer


_readers: weakref.WeakKeyDictionary[httpx.Response, _Reader] = weakref.WeakKeyDictionary()


async def read_frames(
    response: httpx.Response, count: int | None = None, stop_at: bytes | None = None
) -> bytes:
    """The raw bytes of a stream: the rest of it, the next `count` frames (heartbeats aside),
    or up to the first block equal to `stop_at`. Later calls go on where the last stopped."""
    reader = _readers.get(response)
    if reader is None:
        reader = _readers[response] = _Reader(response)
    return await reader.read(count, stop_at)


def parse(data: bytes) -> list[tuple[int, str, str]]:
    """The (id, event, data) of each frame (heartbeats skipped)."""
    frames = []
    for block in data.decode().split("\n\n"):
        if not block or block.startswith(":"):
            continue
        fields = dict(line.split(": ", 1) for line in block.split("\n"))
        frames.append((int(fields["id"]), fields["event"], fields["data"]))
    return frames


async def run_of(world: World, message_id: str) -> AgentRun:
    """The run of a message, read afresh."""
    async with world.database.session() as session:
        run = await session.scalar(
            select(AgentRun)
            .where(AgentRun.message_id == uuid.UUID(message_id))
            .execution_options(populate_existing=True)
        )
    assert run is not None
    return run


async def stored_events(world: World, run_id: uuid.UUID) -> list[tuple[int, str, str]]:
    """The run's events as the database holds them."""
    async with world.database.session() as session:
        rows = await session.execute(
            select(RunEvent.seq, RunEvent.event, RunEvent.data)
            .where(RunEvent.run_id == run_id)
            .order_by(RunEvent.seq)
        )
    return [(seq, event, data) for seq, event, data in rows.all()]


async def message_of(world: World, message_id: str) -> DataChatMessage:
    """A message, read afresh."""
    async with world.database.session() as session:
        message = await session.get(DataChatMessage, uuid.UUID(message_id), populate_existing=True)
    assert message is not None
    return message


async def until(condition: Any, what: str, tries: int = 2000) -> None:
    """Wait for an async condition (polled; tests never assert on time)."""
    for _ in range(tries):
        if await condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"never: {what}")


class GatedModel(ScriptedChatModel):
    """The scripted model (answering `default`), each of whose calls first waits for the
    test to open `gate`: a model that blocks until released."""

    _gate: asyncio.Event = PrivateAttr(default_factory=asyncio.Event)
    _entered: int = PrivateAttr(default=0)

    @property
    def gate(self) -> asyncio.Event:
        """Open it to let every waiting and later call answer."""
        return self._gate

    @property
    def entered(self) -> int:
        """How many calls have reached the model (and wait at the gate, or went on)."""
        return self._entered

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        self._entered += 1
        await self._gate.wait()
        async for chunk in super()._astream(messages, stop, run_manager, **kwargs):
            yield chunk


@pytest.fixture
def gated(world: World) -> GatedModel:
    """Every chat model of the app is this gated scripted model."""
    model = GatedModel(default=Reply(text="Two customers."))
    world.context.chat_model_factory = lambda info: model
    return model


def stateless_body(ontology_id: uuid.UUID, question: str = "How many customers?") -> dict[str, Any]:
    """A `POST /api/agent/chat` body: one question about the ontology."""
    return {"ontologyId": str(ontology_id), "messages": [{"role": "user", "content": question}]}


def stateless_frames(data: bytes) -> list[tuple[str, dict[str, Any]]]:
    """The (event, payload) of each frame of a stateless stream (heartbeats skipped)."""
    frames = []
    for block in data.decode().split("\n\n"):
        if not block or block.startswith(":"):
            continue
        fields = dict(line.split(": ", 1) for line in block.split("\n"))
        frames.append((fields["event"], json.loads(fields["data"])))
    return frames


def checked_out(world: World) -> int:
    """How many of the app database's pooled connections are in use now."""
    pool = world.database.engine.pool
    assert isinstance(pool, QueuePool), pool
    return pool.checkedout()
