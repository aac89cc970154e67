"""Users: creation, look-up, updates and deletion."""

from __future__ import annotations

import asyncio
import re
import uuid

from sqlalchemy import func, select, text, update
from sqlalchemy.ext.asyncio import AsyncSession

from dataagent.auth.passwords import MIN_PASSWORD_LENGTH, hash_password
from dataagent.auth.permissions import Role
from dataagent.errors import DataAgentError, ErrorCode, not_found
from dataagent.store import audit
from dataagent.store.models import User

# No whitespace anywhere (the characters str.strip removes, spelled out: regex engines in
# Python, Rust and JSON Schema disagree on what \\s means), one @, a dot after it.
_NOT_PART = r"[^@\x00-\x20\x7f\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]"
EMAIL_PATTERN = rf"^{_NOT_PART}+@{_NOT_PART}+\.{_NOT_PART}+$"
_EMAIL = re.compile(EMAIL_PATTERN)


def normalise_email(email: str) -> str:
    """The canonical form of an email address (trimmed, lower case), validated."""
    email = email.strip().lower()
    if not _EMAIL.match(email) or len(email) > 320:
        raise DataAgentError(ErrorCode.VALIDATION_ERROR, f"{email!r} is not a valid email address.")
    return email


def check_password(password: str) -> None:
    """Refuse passwords too short to be safe."""
    if len(password) < MIN_PASSWORD_LENGTH:
        raise DataAgentError(
            ErrorCode.VALIDATION_ERROR,
            f"The password must have at least {MIN_PASSWORD_LENGTH} characters.",
        )


def check_role(role: str) -> Role:
    """The role, or a validation error naming the allowed ones."""
    try:
        return Role(role)
    except ValueError:
        allowed = ", ".join(r.value for r in Role)
        raise DataAgentError(
            ErrorCode.VALIDATION_ERROR, f"Unknown role {role!r}; use one of: {allowed}."
        ) from None


async def get_by_email(session: AsyncSession, email: str) -> User | None:
    """The user with this email, or None."""
    return await session.scalar(select(User).where(User.email == email.strip().lower()))


async def get_user(session: AsyncSession, user_id: uuid.UUID, *, refresh: bool = False) -> User:
    """The user, or NOT_FOUND; `refresh` reads it again even when the session holds it."""
    user = await session.get(User, user_id, populate_existing=refresh)
    if user is None:
        raise not_found("User")
    return user


async def create_user(
    session: AsyncSession,
    email: str,
    password: str,
    role: str,
    actor_id: uuid.UUID | None = None,
) -> User:
    """Create a user (CONFLICT when the email is taken) and commit."""
    email = normalise_email(email)
    check_password(password)
    checked_role = check_role(role)
    if await get_by_email(session, email) is not None:
        raise DataAgentError(ErrorCode.CONFLICT, f"A user with email {email} already exists.")
    password_hash = await asyncio.to_thread(hash_password, password)
    user = User(email=email, password_hash=password_hash, role=checked_role.value)
    session.add(user)
    await session.flush()
    audit.record(session, actor_id, "user.create", "user", user.id, {"role": user.role})
    await session.commit()
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


async def update_user(
    session: AsyncSession,
    user_id: uuid.UUID,
    actor_id: uuid.UUID,
    role: str | None = None,
    is_active: bool | None = None,
    password: str | None = None,
) -> User:
    """Change a user's role, active flag or password, and commit.

    CONFLICT when the change would leave no active admin.
    """
    new_role = check_role(role).value if role is not None else None
    if password is not None:
        check_password(password)
    guarding = role is not None or is_active is not None
    admins = await _lock_active_admins(session) if guarding else set()
    user = await get_user(session, user_id, refresh=guarding)
    changes: dict[str, object] = {}
    if new_role is not None:
        user.role = new_role
        changes["role"] = new_role
    if is_active is not None:
        user.is_active = is_active
        changes["isActive"] = is_active
    if guarding and not _is_active_admin(user):
        verb = "demote" if user.role != Role.ADMIN else "deactivate"
        _keep_an_active_admin(user, admins, verb)
    if password is not None:
        user.password_hash = await asyncio.to_thread(hash_password, password)
        changes["password"] = "changed"
    # Deactivating or setting a new password ends every session, so reactivating later
    # does not bring old tokens back.
    if is_active is False or password is not None:
        await _revoke_tokens(session, user)
    audit.record(session, actor_id, "user.update", "user", user.id, changes)
    await session.commit()
    return user


async def sign_out_everywhere(
    session: AsyncSession, user_id: uuid.UUID, actor_id: uuid.UUID
) -> None:
    """Invalidate every token the user has (NOT_FOUND for no such user), and commit."""
    user = await get_user(session, user_id)
    await _revoke_tokens(session, user)
    audit.record(session, actor_id, "user.sign_out", "user", user.id)
    await session.commit()


async def _revoke_tokens(session: AsyncSession, user: User) -> None:
    # Incremented in SQL, not in Python, so two revocations at once both count and a token
    # issued between them cannot survive the second.
    await session.execute(
        update(User)
        .where(User.id == user.id)
        .values(token_version=User.token_version + 1)
        .execution_options(synchronize_session="fetch")
    )


async def delete_user(
    session: AsyncSession, user_id: uuid.UUID, actor_id: uuid.UUID | None
) -> None:
    """Delete a user and everything they own, and commit.

    An admin cannot delete themself; CONFLICT for the last active admin.
    """
    if user_id == actor_id:
        raise DataAgentError(ErrorCode.VALIDATION_ERROR, "You cannot delete your own account.")
    admins = await _lock_active_admins(session)
    user = await get_user(session, user_id, refresh=True)
    _keep_an_active_admin(user, admins, "delete")
    await session.delete(user)
    audit.record(session, actor_id, "user.delete", "user", user_id, {"email": user.email})
    await session.commit()


def _is_active_admin(user: User) -> bool:
    return user.role == Role.ADMIN and user.is_active


def _keep_an_active_admin(user: User, active_admins: set[uuid.UUID], verb: str) -> None:
    """Refuse to take away the last active admin (the caller holds the admins' lock)."""
    if user.id in active_admins and not active_admins - {user.id}:
        raise DataAgentError(
            ErrorCode.CONFLICT,
            f"{user.email} is the last active admin; make another user an active admin "
            f"before you {verb} them.",
        )


async def _lock_active_admins(session: AsyncSession) -> set[uuid.UUID]:
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
        .where(User.role == Role.ADMIN.value, User.is_active.is_(True))
        .order_by(User.id)  # one lock order, so two lockers cannot deadlock
        .with_for_update(key_share=True)  # FOR NO KEY UPDATE: rows referencing users still insert
    )
    return set(rows)
