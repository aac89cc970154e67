"""Chat-model providers, admin model settings and a user's default provider (seed 001)."""

from __future__ import annotations

import uuid

from fastapi import APIRouter

from dataagent.api.deps import Admin, ContextDep, CurrentUser, DataAgentReader, SessionDep
from dataagent.api.schemas import ERROR_RESPONSES, Envelope
from dataagent.api.schemas.chats import PROVIDER_CHOICE_RESPONSES
from dataagent.api.schemas.llm import (
    DefaultProviderUpdate,
    LlmProvidersPublic,
    LlmSettingsPublic,
    LlmSettingsUpdate,
    LlmTracePublic,
    providers_public,
    settings_public,
    trace_public,
)
from dataagent.services import llm

router = APIRouter(tags=["llm"], responses=ERROR_RESPONSES)


@router.get("/api/llm/providers", operation_id="listLlmProviders")
async def list_providers(
    user: CurrentUser, context: ContextDep, session: SessionDep
) -> Envelope[LlmProvidersPublic]:
    """The enabled providers with their models, the caller's default and the system's."""
    return Envelope(data=providers_public(await llm.choices(context, session, user)))


@router.put(
    "/api/llm/default-provider",
    operation_id="setDefaultLlmProvider",
    responses=PROVIDER_CHOICE_RESPONSES,
)
async def set_default_provider(
    user: CurrentUser, context: ContextDep, session: SessionDep, body: DefaultProviderUpdate
) -> Envelope[LlmProvidersPublic]:
    """Set the provider the caller's new chats start with (null: the system default)."""
    updated = await llm.set_default_provider(context, session, user.id, body.provider)
    return Envelope(data=providers_public(await llm.choices(context, session, updated)))


@router.get("/api/settings/llm", operation_id="getLlmSettings")
async def get_settings(
    admin: Admin, context: ContextDep, session: SessionDep
) -> Envelope[LlmSettingsPublic]:
    """Every provider's model, temperature and reasoning level (admin only)."""
    settings = await llm.get_settings(context, session)
    return Envelope(data=settings_public(settings, llm.system_default(context)))


@router.put("/api/settings/llm", operation_id="updateLlmSettings")
async def update_settings(
    admin: Admin, context: ContextDep, session: SessionDep, body: LlmSettingsUpdate
) -> Envelope[LlmSettingsPublic]:
    """Replace one provider's model, temperature and reasoning level (admin only)."""
    reasoning = str(body.reasoning_level) if body.reasoning_level is not None else None
    settings = await llm.update_settings(
        context,
        session,
        admin.id,
        body.provider,
        model=body.model,
        temperature=body.temperature,
        reasoning_level=reasoning,
    )
    return Envelope(data=settings_public(settings, llm.system_default(context)))


@router.get(
    "/api/data-agent/chats/{chat_id}/messages/{message_id}/traces",
    operation_id="listMessageTraces",
)
async def list_traces(
    user: DataAgentReader, session: SessionDep, chat_id: uuid.UUID, message_id: uuid.UUID
) -> Envelope[list[LlmTracePublic]]:
    """Every model call made for one of the caller's messages, in call order (seed 001)."""
    traces = await llm.list_traces(session, user.id, chat_id, message_id)
    return Envelope(data=[trace_public(t) for t in traces])
