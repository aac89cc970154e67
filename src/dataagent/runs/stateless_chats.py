"""Seed 002's stateless chat as Server-Sent Events: no message, no log, nothing to resume.

The answer streams while the client listens: a client that goes away stops it. Its model
calls are kept as traces of the caller (no message, no run).

It is this process's work all the same (docs/runs.md#the-stateless-chat): the request's
database session is closed before the first byte, the answer takes one of the runner's
slots (`DATAAGENT_RUN_MAX_CONCURRENCY`) while it runs, queued behind those who asked first
with heartbeats meanwhile, and `StatelessChats` keeps the chats streaming here, at most
`DATAAGENT_AGENT_CHAT_MAX_PER_USER` per person. That registry is per process: durable answers
are limited across processes by the database, stateless chats in each process.

A chat lives as long as the credentials that started it: it ends with `error` when its
person is deactivated, deleted or signed out (at once when that happens in this process,
`runs.accounts`; within a third of a lease when it happens elsewhere, each chat re-reading
its person's active flag and token version).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import AsyncGenerator, Sequence
from dataclasses import dataclass
from typing import Any, Final

from sqlalchemy.ext.asyncio import AsyncSession
from starlette.types import Receive, Scope, Send

from dataagent.agent.events import STATELESS_EVENTS, Emit
from dataagent.agent.stateless_answer import chat_stream, check_messages
from dataagent.errors import DataAgentError, ErrorCode, rate_limited
from dataagent.runs.event_log import encode
from dataagent.runs.runner import LocalRunner
from dataagent.runs.sse import HEADERS, HEARTBEAT, EventStream, frame
from dataagent.services import llm, ontologies
from dataagent.services.context import AppContext
from dataagent.services.users import STOPPED_DEACTIVATED, STOPPED_DELETED, STOPPED_SIGNED_OUT
from dataagent.store import users
from dataagent.store.models import User

log = logging.getLogger(__name__)

_END: Final = object()
# The events that end a stateless stream; sent once the chat has ended here (slot freed).
_LAST_EVENTS: Final = frozenset({"done", "error"})
SERVER_STOPPING = "The server is stopping."


def _frame(event: str, data: dict[str, Any]) -> bytes:
    """One SSE frame without an id (a stateless stream cannot be resumed)."""
    return frame(event, encode(data))


def one_at_a_time(limit: int) -> str:
    """The sentence of the 429 for a person already streaming `limit` stateless chats."""
    if limit == 1:
        return (
            "You already have a chat answer streaming; wait for it to end or close it "
            "before asking another."
        )
    return (
        f"You already have {limit} chat answers streaming; wait for one to end or close "
        "it before asking another."
    )


def account_stop(state: tuple[bool, int] | None, token_version: int) -> str | None:
    """Why a chat started with `token_version` must stop, given its person's account state
    (active, token version; None: deleted); None while the credentials still hold."""
    if state is None:
        return STOPPED_DELETED
    active, version = state
    if not active:
        return STOPPED_DEACTIVATED
    if version != token_version:
        return STOPPED_SIGNED_OUT
    return None


@dataclass(eq=False)
class StatelessChat:
    """One stateless chat streaming in this process: whose it is, and how to stop it."""

    owner_id: uuid.UUID
    token_version: int
    task: asyncio.Task[None] | None = None
    # Why it was stopped (an account change, the server stopping), and with which code.
    stopped: tuple[ErrorCode, str] | None = None
    # The person's rows are gone: nothing more may be written in their name.
    owner_gone: bool = False

    def stop(self, code: ErrorCode, reason: str) -> None:
        """End the answer now; the stream then ends with `error` saying `reason`."""
        if self.stopped is None:
            self.stopped = (code, reason)
        if self.task is not None and not self.task.done():
            self.task.cancel()


class StatelessChats:
    """The stateless chats streaming in this process, at most `max_per_user` per person.

    Each answers in one of `runner`'s slots; each re-reads its person's account every
    `check_s` and stops when it no longer holds.
    """

    def __init__(
        self, app: AppContext, runner: LocalRunner, max_per_user: int, check_s: float
    ) -> None:
        self.app = app
        self.runner = runner
        self.max_per_user = max_per_user
        self.check_s = check_s
        self._open: dict[uuid.UUID, set[StatelessChat]] = {}

    def open(self, owner_id: uuid.UUID, token_version: int) -> StatelessChat:
        """Register a chat about to stream; RATE_LIMITED when the person has their share."""
        mine = self._open.setdefault(owner_id, set())
        if len(mine) >= self.max_per_user:
            raise rate_limited(one_at_a_time(self.max_per_user))
        chat = StatelessChat(owner_id, token_version)
        mine.add(chat)
        return chat

    def close(self, chat: StatelessChat) -> None:
        """Forget a chat that has ended (twice is harmless)."""
        mine = self._open.get(chat.owner_id)
        if mine is not None:
            mine.discard(chat)
            if not mine:
                del self._open[chat.owner_id]

    def of(self, owner_id: uuid.UUID) -> list[StatelessChat]:
        """The person's chats streaming here."""
        return list(self._open.get(owner_id, ()))

    async def stop(
        self, chats: Sequence[StatelessChat], code: ErrorCode, reason: str, wait_s: float
    ) -> None:
        """Stop these chats and wait (at most `wait_s`) for their answers to end."""
        for chat in chats:
            chat.stop(code, reason)
        await _ended(chats, wait_s)

    async def recheck(self, owner_id: uuid.UUID, wait_s: float) -> None:
        """Stop the person's chats here whose credentials no longer hold (their account just
        changed in this process), and wait for them to end (at most `wait_s`)."""
        chats = self.of(owner_id)
        if not chats:
            return
        async with self.app.database.session() as session:
            state = await users.account_state(session, owner_id)
        for chat in chats:
            reason = account_stop(state, chat.token_version)
            if reason is not None:
                chat.owner_gone = state is None
                chat.stop(ErrorCode.CANCELLED, reason)
        await _ended([chat for chat in chats if chat.stopped], wait_s)

    async def stop_all(self, reason: str, wait_s: float) -> None:
        """Stop every chat here (the server is stopping)."""
        chats = [chat for mine in self._open.values() for chat in mine]
        await self.stop(chats, ErrorCode.INTERRUPTED, reason, wait_s)

    async def watch(self, chat: StatelessChat) -> None:
        """Stop the chat when its person's account changes, in whatever process."""
        while True:
            await asyncio.sleep(self.check_s)
            try:
                async with self.app.database.session() as session:
                    state = await users.account_state(session, chat.owner_id)
            except Exception:
                log.warning("could not read the account of a stateless chat", exc_info=True)
                continue
            reason = account_stop(state, chat.token_version)
            if reason is not None:
                chat.owner_gone = state is None
                chat.stop(ErrorCode.CANCELLED, reason)
                return


async def _ended(chats: Sequence[StatelessChat], wait_s: float) -> None:
    """Wait (at most `wait_s`) for the answers of these chats to end."""
    tasks = [chat.task for chat in chats if chat.task is not None and not chat.task.done()]
    if tasks:
        await asyncio.wait(tasks, timeout=wait_s)


class StatelessStream(EventStream):
    """The chat's event stream; however the response ends (the answer done, the client
    gone, even before the first byte), the answer is stopped and the chat forgotten."""

    def __init__(
        self, chats: StatelessChats, chat: StatelessChat, body: AsyncGenerator[bytes, None]
    ) -> None:
        super().__init__(body, headers=HEADERS)
        self._chats = chats
        self._chat = chat
        self._body = body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            await self._body.aclose()  # its `finally` stops the answer, if it started
            self._chats.close(self._chat)


async def start_chat(
    chats: StatelessChats,
    session: AsyncSession,
    user: User,
    ontology_id: uuid.UUID | None,
    messages: Sequence[dict[str, Any]],
) -> StatelessStream:
    """Check everything that can be checked before the first byte (the model is configured,
    the messages are well formed, the ontology is the caller's and ready, the caller has no
    other chat streaming here) on the request's session, close it, then stream. Without an
    `ontology_id`, the caller's default ontology, else their only ready one."""
    ctx = chats.app
    owner_id, token_version = user.id, user.token_version
    llm.require_provider(ctx)
    check_messages(messages)
    access = await ontologies.chat_ontology(session, user, ontology_id)
    ontology_id = access.ontology.id
    # The stream may last minutes: it holds no connection (each step opens a short session).
    await session.close()
    chat = chats.open(owner_id, token_version)
    body = _frames(chats, chat, ontology_id, list(messages))
    return StatelessStream(chats, chat, body)


async def _frames(
    chats: StatelessChats,
    chat: StatelessChat,
    ontology_id: uuid.UUID,
    messages: list[dict[str, Any]],
) -> AsyncGenerator[bytes, None]:
    queue: asyncio.Queue[Any] = asyncio.Queue()
    last: list[bytes] = []

    async def emit(event: str, data: dict[str, Any]) -> None:
        if event not in STATELESS_EVENTS:
            raise ValueError(f"{event!r} is not a documented stateless event (docs/events.md)")
        if event in _LAST_EVENTS:
            # Held back until the chat has ended here: a client that has read `done` may
            # at once ask again without meeting its own chat's 429.
            last[:] = [_frame(event, data)]
            return
        await queue.put(_frame(event, data))

    async def answered() -> None:
        try:
            await _answer(chats, chat, ontology_id, messages, emit)
        except Exception:
            log.exception("stateless chat failed")
        finally:
            await queue.put(_END)

    if chat.stopped is None:
        chat.task = asyncio.create_task(answered(), name="stateless-chat")
    else:
        await queue.put(_END)  # stopped before it started streaming
    heartbeat_s = chats.app.settings.run_heartbeat_s
    try:
        while True:
            try:
                item = await asyncio.wait_for(queue.get(), timeout=heartbeat_s)
            except TimeoutError:
                yield HEARTBEAT
                continue
            if item is _END:
                break
            yield item
        chats.close(chat)
        if last:
            yield last[0]
        elif chat.stopped is not None:
            code, reason = chat.stopped
            yield _frame("error", {"message": reason, "code": code.value})
        else:
            failed = {"message": "The agent failed unexpectedly.", "code": "INTERNAL_ERROR"}
            yield _frame("error", failed)
    finally:
        # The client went away (or the answer ended): nothing runs on without a listener.
        task = chat.task
        if task is not None and not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task


async def _answer(
    chats: StatelessChats,
    chat: StatelessChat,
    ontology_id: uuid.UUID,
    messages: list[dict[str, Any]],
    emit: Emit,
) -> None:
    """Answer in one of the runner's slots, watching the person's account meanwhile."""
    ctx = chats.app
    watcher = asyncio.create_task(chats.watch(chat), name="stateless-chat-account")
    try:
        async with chats.runner.slot():
            try:
                async with ctx.database.session() as session:
                    client = await llm.chat_client(ctx, session, chat.owner_id, None)
            except DataAgentError as exc:  # the model went away since the request was checked
                await emit("error", {"message": exc.message, "code": exc.code.value})
                return
            try:
                # Reports its own failures as `error` events.
                await chat_stream(ctx, chat.owner_id, ontology_id, messages, client, emit)
            finally:
                if not chat.owner_gone:  # deleted in another process: their rows are gone
                    async with ctx.database.session() as session:
                        await llm.save_traces(
                            session, chat.owner_id, client.calls, run_id=None, message_id=None
                        )
                        await session.commit()
    finally:
        watcher.cancel()
        await asyncio.gather(watcher, return_exceptions=True)
