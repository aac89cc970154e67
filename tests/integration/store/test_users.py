"""The store's user changes (what the API and the CLI call) keep one active admin."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from sqlalchemy import select

from dataagent.errors import DataAgentError, ErrorCode
from dataagent.services import users
from dataagent.store.database import Database
from dataagent.store.migrations import upgrade
from dataagent.store.models import User


@pytest.fixture(params=["sqlite", "postgresql"])
async def database(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Database]:
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'app.db'}"
    else:
        url = request.getfixturevalue("postgres_db")
    upgrade(url)
    database = Database(url)
    try:
        yield database
    finally:
        await database.dispose()


async def _add(database: Database, role: str, is_active: bool = True) -> uuid.UUID:
    async with database.session() as session:
        # The hash is never checked here; argon2 would only slow the test down.
        user = User(
            email=f"{uuid.uuid4().hex[:8]}@example.com",
            password_hash="unused",
            role=role,
            is_active=is_active,
        )
        session.add(user)
        await session.commit()
        return user.id


async def _active_admins(database: Database) -> int:
    async with database.session() as session:
        rows = await session.scalars(select(User).where(User.role == "admin"))
        return sum(1 for user in rows if user.is_active)


def _is_last_admin_conflict(exc: DataAgentError) -> bool:
    return exc.code is ErrorCode.CONFLICT and "last active admin" in exc.message


async def test_last_admin_cannot_be_demoted_deactivated_or_deleted(database: Database) -> None:
    admin = await _add(database, "admin")
    await _add(database, "admin", is_active=False)
    changes: list[dict[str, object]] = [
        {"role": "viewer"},
        {"role": "contributor"},
        {"is_active": False},
    ]
    for change in changes:
        async with database.session() as session:
            with pytest.raises(DataAgentError) as refused:
                await users.update_user(session, admin, actor_id=admin, **change)  # type: ignore[arg-type]
            assert _is_last_admin_conflict(refused.value), change
    async with database.session() as session:
        with pytest.raises(DataAgentError) as refused:
            await users.delete_user(session, admin, actor_id=None)
        assert _is_last_admin_conflict(refused.value)
    assert await _active_admins(database) == 1


async def test_with_another_active_admin_each_change_is_allowed(database: Database) -> None:
    first = await _add(database, "admin")
    second = await _add(database, "admin")
    async with database.session() as session:
        demoted = await users.update_user(session, first, actor_id=second, role="viewer")
        assert demoted.role == "viewer"
    third = await _add(database, "admin")
    async with database.session() as session:
        await users.update_user(session, second, actor_id=third, is_active=False)
    fourth = await _add(database, "admin")
    async with database.session() as session:
        await users.delete_user(session, third, actor_id=None)
    async with database.session() as session:
        assert await session.get(User, third) is None
    assert await _active_admins(database) == 1
    async with database.session() as session:
        with pytest.raises(DataAgentError):
            await users.delete_user(session, fourth, actor_id=None)


async def test_non_admins_can_be_changed_while_one_admin_is_left(database: Database) -> None:
    admin = await _add(database, "admin")
    viewer = await _add(database, "viewer")
    async with database.session() as session:
        await users.update_user(session, viewer, actor_id=admin, role="contributor")
    async with database.session() as session:
        await users.update_user(session, viewer, actor_id=admin, is_active=False)
    async with database.session() as session:
        await users.delete_user(session, viewer, actor_id=admin)
    assert await _active_admins(database) == 1


async def test_concurrent_demotions_of_two_admins_leave_one(database: Database) -> None:
    a = await _add(database, "admin")
    b = await _add(database, "admin")

    async def demote(target: uuid.UUID, actor: uuid.UUID) -> str:
        async with database.session() as session:
            try:
                await users.update_user(session, target, actor_id=actor, role="viewer")
            except DataAgentError as exc:
                assert _is_last_admin_conflict(exc)
                return "refused"
            return "demoted"

    outcomes = await asyncio.gather(demote(a, b), demote(b, a))
    assert sorted(outcomes) == ["demoted", "refused"]
    assert await _active_admins(database) == 1


async def test_concurrent_delete_and_deactivate_leave_one(database: Database) -> None:
    a = await _add(database, "admin")
    b = await _add(database, "admin")

    async def attempt(change: str) -> str:
        async with database.session() as session:
            try:
                if change == "delete":
                    await users.delete_user(session, a, actor_id=b)
                else:
                    await users.update_user(session, b, actor_id=a, is_active=False)
            except DataAgentError as exc:
                assert _is_last_admin_conflict(exc)
                return "refused"
            return "done"

    outcomes = await asyncio.gather(attempt("delete"), attempt("deactivate"))
    assert sorted(outcomes) == ["done", "refused"]
    assert await _active_admins(database) == 1
