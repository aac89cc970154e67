"""Groups of users (an admin's) and their members."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Annotated

from pydantic import Field, model_validator
from pydantic.json_schema import SkipJsonSchema

from dataagent.api.schemas import HAS_TEXT, ApiInput, ApiModel
from dataagent.services.groups import GroupView
from dataagent.store.models import User
from dataagent.vocabulary import Role

GroupName = Annotated[str, Field(min_length=1, max_length=255, pattern=HAS_TEXT)]
GroupDescription = Annotated[str, Field(max_length=10_000)]


class GroupPublic(ApiModel):
    """A group and how many members it has."""

    id: uuid.UUID
    name: str
    description: str | None
    member_count: int
    created_at: datetime
    updated_at: datetime
    created_by: uuid.UUID | None


def group_public(view: GroupView) -> GroupPublic:
    """The public view of a group."""
    group = view.group
    return GroupPublic(
        id=group.id,
        name=group.name,
        description=group.description,
        member_count=view.member_count,
        created_at=group.created_at,
        updated_at=group.updated_at,
        created_by=group.created_by,
    )


class GroupCreate(ApiInput):
    """A new group (names are unique, ignoring case)."""

    name: GroupName
    description: GroupDescription | None = None


class GroupUpdate(ApiInput):
    """Changes to a group; omitted fields stay as they are (a null description clears it)."""

    # Optional but never null, as `ChatUpdate.name`.
    name: GroupName | SkipJsonSchema[None] = None
    description: GroupDescription | None = None

    @model_validator(mode="after")
    def _name_not_null(self) -> GroupUpdate:
        if "name" in self.model_fields_set and self.name is None:
            raise ValueError("the name cannot be null (leave it out to keep it)")
        return self

    def changes(self) -> dict[str, str | None]:
        """The fields given: `name` when set, `description` when sent (null clears it)."""
        changes: dict[str, str | None] = {}
        if self.name is not None:
            changes["name"] = self.name
        if "description" in self.model_fields_set:
            changes["description"] = self.description
        return changes


class GroupMembersInput(ApiInput):
    """The group's whole list of members (a user named twice counts once)."""

    user_ids: list[uuid.UUID] = Field(max_length=10_000)


class GroupMemberPublic(ApiModel):
    """A member of a group."""

    id: uuid.UUID
    email: str
    role: Role
    is_active: bool


def member_public(user: User) -> GroupMemberPublic:
    """The public view of a group's member."""
    return GroupMemberPublic(id=user.id, email=user.email, role=user.role, is_active=user.is_active)
