"""Users: look-ups, listing, locks on the active admins, token versions."""

from __future__ import annotations

import uuid

from sqlalchemy import func, select, text, update
from sqlalchemy.ext.asyncio import AsyncSession

from dataagent.errors import not_found
from dataagent.store.models import User


async def get_by_email(session: AsyncSession, email: str) -> User | None:
    """The user with this email (compared trimmed and lower-cased), or None."""
    return await session.scalar(select(User).where(User.email == email.strip().lower()))


async def get_user(session: AsyncSession, user_id: uuid.UUID, *, refresh: bool = False) -> User:
    """The user, or NOT_FOUND; `refresh` reads it again even when the session holds it."""
    user = await session.get(User, user_id, populate_existing=refresh)
    if user is None:
        raise not_found("User")
    return user


async def list_users(session: AsyncSession, page: int, page_size: int) -> tuple[list[User], int]:
    """One page of users, oldest first, and the total count."""
    total = await session.scalar(select(func.count()).select_from(User)) or 0
    rows = await session.scalars(
        select(User)
        .order_by(User.created_at, User.email)
        .offset((page - 1) * page_size)
        .limit(page_size)
    )
    return list(rows), total


async def set_default_ontology(
    session: AsyncSession, user_id: uuid.UUID, ontology_id: uuid.UUID | None
) -> None:
    """Set the user's default ontology (not committed; the caller checked it is theirs)."""
    await session.execute(
        update(User)
        .where(User.id == user_id)
        .values(default_ontology_id=ontology_id)
        .execution_options(synchronize_session="fetch")
    )


async def account_state(session: AsyncSession, user_id: uuid.UUID) -> tuple[bool, int] | None:
    """The user's active flag and token version, read afresh; None when they were deleted."""
    row = (
        await session.execute(select(User.is_active, User.token_version).where(User.id == user_id))
    ).one_or_none()
    return None if row is None else (bool(row[0]), int(row[1]))


async def revoke_tokens(session: AsyncSession, user: User) -> None:
    """Bump the user's token version: every token issued before stops working."""
    # Incremented in SQL, not in Python, so two revocations at once both count and a token
    # issued between them cannot survive the second.
    await session.execute(
        update(User)
        .where(User.id == user.id)
        .values(token_version=User.token_version + 1)
        .execution_options(synchronize_session="fetch")
    )


async def lock_active_admins(session: AsyncSession) -> set[uuid.UUID]:
    """The ids of the active admins, locked until the transaction ends.

    Every change that could take an admin away calls this first, so two of them at once
    (say, two admins demoting each other) run one after the other and the second sees the
    first's result instead of both counting the same two admins.
    """
    if session.get_bind().dialect.name == "sqlite":
        # No row locks in SQLite, and the driver begins a transaction only at the first
        # write: a write that changes nothing takes the database's write lock now, and a
        # concurrent change waits here (busy_timeout) until this transaction ends.
        await session.execute(text("UPDATE users SET role = role WHERE 1 = 0"))
    rows = await session.scalars(
        select(User.id)
        .where(User.role == "admin", User.is_active.is_(True))
        .order_by(User.id)  # one lock order, so two lockers cannot deadlock
        .with_for_update(key_share=True)  # FOR NO KEY UPDATE: rows referencing users still insert
    )
    return set(rows)
