"""Seed 004's agent server on our runs: each `POST /api/chat` (or `/api/chat/stream`) is a
durable run of kind `agent_server`, executed on the runner like an answer.

`AgentServer.submit` checks what can be checked on the request's session (the ontology or
file dataset is the caller's and usable, the thread is theirs, they have no other chat
answer streaming here: the stateless chat's per-person limit, shared), records a queued
run and submits it. The run (`execute`) emits `status` {stage} as the agent goes (planning,
validating, executing), then `result` (the answer) and ends with `done` {status}; a failure
ends it with `error` {code, message, runId?} (docs/events.md). The stream route tails the
run's event log; `POST /api/chat` reads the same log to its end (`answer_of`).

Threads live in this process (`Threads`): a file dataset has no ontology, so a data chat
(which belongs to one) cannot hold its conversation; a restart forgets them (404 after).
A file dataset's semantic model is generated from its introspection (no model) once per
version of its files (`DatasetModels`).
"""

from __future__ import annotations

import collections
import uuid
from dataclasses import dataclass, field, replace
from datetime import timedelta
from typing import Any, Final, Literal

from sqlalchemy.ext.asyncio import AsyncSession

from dataagent.agent.plan_agent import ServerAnswer, ThreadTurn, answer_question
from dataagent.agent.plan_tools import DataSource, Stage
from dataagent.errors import DataAgentError, ErrorCode, not_found
from dataagent.ontology.values import ValueIndex
from dataagent.runs.event_log import EventLog, StoredEvent
from dataagent.runs.runner import RunContext, Runner
from dataagent.runs.stateless_chats import StatelessChat, StatelessChats
from dataagent.semantic.model import SemanticModel
from dataagent.services import connections, datasets, llm, ontologies, semantic_models
from dataagent.services.connections import QueryTarget
from dataagent.services.context import AppContext
from dataagent.services.value_index import plan_reads
from dataagent.store.models import AgentRun, FileDataset, User
from dataagent.store.types import utcnow

SourceKind = Literal["ontology", "dataset"]

REQUEST_CANCELLED: Final = "The request was cancelled."
REQUEST_INTERRUPTED: Final = "The server stopped while this request was being answered."
# Turns of a thread the model reads, and threads kept per person (the oldest forgotten).
THREAD_TURNS: Final = 10
THREADS_PER_USER: Final = 100
# File dataset versions whose generated model is kept.
DATASET_MODELS: Final = 64


@dataclass(frozen=True)
class ServerRequest:
    """One request: whose, about which ontology or dataset, in which thread, the message."""

    owner_id: uuid.UUID
    source_kind: SourceKind
    source_id: uuid.UUID
    thread_id: uuid.UUID
    message: str


@dataclass
class Thread:
    """A conversation of the agent server: whose, about what, its turns so far."""

    owner_id: uuid.UUID
    source_kind: SourceKind
    source_id: uuid.UUID
    turns: list[ThreadTurn] = field(default_factory=list)


class Threads:
    """The threads of this process, at most `THREADS_PER_USER` per person."""

    def __init__(self) -> None:
        self._threads: collections.OrderedDict[uuid.UUID, Thread] = collections.OrderedDict()

    def open(
        self,
        owner_id: uuid.UUID,
        source_kind: SourceKind,
        source_id: uuid.UUID,
        thread_id: uuid.UUID | None,
    ) -> uuid.UUID:
        """A new thread's id, or `thread_id` when it is the caller's (NOT_FOUND otherwise;
        VALIDATION_ERROR when it is about another ontology or dataset)."""
        if thread_id is None:
            thread_id = uuid.uuid4()
            self._threads[thread_id] = Thread(owner_id, source_kind, source_id)
            self._forget_oldest(owner_id)
            return thread_id
        thread = self._threads.get(thread_id)
        if thread is None or thread.owner_id != owner_id:
            raise not_found("Thread")
        if (thread.source_kind, thread.source_id) != (source_kind, source_id):
            raise DataAgentError(
                ErrorCode.VALIDATION_ERROR,
                f"This thread is about another {thread.source_kind}; start a new thread.",
            )
        self._threads.move_to_end(thread_id)
        return thread_id

    def earlier(self, thread_id: uuid.UUID) -> list[ThreadTurn]:
        """The thread's last turns (none when it is gone)."""
        thread = self._threads.get(thread_id)
        return list(thread.turns[-THREAD_TURNS:]) if thread else []

    def add(self, thread_id: uuid.UUID, turn: ThreadTurn) -> None:
        """Keep a turn answered in the thread."""
        thread = self._threads.get(thread_id)
        if thread is not None:
            thread.turns = [*thread.turns[-(THREAD_TURNS - 1) :], turn]

    def _forget_oldest(self, owner_id: uuid.UUID) -> None:
        mine = [tid for tid, t in self._threads.items() if t.owner_id == owner_id]
        for thread_id in mine[: max(0, len(mine) - THREADS_PER_USER)]:
            del self._threads[thread_id]


class DatasetModels:
    """Semantic models generated for file datasets, one per version of their files."""

    def __init__(self) -> None:
        self._models: collections.OrderedDict[tuple[uuid.UUID, str], SemanticModel] = (
            collections.OrderedDict()
        )

    async def model_of(
        self, ctx: AppContext, owner_id: uuid.UUID, dataset: FileDataset, target: QueryTarget
    ) -> SemanticModel:
        """The dataset's generated model (introspected on the query pool the first time)."""
        key = (dataset.id, dataset.version_hash)
        model = self._models.get(key)
        if model is None:
            model = await ctx.query_pool.run(
                owner_id,
                semantic_models.introspect_and_generate,
                target.spec,
                target.policy,
                dataset.name,
                dataset.description,
            )
            self._models[key] = model
            while len(self._models) > DATASET_MODELS:
                self._models.popitem(last=False)
        self._models.move_to_end(key)
        return model


async def check_source(
    session: AsyncSession, owner_id: uuid.UUID, kind: SourceKind, source_id: uuid.UUID
) -> None:
    """NOT_FOUND unless the caller reaches the ontology (ready; theirs or shared with them)
    or owns the file dataset."""
    if kind == "ontology":
        ontologies.ready_model((await ontologies.reach(session, owner_id, source_id)).ontology)
    else:
        await datasets.get_dataset(session, owner_id, source_id)


class AgentServer:
    """The `agent_server` run kind, and how a request becomes one."""

    cancelled_message = REQUEST_CANCELLED
    interrupted_message = REQUEST_INTERRUPTED

    def __init__(
        self, app: AppContext, runner: Runner, chats: StatelessChats, lease_s: float
    ) -> None:
        self.app = app
        self.runner = runner
        self.chats = chats
        self.lease_s = lease_s
        self.threads = Threads()
        self.models = DatasetModels()
        self._pending: dict[uuid.UUID, ServerRequest] = {}
        self._streaming: dict[uuid.UUID, StatelessChat] = {}
        self._failures: dict[uuid.UUID, Any] = {}

    async def submit(
        self,
        session: AsyncSession,
        user: User,
        source_kind: SourceKind,
        source_id: uuid.UUID,
        thread_id: uuid.UUID | None,
        message: str,
    ) -> tuple[uuid.UUID, uuid.UUID]:
        """Check the request, record its run and submit it: (run id, thread id)."""
        await check_source(session, user.id, source_kind, source_id)
        thread_id = self.threads.open(user.id, source_kind, source_id, thread_id)
        chat = self.chats.open(user.id, user.token_version)
        run_id = uuid.uuid4()
        try:
            now = utcnow()
            session.add(
                AgentRun(
                    id=run_id,
                    kind="agent_server",
                    owner_id=user.id,
                    ontology_id=source_id if source_kind == "ontology" else None,
                    status="queued",
                    lease_expires_at=now + timedelta(seconds=self.lease_s),
                    created_at=now,
                )
            )
            await session.commit()
            self._pending[run_id] = ServerRequest(
                user.id, source_kind, source_id, thread_id, message
            )
            self._streaming[run_id] = chat
            await self.runner.submit(run_id)
        except BaseException:
            self._done(run_id, chat)
            raise
        return run_id, thread_id

    def _done(self, run_id: uuid.UUID, chat: StatelessChat | None = None) -> None:
        """Forget the run's request and free its share of the person's limit."""
        self._pending.pop(run_id, None)
        chat = self._streaming.pop(run_id, None) or chat
        if chat is not None:
            self.chats.close(chat)

    async def execute(self, run: RunContext) -> None:
        """Answer the request: `status` events, `result`, then `done`; raise on failure."""
        request = self._pending.get(run.run_id)
        if request is None:
            raise DataAgentError(ErrorCode.INTERRUPTED, REQUEST_INTERRUPTED)
        try:
            await self._answer(run, request)
        except DataAgentError as exc:
            self._failures[run.run_id] = exc.details  # for `abandon`: the failed capsule
            raise
        finally:
            self._done(run.run_id)

    async def _answer(self, run: RunContext, request: ServerRequest) -> None:
        ctx = run.app
        async with ctx.database.session() as session:
            source, values = await self._source(session, request)
            client = (
                await llm.chat_client(ctx, session, request.owner_id, None)
                if llm.available(ctx)
                else None
            )

        async def on_stage(stage: Stage) -> None:
            await run.emit("status", {"stage": stage})

        try:
            answer = await answer_question(
                ctx,
                request.owner_id,
                source,
                request.message,
                on_stage,
                client=client,
                earlier=self.threads.earlier(request.thread_id),
                values=values,
                run_id=run.run_id,
            )
        finally:
            if client is not None and client.calls:
                async with ctx.database.session() as session:
                    await llm.save_traces(
                        session, request.owner_id, client.calls, run_id=run.run_id, message_id=None
                    )
                    await session.commit()
        self.threads.add(request.thread_id, ThreadTurn(request.message, answer.message))
        await run.emit("result", result_body(request, answer))
        await run.end("done", {"status": answer.status})

    async def _source(
        self, session: AsyncSession, request: ServerRequest
    ) -> tuple[DataSource, ValueIndex]:
        """The ontology or dataset of the request, with its model (as the asker may see it)
        and where it is queried, and the values the offline planner may recognise."""
        ctx, owner_id = self.app, request.owner_id
        if request.source_kind == "ontology":
            access = await ontologies.reach(session, owner_id, request.source_id)
            target = await connections.ontology_target(ctx, session, access)
            model = ontologies.access_model(access)
            ontology = access.ontology
            source = DataSource("ontology", ontology.id, ontology.name, model, target)
            return source, await ontologies.value_index(session, access)
        dataset = await datasets.get_dataset(session, owner_id, request.source_id)
        connection = await connections.get_connection(session, owner_id, dataset.connection_id)
        target = connections.connection_target(ctx, connection)
        model = await self.models.model_of(ctx, owner_id, dataset, target)
        target = replace(target, allowed_tables=[d.source for d in model.datasets])
        source = DataSource(
            "dataset", dataset.id, dataset.name, model, target, version=dataset.version_hash
        )
        # A file dataset's few-valued text columns, as its generated model holds them.
        return source, plan_reads(source.model)[0]

    async def abandon(
        self,
        session: AsyncSession,
        run: AgentRun,
        code: ErrorCode,
        message: str,
        events: list[StoredEvent],
    ) -> tuple[str, dict[str, Any]]:
        """Nothing to leave failed but the run; `error`."""
        self._done(run.id)
        return "error", error_body(code, message, self._failures.pop(run.id, None))


def error_body(code: ErrorCode, message: str, details: Any = None) -> dict[str, Any]:
    """The payload of `error`: the code, the sentence, and the failed query's run capsule."""
    body: dict[str, Any] = {"code": code.value, "message": message}
    if isinstance(details, dict) and "runId" in details:
        body["runId"] = details["runId"]
    return body


def result_body(request: ServerRequest, answer: ServerAnswer) -> dict[str, Any]:
    """The payload of `result`, which is also `POST /api/chat`'s answer."""
    executed = answer.executed
    result: dict[str, Any] = {
        "columns": [],
        "rows": [],
        "rowCount": 0,
        "execTimeMs": 0,
        "error": None,
    }
    details: dict[str, Any] = {"queryMode": None, "planJson": None, "compiledSql": None}
    if executed is not None:
        ran = executed.result
        result.update(
            columns=ran.columns,
            rows=ran.rows,
            rowCount=ran.row_count,
            execTimeMs=ran.execution_ms,
        )
        details.update(
            queryMode=executed.mode,
            planJson=executed.plan,
            compiledSql=ran.executed_sql or executed.compiled_sql,
        )
    return {
        "threadId": str(request.thread_id),
        "message": answer.message,
        "runId": str(executed.record_id) if executed is not None else None,
        "status": answer.status,
        "result": result,
        "details": details,
    }


async def answer_of(log: EventLog, run_id: uuid.UUID, heartbeat_s: float) -> dict[str, Any]:
    """The run's `result` once it has ended with `done`; its `error` raised as it was."""
    result: dict[str, Any] | None = None
    async for event in log.tail(run_id, 0, idle_s=heartbeat_s):
        if event is None:
            continue
        if event.event == "result":
            result = event.payload()
        elif event.event == "error":
            failed = event.payload()
            details = {"runId": failed["runId"]} if failed.get("runId") else None
            raise DataAgentError(ErrorCode(failed["code"]), failed["message"], details)
    if result is None:
        raise DataAgentError(ErrorCode.INTERNAL_ERROR, "The request ended without an answer.")
    return result
