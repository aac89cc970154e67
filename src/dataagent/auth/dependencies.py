"""FastAPI dependencies: the app database session, the current user, permission checks."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Annotated

from fastapi import Depends, Request
from sqlalchemy.ext.asyncio import AsyncSession

from dataagent.auth.login_limits import LoginLimiter
from dataagent.auth.permissions import Permission, has_permission
from dataagent.auth.tokens import COOKIE_NAME, read_token
from dataagent.config import Settings
from dataagent.errors import DataAgentError, ErrorCode
from dataagent.store.database import Database
from dataagent.store.models import User


def get_settings_dep(request: Request) -> Settings:
    """The settings the app was created with."""
    settings: Settings = request.app.state.settings
    return settings


def get_login_limiter(request: Request) -> LoginLimiter:
    """The sign-in limits of this app instance."""
    limiter: LoginLimiter = request.app.state.login_limiter
    return limiter


def get_database(request: Request) -> Database:
    """The app database of this app instance."""
    database: Database = request.app.state.database
    return database


async def get_session(
    database: Annotated[Database, Depends(get_database)],
) -> AsyncIterator[AsyncSession]:
    """One session per request, closed afterwards."""
    async with database.session() as session:
        yield session


SettingsDep = Annotated[Settings, Depends(get_settings_dep)]
SessionDep = Annotated[AsyncSession, Depends(get_session)]
LoginLimiterDep = Annotated[LoginLimiter, Depends(get_login_limiter)]


def _bearer_token(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() == "bearer" and token.strip():
        return token.strip()
    return request.cookies.get(COOKIE_NAME)


async def get_signed_in_user(request: Request, session: SessionDep) -> User | None:
    """The active user behind the bearer token or session cookie, or None.

    A token counts only while its version is the user's current token version: logout,
    a password change, deactivation and an admin's sign-out bump it.
    """
    token = _bearer_token(request)
    secret: str = request.app.state.secret_key
    claims = read_token(token, secret) if token else None
    if claims is None:
        return None
    user = await session.get(User, claims.user_id)
    if user is None or not user.is_active or user.token_version != claims.version:
        return None
    return user


SignedInUser = Annotated[User | None, Depends(get_signed_in_user)]


async def get_current_user(user: SignedInUser) -> User:
    """The user behind the bearer token or session cookie; 401 otherwise."""
    if user is None:
        raise DataAgentError(
            ErrorCode.UNAUTHORIZED, "Sign in to continue: the token is missing, invalid or expired."
        )
    return user


CurrentUser = Annotated[User, Depends(get_current_user)]


def require(permission: Permission) -> Callable[[User], Awaitable[User]]:
    """A dependency that returns the current user when their role grants `permission`."""

    async def dependency(user: CurrentUser) -> User:
        if not has_permission(user.role, permission):
            raise DataAgentError(
                ErrorCode.FORBIDDEN, f"Your role ({user.role}) lacks the {permission} permission."
            )
        return user

    return dependency
