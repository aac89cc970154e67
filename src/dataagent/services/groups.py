"""Groups (an admin's): create, rename, delete, and set who is in them, each change audited.

A group's members reach every ontology shared with the group (`store.shares.reach` reads
membership on every request, so a change is in force at once on every replica).
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from dataagent.errors import DataAgentError, ErrorCode
from dataagent.store import audit, groups
from dataagent.store.models import Group, User


@dataclass(frozen=True)
class GroupView:
    """A group and how many members it has."""

    group: Group
    member_count: int


def _name_taken(name: str) -> DataAgentError:
    return DataAgentError(
        ErrorCode.CONFLICT,
        f"A group named {name!r} already exists (names are compared ignoring case); "
        "choose another name.",
    )


async def list_groups(session: AsyncSession) -> list[GroupView]:
    """Every group, by name, with its member count."""
    return [GroupView(g, n) for g, n in await groups.list_groups(session)]


async def get_group(session: AsyncSession, group_id: uuid.UUID) -> GroupView:
    """One group with its member count, or NOT_FOUND."""
    group = await groups.get_group(session, group_id)
    return GroupView(group, await groups.member_count(session, group_id))


async def create_group(
    session: AsyncSession, actor_id: uuid.UUID, name: str, description: str | None
) -> GroupView:
    """Create an empty group and commit; CONFLICT when the name is taken."""
    if await groups.named(session, name) is not None:
        raise _name_taken(name)
    group = Group(name=name, description=description, created_by=actor_id)
    session.add(group)
    await _flush_named(session, name)
    audit.record(
        session,
        actor_id,
        "group.create",
        "group",
        group.id,
        {"name": name, "description": description},
    )
    await session.commit()
    return GroupView(group, 0)


async def update_group(
    session: AsyncSession,
    actor_id: uuid.UUID,
    group_id: uuid.UUID,
    changes: dict[str, str | None],
) -> GroupView:
    """Rename a group and/or change its description (the keys `name`, `description` given),
    and commit; CONFLICT when the new name is another group's."""
    group = await groups.get_group(session, group_id)
    name = changes.get("name")
    if name is not None and name != group.name:
        if await groups.named(session, name, other_than=group.id) is not None:
            raise _name_taken(name)
        group.name = name
    if "description" in changes:
        group.description = changes["description"]
    await _flush_named(session, group.name)
    audit.record(session, actor_id, "group.update", "group", group.id, dict(changes))
    await session.commit()
    return GroupView(group, await groups.member_count(session, group.id))


async def delete_group(session: AsyncSession, actor_id: uuid.UUID, group_id: uuid.UUID) -> None:
    """Delete a group and commit: its members leave it and its shares go with it (cascade),
    so nobody reaches an ontology through it any more."""
    group = await groups.get_group(session, group_id)
    audit.record(session, actor_id, "group.delete", "group", group.id, {"name": group.name})
    await session.delete(group)
    await session.commit()


async def list_members(session: AsyncSession, group_id: uuid.UUID) -> list[User]:
    """The group's members by email, or NOT_FOUND for no such group."""
    await groups.get_group(session, group_id)
    return await groups.members(session, group_id)


async def set_members(
    session: AsyncSession, actor_id: uuid.UUID, group_id: uuid.UUID, user_ids: Sequence[uuid.UUID]
) -> list[User]:
    """Make these users (and only them) the group's members, and commit; NOT_FOUND naming
    the ids that belong to no user. Audited with who was added and who removed."""
    wanted = set(user_ids)
    await groups.get_group(session, group_id, lock=True)
    unknown = wanted - await groups.existing_users(session, wanted)
    if unknown:
        listed = " or ".join(sorted(str(u) for u in unknown))
        raise DataAgentError(
            ErrorCode.NOT_FOUND,
            f"No user has the id {listed}; members must be existing users.",
            {"userIds": sorted(str(u) for u in unknown)},
        )
    current = await groups.member_ids(session, group_id)
    added, removed = wanted - current, current - wanted
    try:
        await groups.change_members(session, group_id, added, removed)
    except IntegrityError:
        # Another change of these members (or a user's deletion) committed first.
        await session.rollback()
        raise DataAgentError(
            ErrorCode.CONFLICT,
            "The group's members changed at the same moment; read them again and retry.",
        ) from None
    audit.record(
        session,
        actor_id,
        "group.members",
        "group",
        group_id,
        {"added": sorted(str(u) for u in added), "removed": sorted(str(u) for u in removed)},
    )
    await session.commit()
    return await groups.members(session, group_id)


async def _flush_named(session: AsyncSession, name: str) -> None:
    """Write a group's new name; the database's unique name (a race with another request
    that took it first) is CONFLICT, never a 500."""
    try:
        await session.flush()
    except IntegrityError:
        await session.rollback()
        raise _name_taken(name) from None
