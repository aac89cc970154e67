"""Admin model settings per provider (`llm_settings`): read all, upsert one."""

from __future__ import annotations

import uuid

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from dataagent.store.models import LlmSetting
from dataagent.vocabulary import LlmProvider


async def list_settings(session: AsyncSession) -> list[LlmSetting]:
    """Every provider's stored settings, by provider id."""
    rows = await session.scalars(select(LlmSetting).order_by(LlmSetting.provider))
    return list(rows)


async def save_setting(
    session: AsyncSession,
    provider: LlmProvider,
    *,
    model: str | None,
    temperature: float | None,
    reasoning_level: str | None,
    updated_by: uuid.UUID | None,
) -> LlmSetting:
    """Replace one provider's settings (created on first save); the caller commits."""
    setting = await session.get(LlmSetting, provider, populate_existing=True)
    if setting is None:
        setting = LlmSetting(provider=provider)
        session.add(setting)
    setting.model = model
    setting.temperature = temperature
    setting.reasoning_level = reasoning_level
    setting.updated_by = updated_by
    await session.flush()
    return setting
