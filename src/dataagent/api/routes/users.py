"""User administration (permission `users:manage`)."""

from __future__ import annotations

import uuid
from typing import Annotated, Any

from fastapi import APIRouter, Query, Response

from dataagent.api.deps import Admin, RunsDep, SessionDep
from dataagent.api.schemas import ERROR_RESPONSES, Envelope, ErrorBody, PageOf, page_of
from dataagent.api.schemas.users import UserCreate, UserPublic, UserUpdate, user_public
from dataagent.runs import accounts
from dataagent.services import users

router = APIRouter(prefix="/api/users", tags=["users"], responses=ERROR_RESPONSES)
_CONFLICT: dict[int | str, dict[str, Any]] = {
    409: {"model": ErrorBody, "description": "Conflict: email taken, or no active admin left"}
}


@router.get("", operation_id="listUsers")
async def list_users(
    admin: Admin,
    session: SessionDep,
    page: Annotated[int, Query(ge=1, le=1_000_000)] = 1,
    page_size: Annotated[int, Query(alias="pageSize", ge=1, le=100)] = 20,
) -> Envelope[PageOf[UserPublic]]:
    """All users, oldest first."""
    rows, total = await users.list_users(session, page, page_size)
    return Envelope(data=page_of([user_public(u) for u in rows], total, page, page_size))


@router.post("", status_code=201, operation_id="createUser", responses=_CONFLICT)
async def create_user(admin: Admin, session: SessionDep, body: UserCreate) -> Envelope[UserPublic]:
    """Create a user with a role."""
    user = await users.create_user(session, body.email, body.password, body.role, admin.id)
    return Envelope(data=user_public(user))


@router.get("/{user_id}", operation_id="getUser")
async def get_user(admin: Admin, session: SessionDep, user_id: uuid.UUID) -> Envelope[UserPublic]:
    """One user."""
    return Envelope(data=user_public(await users.get_user(session, user_id)))


@router.patch("/{user_id}", operation_id="updateUser", responses=_CONFLICT)
async def update_user(
    admin: Admin, session: SessionDep, system: RunsDep, user_id: uuid.UUID, body: UserUpdate
) -> Envelope[UserPublic]:
    """Change a user's role, active flag or password; never the last active admin away.
    Deactivating or a new password also stops the user's answers and stateless chats."""
    user = await users.update_user(
        session, user_id, admin.id, body.role, body.is_active, body.password
    )
    await accounts.account_changed(system, user_id)
    return Envelope(data=user_public(user))


@router.post("/{user_id}/sign-out", status_code=204, operation_id="signOutUser")
async def sign_out_user(
    admin: Admin, session: SessionDep, system: RunsDep, user_id: uuid.UUID
) -> Response:
    """Sign a user out everywhere: every token they hold stops working, and their answers
    and stateless chats stop."""
    await users.sign_out_everywhere(session, user_id, admin.id)
    await accounts.account_changed(system, user_id)
    return Response(status_code=204)


@router.delete("/{user_id}", status_code=204, operation_id="deleteUser", responses=_CONFLICT)
async def delete_user(
    admin: Admin, session: SessionDep, system: RunsDep, user_id: uuid.UUID
) -> Response:
    """Delete a user and everything they own (not yourself, not the last active admin),
    once their answers and stateless chats have stopped."""
    await accounts.delete_user(system, session, user_id, admin.id)
    return Response(status_code=204)
