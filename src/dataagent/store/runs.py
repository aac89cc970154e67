"""Durable runs and their event logs: the claim, leases, events, cancellation, expiry.

Every change of a run's state is one conditional UPDATE (`... WHERE status/worker match`)
whose row count says whether this caller won: several processes may hold the same runs
table, and none of them may assume it is alone. Times are the writers' clocks (UTC); the
machines sharing one database are assumed to keep them roughly in step (well within a lease).
"""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import BigInteger, CursorResult, and_, exists, func, literal, or_, select, update
from sqlalchemy import insert as sql_insert
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from dataagent.errors import DataAgentError, ErrorCode, not_found, rate_limited
from dataagent.store.chats import get_message
from dataagent.store.models import (
    AgentRun,
    DataChat,
    DataChatMessage,
    Ontology,
    RunEvent,
    User,
)
from dataagent.store.types import utcnow
from dataagent.vocabulary import RunKind, RunStatus

ACTIVE: tuple[RunStatus, ...] = ("queued", "running")

ALREADY_ANSWERED = "This message is already being answered."
ONE_AT_A_TIME = "You already have an answer being generated; wait for it or cancel it."


def _won(result: Any) -> bool:
    assert isinstance(result, CursorResult)
    return bool(result.rowcount)


def _lease(now: datetime, lease_s: float) -> datetime:
    return now + timedelta(seconds=lease_s)


# --- reading ------------------------------------------------------------------------------


async def get_run(session: AsyncSession, run_id: uuid.UUID) -> AgentRun | None:
    """A run by id, fresh from the database (never a stale identity-map copy)."""
    return await session.get(AgentRun, run_id, populate_existing=True)


async def message_by_id(
    session: AsyncSession, owner_id: uuid.UUID, message_id: uuid.UUID
) -> DataChatMessage:
    """A message of one of the caller's chats, found by its id alone; NOT_FOUND with one
    sentence whether it is missing or someone else's."""
    message: DataChatMessage | None = await session.scalar(
        select(DataChatMessage)
        .join(DataChat, DataChat.id == DataChatMessage.chat_id)
        .where(DataChatMessage.id == message_id, DataChat.owner_id == owner_id)
        .execution_options(populate_existing=True)
    )
    if message is None:
        raise not_found("Message")
    return message


async def run_of_message(session: AsyncSession, message_id: uuid.UUID) -> AgentRun | None:
    """The run answering this message (its claim), if it was claimed."""
    run: AgentRun | None = await session.scalar(
        select(AgentRun)
        .where(AgentRun.message_id == message_id)
        .execution_options(populate_existing=True)
    )
    return run


async def active_chat_runs(session: AsyncSession, owner_id: uuid.UUID) -> int:
    """How many answers of this user are queued or running."""
    n = await session.scalar(
        select(func.count())
        .select_from(AgentRun)
        .where(
            AgentRun.owner_id == owner_id,
            AgentRun.kind == "chat_message",
            AgentRun.status.in_(ACTIVE),
        )
    )
    return n or 0


# --- creating runs --------------------------------------------------------------------------


async def claim_message(
    session: AsyncSession,
    owner_id: uuid.UUID,
    chat_id: uuid.UUID,
    message_id: uuid.UUID,
    lease_s: float,
) -> AgentRun:
    """Claim the assistant message for one run (flushed, not committed).

    NOT_FOUND for another user's chat or message; CONFLICT when the message is claimed
    already or is not an assistant message still `generating`; RATE_LIMITED when the user
    has an answer queued or running. The insert is the claim: `message_id` is UNIQUE, so of
    two concurrent claims one fails. The run starts `queued` with a lease of its own, so a
    process that dies before handing it to a worker leaves a run the reaper will fail.
    """
    message = await get_message(session, owner_id, chat_id, message_id)
    if message.role != "assistant":
        raise DataAgentError(ErrorCode.CONFLICT, "Only an assistant message can be answered.")
    if message.status != "generating":
        raise DataAgentError(ErrorCode.CONFLICT, f"This message is already {message.status}.")
    if await run_of_message(session, message.id) is not None:
        raise DataAgentError(ErrorCode.CONFLICT, ALREADY_ANSWERED)
    # One answer per user at a time, also across processes: PostgreSQL serialises a user's
    # claims on their row; SQLite serialises every writer at the insert below.
    await session.execute(select(User.id).where(User.id == owner_id).with_for_update())
    now = utcnow()
    run = AgentRun(
        kind="chat_message",
        owner_id=owner_id,
        chat_id=chat_id,
        message_id=message.id,
        status="queued",
        lease_expires_at=_lease(now, lease_s),
        created_at=now,
    )
    session.add(run)
    try:
        await session.flush()
    except IntegrityError:
        await session.rollback()
        raise DataAgentError(ErrorCode.CONFLICT, ALREADY_ANSWERED) from None
    if await active_chat_runs(session, owner_id) > 1:
        await session.rollback()
        raise rate_limited(ONE_AT_A_TIME)
    return run


def add_first_event(session: AsyncSession, run_id: uuid.UUID, event: str, data: str) -> None:
    """A run's first event (seq 1), in the transaction that creates the run: its worker's
    writer numbers after it."""
    session.add(RunEvent(run_id=run_id, seq=1, event=event, data=data, created_at=utcnow()))


async def add_unstarted_run(
    session: AsyncSession,
    owner_id: uuid.UUID,
    chat_id: uuid.UUID,
    message_id: uuid.UUID,
    code: str,
    message: str,
) -> AgentRun:
    """The run of an answer that never started, failed from the outset (flushed): its insert
    is the claim, so a stream request claiming the message at the same moment and this
    exclude each other (IntegrityError for the one that comes second)."""
    now = utcnow()
    run = AgentRun(
        kind="chat_message",
        owner_id=owner_id,
        chat_id=chat_id,
        message_id=message_id,
        status="failed",
        error_code=code,
        error_message=message,
        created_at=now,
        finished_at=now,
    )
    session.add(run)
    await session.flush()
    return run


def add_build_run(
    session: AsyncSession, owner_id: uuid.UUID, ontology_id: uuid.UUID, lease_s: float
) -> AgentRun:
    """A queued ontology build run, in the caller's transaction (with its `building`)."""
    now = utcnow()
    run = AgentRun(
        id=uuid.uuid4(),
        kind="ontology_build",
        owner_id=owner_id,
        ontology_id=ontology_id,
        status="queued",
        lease_expires_at=_lease(now, lease_s),
        created_at=now,
    )
    session.add(run)
    return run


# --- leases -----------------------------------------------------------------------------------


async def take(session: AsyncSession, run_id: uuid.UUID, worker_id: str, lease_s: float) -> bool:
    """Make `worker_id` the holder of a queued run no worker holds yet."""
    result = await session.execute(
        update(AgentRun)
        .where(
            AgentRun.id == run_id,
            AgentRun.status == "queued",
            or_(AgentRun.worker_id.is_(None), AgentRun.worker_id == worker_id),
        )
        .values(worker_id=worker_id, lease_expires_at=_lease(utcnow(), lease_s))
    )
    return _won(result)


async def start(session: AsyncSession, run_id: uuid.UUID, worker_id: str, lease_s: float) -> bool:
    """queued -> running, for the worker holding it."""
    now = utcnow()
    result = await session.execute(
        update(AgentRun)
        .where(AgentRun.id == run_id, AgentRun.status == "queued", AgentRun.worker_id == worker_id)
        .values(status="running", started_at=now, lease_expires_at=_lease(now, lease_s))
    )
    return _won(result)


async def renew(session: AsyncSession, run_id: uuid.UUID, worker_id: str, lease_s: float) -> bool:
    """Extend the lease of a run this worker holds; False when it holds it no more."""
    result = await session.execute(
        update(AgentRun)
        .where(
            AgentRun.id == run_id,
            AgentRun.worker_id == worker_id,
            AgentRun.status.in_(ACTIVE),
        )
        .values(lease_expires_at=_lease(utcnow(), lease_s))
    )
    return _won(result)


async def cancel_requested(session: AsyncSession, run_id: uuid.UUID) -> bool:
    """Whether someone asked this run to stop."""
    return bool(
        await session.scalar(select(AgentRun.cancel_requested).where(AgentRun.id == run_id))
    )


async def finish(
    session: AsyncSession,
    run_id: uuid.UUID,
    worker_id: str,
    status: RunStatus,
    code: str | None = None,
    message: str | None = None,
) -> bool:
    """End a run this worker holds (succeeded or failed); False when it had lost it."""
    result = await session.execute(
        update(AgentRun)
        .where(
            AgentRun.id == run_id,
            AgentRun.worker_id == worker_id,
            AgentRun.status.in_(ACTIVE),
        )
        .values(
            status=status,
            error_code=code,
            error_message=message,
            finished_at=utcnow(),
            lease_expires_at=None,
        )
    )
    return _won(result)


async def request_cancel(session: AsyncSession, run_id: uuid.UUID) -> bool:
    """Ask an unfinished run to stop; False when it had finished already."""
    result = await session.execute(
        update(AgentRun)
        .where(AgentRun.id == run_id, AgentRun.status.in_(ACTIVE))
        .values(cancel_requested=True)
    )
    return _won(result)


async def request_cancel_of_owner(
    session: AsyncSession,
    owner_id: uuid.UUID,
    reason: str,
    kinds: tuple[RunKind, ...] = ("chat_message", "agent_server"),
) -> None:
    """Ask every unfinished run of the user (of these kinds: by default the answers, those of
    the chats and of the agent server's `POST /api/chat`) to stop, keeping `reason` as
    the sentence it will end with (in the caller's transaction, not committed)."""
    await session.execute(
        update(AgentRun)
        .where(
            AgentRun.owner_id == owner_id,
            AgentRun.kind.in_(kinds),
            AgentRun.status.in_(ACTIVE),
        )
        .values(cancel_requested=True, error_message=reason)
        .execution_options(synchronize_session=False)
    )


async def cancel_reason(session: AsyncSession, run_id: uuid.UUID) -> str | None:
    """Why the run was asked to stop (an account change), or None (its owner's own cancel)."""
    reason: str | None = await session.scalar(
        select(AgentRun.error_message).where(
            AgentRun.id == run_id, AgentRun.cancel_requested.is_(True)
        )
    )
    return reason


async def stopping_runs(session: AsyncSession, owner_id: uuid.UUID) -> list[uuid.UUID]:
    """The user's unfinished runs asked to stop that a worker still holds (lease unexpired):
    what an account change waits for."""
    rows = await session.scalars(
        select(AgentRun.id).where(
            AgentRun.owner_id == owner_id,
            AgentRun.cancel_requested.is_(True),
            AgentRun.status.in_(ACTIVE),
            AgentRun.lease_expires_at >= utcnow(),
        )
    )
    return list(rows)


def _expired(now: datetime, lease_s: float) -> Any:
    # A run's lease is set when it is created; NULL only for rows made another way, which
    # count as expired a whole lease after they were created.
    return and_(
        AgentRun.status.in_(ACTIVE),
        or_(
            AgentRun.lease_expires_at < now,
            and_(
                AgentRun.lease_expires_at.is_(None),
                AgentRun.created_at < now - timedelta(seconds=lease_s),
            ),
        ),
    )


async def expired_runs(session: AsyncSession, lease_s: float) -> list[AgentRun]:
    """Unfinished runs whose lease ran out: their worker is gone."""
    rows = await session.scalars(
        select(AgentRun)
        .where(_expired(utcnow(), lease_s))
        .order_by(AgentRun.created_at)
        .execution_options(populate_existing=True)
    )
    return list(rows)


async def interrupt(
    session: AsyncSession, run_id: uuid.UUID, lease_s: float, code: str, message: str
) -> bool:
    """Fail a run whose lease expired (the reaper); False when a worker still holds it."""
    now = utcnow()
    result = await session.execute(
        update(AgentRun)
        .where(AgentRun.id == run_id, _expired(now, lease_s))
        .values(
            status="failed",
            error_code=code,
            error_message=message,
            finished_at=now,
            lease_expires_at=None,
        )
    )
    return _won(result)


# --- events -----------------------------------------------------------------------------------


async def add_event(
    session: AsyncSession, run_id: uuid.UUID, seq: int, event: str, data: str, worker_id: str
) -> bool:
    """Append one event, only while `worker_id` holds the unfinished run (the lease fences it).

    One INSERT ... SELECT ... WHERE EXISTS: a worker that lost its run (the reaper failed it)
    cannot append after the reaper's last word. False when it was refused.
    """
    holder = exists().where(
        AgentRun.id == run_id, AgentRun.worker_id == worker_id, AgentRun.status.in_(ACTIVE)
    )
    row = select(
        literal(run_id, AgentRun.id.type),
        literal(seq),
        literal(event),
        literal(data),
        literal(utcnow(), RunEvent.created_at.type),
    ).where(holder)
    result = await session.execute(
        sql_insert(RunEvent).from_select(["run_id", "seq", "event", "data", "created_at"], row)
    )
    return _won(result)


async def last_seq(session: AsyncSession, run_id: uuid.UUID) -> int:
    """The seq of the run's last event (0 before the first)."""
    n = await session.scalar(select(func.max(RunEvent.seq)).where(RunEvent.run_id == run_id))
    return n or 0


async def add_final_event(session: AsyncSession, run_id: uuid.UUID, event: str, data: str) -> int:
    """Append the last event of a run someone else failed (flushed); its seq.

    Only for the one who won the run's end (`interrupt`, or cancelling a run nobody holds),
    so no other writer appends after it; a concurrent straggler's insert of the same seq
    makes the flush raise IntegrityError, and the caller retries.
    """
    seq = await last_seq(session, run_id) + 1
    session.add(RunEvent(run_id=run_id, seq=seq, event=event, data=data, created_at=utcnow()))
    await session.flush()
    return seq


async def events_after(
    session: AsyncSession, run_id: uuid.UUID, after_seq: int, limit: int = 500
) -> list[tuple[int, str, str]]:
    """The run's events after `after_seq`, in order: (seq, event, data text).

    `after_seq` may be any BIGINT a client resumes after (the API's bound), compared as
    one: the column is a 32-bit INTEGER on PostgreSQL, which would refuse the parameter.
    """
    rows = await session.execute(
        select(RunEvent.seq, RunEvent.event, RunEvent.data)
        .where(RunEvent.run_id == run_id, RunEvent.seq > literal(after_seq, BigInteger))
        .order_by(RunEvent.seq)
        .limit(limit)
    )
    return [(seq, event, data) for seq, event, data in rows.all()]


async def run_state(session: AsyncSession, run_id: uuid.UUID) -> RunStatus | None:
    """The run's status, read afresh."""
    status: RunStatus | None = await session.scalar(
        select(AgentRun.status).where(AgentRun.id == run_id)
    )
    return status


# --- what a failed run leaves behind ------------------------------------------------------


async def fail_generating_message(
    session: AsyncSession, message_id: uuid.UUID, content: str, error: dict[str, Any]
) -> bool:
    """Fail a message still `generating` with its partial text, `error` added to its
    metadata (a regenerated answer keeps the question it names); False when it had ended."""
    metadata = await session.scalar(
        select(DataChatMessage.metadata_).where(DataChatMessage.id == message_id)
    )
    result = await session.execute(
        update(DataChatMessage)
        .where(DataChatMessage.id == message_id, DataChatMessage.status == "generating")
        .values(status="failed", content=content, metadata_={**(metadata or {}), "error": error})
    )
    return _won(result)


async def fail_building_ontology(
    session: AsyncSession, ontology_id: uuid.UUID, message: str
) -> bool:
    """Fail an ontology still `building`; False when its build had ended."""
    result = await session.execute(
        update(Ontology)
        .where(Ontology.id == ontology_id, Ontology.status == "building")
        .values(status="failed", error=message, updated_at=utcnow())
    )
    return _won(result)


async def unclaimed_answers(
    session: AsyncSession, created_before: datetime, limit: int = 500
) -> list[tuple[uuid.UUID, uuid.UUID, uuid.UUID]]:
    """Assistant messages still `generating` that no run has claimed, created before the
    time given, oldest first: (owner id, chat id, message id)."""
    claimed = exists().where(AgentRun.message_id == DataChatMessage.id)
    rows = await session.execute(
        select(DataChat.owner_id, DataChatMessage.chat_id, DataChatMessage.id)
        .join(DataChat, DataChat.id == DataChatMessage.chat_id)
        .where(
            DataChatMessage.role == "assistant",
            DataChatMessage.status == "generating",
            DataChatMessage.created_at < created_before,
            ~claimed,
        )
        .order_by(DataChatMessage.created_at)
        .limit(limit)
    )
    return [(owner_id, chat_id, message_id) for owner_id, chat_id, message_id in rows.all()]


async def orphaned_builds(session: AsyncSession) -> list[uuid.UUID]:
    """Ontologies `building` with no build run queued or running for them."""
    active = exists().where(
        AgentRun.ontology_id == Ontology.id,
        AgentRun.kind == "ontology_build",
        AgentRun.status.in_(ACTIVE),
    )
    rows = await session.scalars(select(Ontology.id).where(Ontology.status == "building", ~active))
    return list(rows)


async def runs_of_ontology(
    session: AsyncSession, ontology_id: uuid.UUID, kind: RunKind = "ontology_build"
) -> list[AgentRun]:
    """An ontology's build runs, oldest first."""
    rows = await session.scalars(
        select(AgentRun)
        .where(AgentRun.ontology_id == ontology_id, AgentRun.kind == kind)
        .order_by(AgentRun.created_at)
        .execution_options(populate_existing=True)
    )
    return list(rows)
