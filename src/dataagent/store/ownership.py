"""Owner-scoped look-ups: another user's object answers exactly like a missing one."""

from __future__ import annotations

import uuid
from typing import Protocol, TypeVar

from sqlalchemy.ext.asyncio import AsyncSession

from dataagent.errors import not_found


class Owned(Protocol):
    """A record that belongs to one user."""

    @property
    def owner_id(self) -> uuid.UUID: ...


T = TypeVar("T", bound=Owned)


async def get_owned(
    session: AsyncSession, model: type[T], owner_id: uuid.UUID, object_id: uuid.UUID, what: str
) -> T:
    """The caller's record, or NOT_FOUND (also when someone else owns it)."""
    record = await session.get(model, object_id)
    if record is None or record.owner_id != owner_id:
        raise not_found(what)
    return record
