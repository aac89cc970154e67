"""Every typed FastAPI dependency the routes use: context, session, user, permission.

Routes declare what they need with these aliases (`ContextDep`, `RunsDep`, `SessionDep`,
`CurrentUser`, one alias per permission such as `DataAgentReader`, `LastEventId`, `ResumeAfter`),
and never reach into `app.state` themselves.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Annotated

from fastapi import Depends, Header, Query, Request
from pydantic import Field
from pydantic.json_schema import SkipJsonSchema
from sqlalchemy.ext.asyncio import AsyncSession

from dataagent.auth.login_limits import client_address
from dataagent.auth.permissions import Permission, require_permission
from dataagent.auth.tokens import COOKIE_NAME
from dataagent.errors import DataAgentError, ErrorCode
from dataagent.runs.system import RunSystem
from dataagent.services.context import AppContext
from dataagent.services.users import user_for_token
from dataagent.store.models import User


def get_context(request: Request) -> AppContext:
    """The app's long-lived objects: settings, database, cipher, query pool, ..."""
    context: AppContext = request.app.state.context
    return context


ContextDep = Annotated[AppContext, Depends(get_context)]


def get_runs(request: Request) -> RunSystem:
    """The app's durable runs: runner, event log, reaper."""
    runs: RunSystem = request.app.state.runs
    return runs


RunsDep = Annotated[RunSystem, Depends(get_runs)]


def get_client_address(request: Request, context: ContextDep) -> str:
    """The client's address: the socket's peer, or the `X-Forwarded-For` of a peer listed in
    `DATAAGENT_TRUSTED_PROXIES` (never a header the client itself could have written)."""
    peer = request.client.host if request.client else None
    forwarded = request.headers.get("x-forwarded-for")
    return client_address(peer, forwarded, context.settings.trusted_proxies)


ClientAddress = Annotated[str, Depends(get_client_address)]


async def get_session(context: ContextDep) -> AsyncIterator[AsyncSession]:
    """One app-database session per request, closed afterwards."""
    async with context.database.session() as session:
        yield session


SessionDep = Annotated[AsyncSession, Depends(get_session)]


def _bearer_token(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() == "bearer" and token.strip():
        return token.strip()
    return request.cookies.get(COOKIE_NAME)


async def get_signed_in_user(
    request: Request, context: ContextDep, session: SessionDep
) -> User | None:
    """The active user behind the bearer token or session cookie, or None
    (`services.users.user_for_token`: the MCP server checks its tokens the same way)."""
    return await user_for_token(context, session, _bearer_token(request))


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
        require_permission(user.role, permission)
        return user

    return dependency


# One alias per permission a route can require (the route's only check of the role).
DataAgentReader = Annotated[User, Depends(require(Permission.DATA_AGENT_READ))]
DataAgentWriter = Annotated[User, Depends(require(Permission.DATA_AGENT_WRITE))]
DataAgentDeleter = Annotated[User, Depends(require(Permission.DATA_AGENT_DELETE))]
OntologyReader = Annotated[User, Depends(require(Permission.ONTOLOGIES_READ))]
OntologyWriter = Annotated[User, Depends(require(Permission.ONTOLOGIES_WRITE))]
ConnectionReader = Annotated[User, Depends(require(Permission.CONNECTIONS_READ))]
ConnectionWriter = Annotated[User, Depends(require(Permission.CONNECTIONS_WRITE))]
SemanticModelReader = Annotated[User, Depends(require(Permission.SEMANTIC_MODELS_READ))]
SemanticModelWriter = Annotated[User, Depends(require(Permission.SEMANTIC_MODELS_WRITE))]
Admin = Annotated[User, Depends(require(Permission.USERS_MANAGE))]


# An event's id is its sequence number, kept in a BIGINT column (SQLite's INTEGER too): a
# larger value could never name an event, and would overflow the database's integer.
MAX_EVENT_ID = 2**63 - 1
EventId = Annotated[int, Field(ge=0, le=MAX_EVENT_ID)]

# Optional, but never null: a header is a value or absent (SkipJsonSchema keeps `null`
# out of the schema, where clients would read it as a value to send).
LastEventId = Annotated[
    EventId | SkipJsonSchema[None],
    Header(
        alias="Last-Event-ID",
        description="The id of the last event received: the stream resumes after it.",
    ),
]


def get_resume_after(
    last_event_id: LastEventId = None,
    after: Annotated[
        EventId | SkipJsonSchema[None], Query(description="Resume after this event id.")
    ] = None,
) -> int:
    """Where a replayed event stream starts: after `Last-Event-ID`, else `after`, else 0.

    Both are checked against the event ids' range before the stream starts (400 otherwise).
    """
    if last_event_id is not None:
        return last_event_id
    return after or 0


ResumeAfter = Annotated[int, Depends(get_resume_after)]
