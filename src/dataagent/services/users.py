"""Users: create, change, sign in and out, delete; never leave the app without an admin."""

from __future__ import annotations

import asyncio
import re
import uuid
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from dataagent.auth.passwords import MIN_PASSWORD_LENGTH, hash_password, verify_password
from dataagent.auth.tokens import issue_token, read_token
from dataagent.errors import DataAgentError, ErrorCode
from dataagent.services.context import AppContext
from dataagent.store import audit, runs, users
from dataagent.store.models import User
from dataagent.vocabulary import ROLES, Role

# No whitespace anywhere (the characters str.strip removes, spelled out: regex engines in
# Python, Rust and JSON Schema disagree on what \\s means), one @, a dot after it.
_NOT_PART = r"[^@\x00-\x20\x7f\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]"
EMAIL_PATTERN = rf"^{_NOT_PART}+@{_NOT_PART}+\.{_NOT_PART}+$"
_EMAIL = re.compile(EMAIL_PATTERN)


# What a person's answers end with when an admin changes their account (the sentence of
# their `message_error` / `error`; docs/runs.md#account-changes).
STOPPED_DEACTIVATED = "Stopped because the account was deactivated."
STOPPED_SIGNED_OUT = "Stopped because the account was signed out everywhere."
STOPPED_DELETED = "Stopped because the account was deleted."


@dataclass(frozen=True)
class SignedIn:
    """A successful sign-in: the user and a token for them."""

    user: User
    token: str
    expires_at: datetime


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
    for known in ROLES:
        if role == known:
            return known
    raise DataAgentError(
        ErrorCode.VALIDATION_ERROR, f"Unknown role {role!r}; use one of: {', '.join(ROLES)}."
    )


async def user_for_token(ctx: AppContext, session: AsyncSession, token: str | None) -> User | None:
    """The active user behind a login token, or None (no token, a bad or expired one).

    A token counts only while its version is the user's current token version: logout,
    a password change, deactivation and an admin's sign-out bump it.
    """
    claims = read_token(token, ctx.secret_key) if token else None
    if claims is None:
        return None
    user = await session.get(User, claims.user_id)
    if user is None or not user.is_active or user.token_version != claims.version:
        return None
    return user


async def sign_in(
    ctx: AppContext, session: AsyncSession, email: str, password: str, address: str
) -> SignedIn:
    """Check the password (within the sign-in limits) and issue a token.

    One answer for an unknown email, a wrong password and an inactive account.
    """
    ctx.login_limiter.begin(email, address)
    user = await users.get_by_email(session, email)
    # argon2 is deliberately slow CPU work: off the event loop, other requests keep moving.
    valid = await asyncio.to_thread(verify_password, password, user.password_hash if user else None)
    if user is None or not valid or not user.is_active:
        raise DataAgentError(ErrorCode.UNAUTHORIZED, "The email or password is not right.")
    ctx.login_limiter.succeeded(email, address)
    token, expires = issue_token(
        user.id, user.token_version, ctx.secret_key, ctx.settings.token_ttl_minutes
    )
    return SignedIn(user, token, expires)


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
    if await users.get_by_email(session, email) is not None:
        raise DataAgentError(ErrorCode.CONFLICT, f"A user with email {email} already exists.")
    password_hash = await asyncio.to_thread(hash_password, password)
    user = User(email=email, password_hash=password_hash, role=checked_role)
    session.add(user)
    await session.flush()
    audit.record(session, actor_id, "user.create", "user", user.id, {"role": user.role})
    await session.commit()
    return user


async def get_user(session: AsyncSession, user_id: uuid.UUID) -> User:
    """The user, or NOT_FOUND."""
    return await users.get_user(session, user_id)


async def get_by_email(session: AsyncSession, email: str) -> User | None:
    """The user with this email, or None."""
    return await users.get_by_email(session, email)


async def list_users(session: AsyncSession, page: int, page_size: int) -> tuple[list[User], int]:
    """One page of users, oldest first, and the total count."""
    return await users.list_users(session, page, page_size)


async def update_user(
    session: AsyncSession,
    user_id: uuid.UUID,
    actor_id: uuid.UUID,
    role: str | None = None,
    is_active: bool | None = None,
    password: str | None = None,
) -> User:
    """Change a user's role, active flag or password, and commit.

    CONFLICT when the change would leave no active admin. Deactivating or setting a new
    password signs the user out everywhere and, in the same transaction, asks their
    unfinished answers to stop (`runs.accounts` stops those of this process at once).
    """
    new_role = check_role(role) if role is not None else None
    if password is not None:
        check_password(password)
    guarding = role is not None or is_active is not None
    admins = await users.lock_active_admins(session) if guarding else set()
    user = await users.get_user(session, user_id, refresh=guarding)
    changes: dict[str, object] = {}
    if new_role is not None:
        user.role = new_role
        changes["role"] = new_role
    if is_active is not None:
        user.is_active = is_active
        changes["isActive"] = is_active
    if guarding and not _is_active_admin(user):
        verb = "demote" if user.role != "admin" else "deactivate"
        _keep_an_active_admin(user, admins, verb)
    if password is not None:
        user.password_hash = await asyncio.to_thread(hash_password, password)
        changes["password"] = "changed"
    # Deactivating or setting a new password ends every session, so reactivating later
    # does not bring old tokens back, and stops the answers those sessions started.
    if is_active is False or password is not None:
        await users.revoke_tokens(session, user)
        reason = STOPPED_DEACTIVATED if is_active is False else STOPPED_SIGNED_OUT
        await runs.request_cancel_of_owner(session, user.id, reason)
    audit.record(session, actor_id, "user.update", "user", user.id, changes)
    await session.commit()
    return user


async def sign_out_everywhere(
    session: AsyncSession, user_id: uuid.UUID, actor_id: uuid.UUID
) -> None:
    """An admin's sign-out: every token the user has stops working and their unfinished
    answers are asked to stop, in one commit (NOT_FOUND for no such user)."""
    user = await users.get_user(session, user_id)
    await users.revoke_tokens(session, user)
    await runs.request_cancel_of_owner(session, user.id, STOPPED_SIGNED_OUT)
    audit.record(session, actor_id, "user.sign_out", "user", user.id)
    await session.commit()


async def log_out(session: AsyncSession, user: User) -> None:
    """The user's own sign-out: every token of theirs stops working (on every device), and
    commit. Their answers go on: they are stored, to be read after signing in again."""
    await users.revoke_tokens(session, user)
    audit.record(session, user.id, "user.sign_out", "user", user.id)
    await session.commit()


async def begin_deletion(
    session: AsyncSession, user_id: uuid.UUID, actor_id: uuid.UUID | None
) -> None:
    """The first step of deleting a user: refuse what `delete_user` refuses, then deactivate
    them, sign them out everywhere and ask every unfinished run of theirs to stop, in one
    commit. Their runs can then end cleanly before their rows go (`runs.accounts`)."""
    user = await _deletable(session, user_id, actor_id)
    user.is_active = False
    await users.revoke_tokens(session, user)
    await runs.request_cancel_of_owner(
        session, user.id, STOPPED_DELETED, kinds=("chat_message", "agent_server", "ontology_build")
    )
    await session.commit()


async def delete_user(
    session: AsyncSession, user_id: uuid.UUID, actor_id: uuid.UUID | None
) -> None:
    """Delete a user and everything they own, and commit.

    An admin cannot delete themself; CONFLICT for the last active admin.
    """
    user = await _deletable(session, user_id, actor_id)
    await session.delete(user)
    audit.record(session, actor_id, "user.delete", "user", user_id, {"email": user.email})
    await session.commit()


async def _deletable(session: AsyncSession, user_id: uuid.UUID, actor_id: uuid.UUID | None) -> User:
    """The user, locked with the active admins, when they may be deleted by `actor_id`."""
    if user_id == actor_id:
        raise DataAgentError(ErrorCode.VALIDATION_ERROR, "You cannot delete your own account.")
    admins = await users.lock_active_admins(session)
    user = await users.get_user(session, user_id, refresh=True)
    _keep_an_active_admin(user, admins, "delete")
    return user


def _is_active_admin(user: User) -> bool:
    return user.role == "admin" and user.is_active


def _keep_an_active_admin(user: User, active_admins: set[uuid.UUID], verb: str) -> None:
    """Refuse to take away the last active admin (the caller holds the admins' lock)."""
    if user.id in active_admins and not active_admins - {user.id}:
        raise DataAgentError(
            ErrorCode.CONFLICT,
            f"{user.email} is the last active admin; make another user an active admin "
            f"before you {verb} them.",
        )
