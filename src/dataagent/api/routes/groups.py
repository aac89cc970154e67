"""Groups of users (permission `users:manage`): an ontology shared with a group reaches
each of its members."""

from __future__ import annotations

import uuid
from typing import Any

from fastapi import APIRouter, Response

from dataagent.api.deps import Admin, SessionDep
from dataagent.api.schemas import ERROR_RESPONSES, Envelope, ErrorBody
from dataagent.api.schemas.groups import (
    GroupCreate,
    GroupMemberPublic,
    GroupMembersInput,
    GroupPublic,
    GroupUpdate,
    group_public,
    member_public,
)
from dataagent.services import groups

router = APIRouter(prefix="/api/groups", tags=["groups"], responses=ERROR_RESPONSES)
_CONFLICT: dict[int | str, dict[str, Any]] = {
    409: {"model": ErrorBody, "description": "Conflict: the name is another group's"}
}


@router.get("", operation_id="listGroups")
async def list_groups(admin: Admin, session: SessionDep) -> Envelope[list[GroupPublic]]:
    """Every group, by name, each with its member count."""
    return Envelope(data=[group_public(g) for g in await groups.list_groups(session)])


@router.post("", status_code=201, operation_id="createGroup", responses=_CONFLICT)
async def create_group(
    admin: Admin, session: SessionDep, body: GroupCreate
) -> Envelope[GroupPublic]:
    """Create an empty group; its name must be unique (ignoring case)."""
    view = await groups.create_group(session, admin.id, body.name, body.description)
    return Envelope(data=group_public(view))


@router.get("/{group_id}", operation_id="getGroup")
async def get_group(
    admin: Admin, session: SessionDep, group_id: uuid.UUID
) -> Envelope[GroupPublic]:
    """One group."""
    return Envelope(data=group_public(await groups.get_group(session, group_id)))


@router.patch("/{group_id}", operation_id="updateGroup", responses=_CONFLICT)
async def update_group(
    admin: Admin, session: SessionDep, group_id: uuid.UUID, body: GroupUpdate
) -> Envelope[GroupPublic]:
    """Rename a group or change its description."""
    view = await groups.update_group(session, admin.id, group_id, body.changes())
    return Envelope(data=group_public(view))


@router.delete("/{group_id}", status_code=204, operation_id="deleteGroup")
async def delete_group(admin: Admin, session: SessionDep, group_id: uuid.UUID) -> Response:
    """Delete a group: its members leave it, and its shares are revoked with it."""
    await groups.delete_group(session, admin.id, group_id)
    return Response(status_code=204)


@router.get("/{group_id}/members", operation_id="listGroupMembers")
async def list_members(
    admin: Admin, session: SessionDep, group_id: uuid.UUID
) -> Envelope[list[GroupMemberPublic]]:
    """The group's members, by email."""
    return Envelope(data=[member_public(u) for u in await groups.list_members(session, group_id)])


@router.put(
    "/{group_id}/members",
    operation_id="setGroupMembers",
    responses={409: {"model": ErrorBody, "description": "The members changed at the same time"}},
)
async def set_members(
    admin: Admin, session: SessionDep, group_id: uuid.UUID, body: GroupMembersInput
) -> Envelope[list[GroupMemberPublic]]:
    """Set the group's whole list of members (404 naming ids that belong to no user); in
    force on the members' next request."""
    members = await groups.set_members(session, admin.id, group_id, body.user_ids)
    return Envelope(data=[member_public(u) for u in members])
