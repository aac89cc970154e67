"""Groups and their members: look-ups, counts, membership changes (nothing committed here)."""

from __future__ import annotations

import uuid
from collections.abc import Collection

from sqlalchemy import delete, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from dataagent.errors import not_found
from dataagent.store.models import Group, GroupMember, User


async def get_group(session: AsyncSession, group_id: uuid.UUID, *, lock: bool = False) -> Group:
    """The group, or NOT_FOUND; `lock` holds its row until the transaction ends (PostgreSQL),
    so two changes of one group's members run one after the other."""
    query = select(Group).where(Group.id == group_id).execution_options(populate_existing=True)
    if lock:
        query = query.with_for_update()
    group = await session.scalar(query)
    if group is None:
        raise not_found("Group")
    return group


async def named(
    session: AsyncSession, name: str, *, other_than: uuid.UUID | None = None
) -> Group | None:
    """The group with this name, compared case-insensitively, or None (`other_than`: not
    that group, the one being renamed)."""
    query = select(Group).where(func.lower(Group.name) == name.lower())
    if other_than is not None:
        query = query.where(Group.id != other_than)
    return await session.scalar(query.limit(1))


async def list_groups(session: AsyncSession) -> list[tuple[Group, int]]:
    """Every group by name, each with its member count."""
    counts = (
        select(GroupMember.group_id, func.count().label("members"))
        .group_by(GroupMember.group_id)
        .subquery()
    )
    rows = await session.execute(
        select(Group, func.coalesce(counts.c.members, 0))
        .outerjoin(counts, counts.c.group_id == Group.id)
        .order_by(func.lower(Group.name), Group.id)
    )
    return [(group, int(count)) for group, count in rows]


async def member_count(session: AsyncSession, group_id: uuid.UUID) -> int:
    """How many users the group has."""
    count = await session.scalar(
        select(func.count()).select_from(GroupMember).where(GroupMember.group_id == group_id)
    )
    return int(count or 0)


async def member_ids(session: AsyncSession, group_id: uuid.UUID) -> set[uuid.UUID]:
    """The ids of the group's members."""
    rows = await session.scalars(
        select(GroupMember.user_id).where(GroupMember.group_id == group_id)
    )
    return set(rows)


async def members(session: AsyncSession, group_id: uuid.UUID) -> list[User]:
    """The group's members, by email."""
    rows = await session.scalars(
        select(User)
        .join(GroupMember, GroupMember.user_id == User.id)
        .where(GroupMember.group_id == group_id)
        .order_by(User.email)
    )
    return list(rows)


async def existing_users(session: AsyncSession, user_ids: Collection[uuid.UUID]) -> set[uuid.UUID]:
    """Those of these user ids that belong to a user."""
    if not user_ids:
        return set()
    rows = await session.scalars(select(User.id).where(User.id.in_(list(user_ids))))
    return set(rows)


async def change_members(
    session: AsyncSession,
    group_id: uuid.UUID,
    added: Collection[uuid.UUID],
    removed: Collection[uuid.UUID],
) -> None:
    """Add and remove members (flushed, not committed)."""
    if removed:
        await session.execute(
            delete(GroupMember)
            .where(GroupMember.group_id == group_id, GroupMember.user_id.in_(list(removed)))
            .execution_options(synchronize_session=False)
        )
    session.add_all(GroupMember(group_id=group_id, user_id=user_id) for user_id in added)
    await session.flush()
