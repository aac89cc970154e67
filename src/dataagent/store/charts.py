"""Chart images of answers: owner-scoped reads and inserts (no commits)."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from sqlalchemy import CursorResult, delete, select
from sqlalchemy.ext.asyncio import AsyncSession

from dataagent.store.models import Chart
from dataagent.store.ownership import get_owned


async def add_chart(
    session: AsyncSession,
    owner_id: uuid.UUID,
    message_id: uuid.UUID | None,
    content: bytes,
    *,
    title: str | None,
    media_type: str,
    spec: dict[str, Any] | None,
) -> Chart:
    """Add one chart image (flushed, not committed)."""
    chart = Chart(
        owner_id=owner_id,
        message_id=message_id,
        title=title,
        media_type=media_type,
        content=content,
        spec=spec,
    )
    session.add(chart)
    await session.flush()
    return chart


async def get_chart(session: AsyncSession, owner_id: uuid.UUID, chart_id: uuid.UUID) -> Chart:
    """The owner's chart, or NOT_FOUND (also when someone else owns it)."""
    return await get_owned(session, Chart, owner_id, chart_id, "Chart")


async def charts_of_message(
    session: AsyncSession, owner_id: uuid.UUID, message_id: uuid.UUID
) -> list[Chart]:
    """The owner's charts of one message, oldest first."""
    query = (
        select(Chart)
        .where(Chart.owner_id == owner_id, Chart.message_id == message_id)
        .order_by(Chart.created_at, Chart.id)
    )
    return list((await session.scalars(query)).all())


async def delete_unattached(session: AsyncSession, created_before: datetime) -> int:
    """Delete the charts that belong to no message (a stateless chat's), made before the time
    given (not committed); how many. A message's charts go with it (ON DELETE CASCADE)."""
    result = await session.execute(
        delete(Chart).where(Chart.message_id.is_(None), Chart.created_at < created_before)
    )
    assert isinstance(result, CursorResult)
    return result.rowcount
