"""Which chat model answers: enabled providers, admin settings, user defaults and traces.

Resolution for one answer: the chat's provider, else the user's default, else
`LLM_DEFAULT_PROVIDER`, else the first enabled provider (OpenAI, Anthropic, Azure). A
user's or the system's default that is not enabled (its key was removed) is passed over;
a chat that names a provider which is not enabled is refused with LLM_UNAVAILABLE naming
it. The admin's settings for that provider (model, temperature, reasoning level) override
the environment's model.

`AppContext.chat_model_factory`, when set, makes the model instead of the provider's
integration (tests and benchmarks put a scripted model there); with it and no provider
configured, `openai` stands in as the one enabled provider.

With no provider at all, or in a chat whose mode is `offline`, an answer makes no model call
(`answers_offline`): its client is a `NoModelClient`, whose every call fails loudly.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar

from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatResult
from pydantic import BaseModel
from sqlalchemy.ext.asyncio import AsyncSession

from dataagent.errors import DataAgentError, ErrorCode
from dataagent.llm import providers
from dataagent.llm.calls import CallObserver, ChatClient, LlmCall, ModelInfo
from dataagent.llm.providers import ModelOverride, ProviderId
from dataagent.services.context import AppContext
from dataagent.store import audit, llm_settings, llm_traces, users
from dataagent.store.models import LlmSetting, LlmTrace, User
from dataagent.vocabulary import AgentMode, LlmProvider

T = TypeVar("T", bound=BaseModel)

MAX_TEMPERATURE = 2.0
MAX_MODEL_CHARS = 200


@dataclass(frozen=True)
class ProviderView:
    """An enabled provider as a person choosing one sees it."""

    id: ProviderId
    name: str
    model: str
    reasoning_level: str | None
    is_default: bool


@dataclass(frozen=True)
class ProviderSettings:
    """One provider's admin settings, and what they resolve to."""

    provider: ProviderId
    name: str
    enabled: bool
    model: str | None
    temperature: float | None
    reasoning_level: str | None
    default_model: str
    effective_model: str
    updated_at: datetime | None


@dataclass(frozen=True)
class LlmChoices:
    """The providers a user may pick from, their default and the system's."""

    providers: list[ProviderView]
    user_default: ProviderId | None
    system_default: ProviderId | None


def available(ctx: AppContext) -> list[ProviderId]:
    """The providers that can answer (see the module docstring for the scripted stand-in)."""
    found = providers.enabled(ctx.settings)
    if not found and ctx.chat_model_factory is not None:
        return ["openai"]
    return found


def system_default(ctx: AppContext) -> ProviderId | None:
    """`LLM_DEFAULT_PROVIDER` when it is enabled, else the first enabled provider."""
    enabled = available(ctx)
    wanted = providers.canonical(ctx.settings.llm_default_provider)
    if wanted in enabled:
        return wanted
    return enabled[0] if enabled else None


def require_provider(ctx: AppContext) -> None:
    """LLM_UNAVAILABLE (503) with how to configure one, when no provider is enabled."""
    if not available(ctx):
        raise DataAgentError(ErrorCode.LLM_UNAVAILABLE, providers.NOT_CONFIGURED)


def answers_offline(ctx: AppContext, mode: AgentMode) -> bool:
    """Whether a chat in this mode answers with no model: it is `offline`, or no provider is
    configured (then every chat does)."""
    return mode == "offline" or not available(ctx)


async def answering_mode(
    ctx: AppContext,
    session: AsyncSession,
    owner_id: uuid.UUID,
    chat_provider: LlmProvider | None,
    mode: AgentMode,
) -> AgentMode:
    """The mode a chat's next answer runs in: `offline` (`answers_offline`), else its own
    mode, once its provider is known to answer (LLM_UNAVAILABLE, 503, when the chat names
    one that is not enabled)."""
    if answers_offline(ctx, mode):
        return "offline"
    await answering_provider(ctx, session, owner_id, chat_provider)
    return mode


def require_enabled(ctx: AppContext, provider: LlmProvider) -> ProviderId:
    """The provider a person chooses (a chat's, or their default) when it is enabled here.

    The one rule of every route that takes a choice: one that is not enabled is a CONFLICT
    (409) naming those that are (a valid name the server's state refuses).
    """
    enabled = available(ctx)
    name = providers.canonical(provider)
    if name is None or name not in enabled:
        raise DataAgentError(
            ErrorCode.CONFLICT,
            f"The provider {provider!r} is not enabled; choose one of: "
            f"{', '.join(enabled) or 'none (no provider is configured)'}.",
        )
    return name


async def _overrides(session: AsyncSession) -> dict[str, LlmSetting]:
    return {row.provider: row for row in await llm_settings.list_settings(session)}


def _override(row: LlmSetting | None) -> ModelOverride:
    if row is None:
        return ModelOverride()
    return ModelOverride(row.model, row.temperature, row.reasoning_level)


async def enabled_providers(ctx: AppContext, session: AsyncSession) -> list[ProviderView]:
    """The enabled providers with the model each answers with; `is_default`: the system's."""
    rows = await _overrides(session)
    default = system_default(ctx)
    views = []
    for provider in available(ctx):
        override = _override(rows.get(provider))
        info = providers.model_info(ctx.settings, provider, override)
        views.append(
            ProviderView(
                id=provider,
                name=providers.display_name(ctx.settings, provider),
                model=info.model,
                reasoning_level=override.reasoning_level,
                is_default=provider == default,
            )
        )
    return views


async def choices(ctx: AppContext, session: AsyncSession, user: User) -> LlmChoices:
    """What `GET /api/llm/providers` answers for this user."""
    return LlmChoices(
        providers=await enabled_providers(ctx, session),
        user_default=providers.canonical(user.default_llm_provider),
        system_default=system_default(ctx),
    )


def _resolve(
    ctx: AppContext, chat_provider: LlmProvider | None, user_default: LlmProvider | None
) -> ProviderId:
    enabled = available(ctx)
    if chat_provider is not None:
        named = providers.canonical(chat_provider)
        if named is None or named not in enabled:
            raise DataAgentError(
                ErrorCode.LLM_UNAVAILABLE, providers.not_enabled_message(chat_provider)
            )
        return named
    preferred = providers.canonical(user_default)
    if preferred is not None and preferred in enabled:
        return preferred
    default = system_default(ctx)
    if default is None:
        raise DataAgentError(ErrorCode.LLM_UNAVAILABLE, providers.NOT_CONFIGURED)
    return default


async def answering_provider(
    ctx: AppContext, session: AsyncSession, owner_id: uuid.UUID, chat_provider: LlmProvider | None
) -> ProviderId:
    """The provider that answers this user's chat (resolved as the module says);
    LLM_UNAVAILABLE (503) when none can."""
    require_provider(ctx)
    user = await users.get_user(session, owner_id)
    return _resolve(ctx, chat_provider, user.default_llm_provider)


async def chat_client(
    ctx: AppContext,
    session: AsyncSession,
    owner_id: uuid.UUID,
    chat_provider: LlmProvider | None,
    *,
    observer: CallObserver | None = None,
) -> ChatClient:
    """A client for the model that answers this user's chat (`answering_provider`)."""
    provider = await answering_provider(ctx, session, owner_id, chat_provider)
    override = _override((await _overrides(session)).get(provider))
    info = providers.model_info(ctx.settings, provider, override)
    if ctx.chat_model_factory is not None:
        model = ctx.chat_model_factory(info)
    else:
        model = _shared_model(ctx, provider, override)
    return ChatClient(
        model,
        info,
        observer=observer,
        max_retries=ctx.settings.llm_max_retries,
        trace_chars=ctx.settings.llm_trace_chars,
    )


OFFLINE_MODEL = ModelInfo(provider="none", model="offline planner")
NO_MODEL_CALL = "An offline answer makes no model call; this step needs a model."


class _NoModel(BaseChatModel):
    """The model behind a `NoModelClient`: there is none."""

    @property
    def _llm_type(self) -> str:
        return "none"

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> ChatResult:
        raise DataAgentError(ErrorCode.LLM_UNAVAILABLE, NO_MODEL_CALL)


class NoModelClient(ChatClient):
    """The client of an offline answer: it holds no model, and every call raises
    LLM_UNAVAILABLE at once (so a path that would call a model fails loudly, and no call is
    recorded)."""

    def __init__(self) -> None:
        super().__init__(_NoModel(), OFFLINE_MODEL)

    async def stream(self, messages: Sequence[BaseMessage], **kwargs: Any) -> AIMessage:
        """Refused: no model."""
        raise DataAgentError(ErrorCode.LLM_UNAVAILABLE, NO_MODEL_CALL)

    async def structured(
        self, messages: Sequence[BaseMessage], schema: type[T], **kwargs: Any
    ) -> T:
        """Refused: no model."""
        raise DataAgentError(ErrorCode.LLM_UNAVAILABLE, NO_MODEL_CALL)

    async def invoke(self, messages: Sequence[BaseMessage], **kwargs: Any) -> AIMessage:
        """Refused: no model."""
        raise DataAgentError(ErrorCode.LLM_UNAVAILABLE, NO_MODEL_CALL)


def _shared_model(ctx: AppContext, provider: ProviderId, override: ModelOverride) -> BaseChatModel:
    """The provider's model for these settings, built once per process and shared.

    Building one costs tens of milliseconds of blocked event loop (its HTTP clients and their
    TLS contexts); a model serves any number of answers at once. A changed admin setting
    builds a new one; the old is closed with the context (`AppContext.aclose`).
    """
    key = (provider, override)
    model = ctx.chat_models.get(key)
    if model is None:
        model = providers.build_chat_model(ctx.settings, provider, override)
        ctx.chat_models[key] = model
    return model


async def get_settings(ctx: AppContext, session: AsyncSession) -> list[ProviderSettings]:
    """Every provider's admin settings, enabled or not."""
    rows = await _overrides(session)
    enabled = available(ctx)
    result = []
    for provider in providers.PROVIDER_ORDER:
        row = rows.get(provider)
        override = _override(row)
        result.append(
            ProviderSettings(
                provider=provider,
                name=providers.display_name(ctx.settings, provider),
                enabled=provider in enabled,
                model=override.model,
                temperature=override.temperature,
                reasoning_level=override.reasoning_level,
                default_model=providers.default_model(ctx.settings, provider),
                effective_model=providers.model_info(ctx.settings, provider, override).model,
                updated_at=row.updated_at if row is not None else None,
            )
        )
    return result


def _invalid(message: str) -> DataAgentError:
    return DataAgentError(ErrorCode.VALIDATION_ERROR, message)


async def update_settings(
    ctx: AppContext,
    session: AsyncSession,
    actor_id: uuid.UUID,
    provider: LlmProvider,
    *,
    model: str | None,
    temperature: float | None,
    reasoning_level: str | None,
) -> list[ProviderSettings]:
    """Replace one provider's admin settings (None: back to the default), audit and commit."""
    name = providers.canonical(provider)
    if name is None:
        raise _invalid(f"Unknown provider {provider!r}; use openai, anthropic or azure.")
    if model is not None:
        model = model.strip()
        if not 1 <= len(model) <= MAX_MODEL_CHARS or "\x00" in model:
            raise _invalid(f"The model name must have 1-{MAX_MODEL_CHARS} characters.")
    if temperature is not None and not 0 <= temperature <= MAX_TEMPERATURE:
        raise _invalid(f"The temperature must be between 0 and {MAX_TEMPERATURE:g}.")
    if reasoning_level is not None:
        try:
            reasoning_level = providers.check_reasoning_level(name, reasoning_level)
        except ValueError as exc:
            raise _invalid(str(exc)) from exc
    await llm_settings.save_setting(
        session,
        name,
        model=model,
        temperature=temperature,
        reasoning_level=reasoning_level,
        updated_by=actor_id,
    )
    details = {"model": model, "temperature": temperature, "reasoningLevel": reasoning_level}
    audit.record(session, actor_id, "llm_settings.update", "llm_settings", name, details)
    await session.commit()
    return await get_settings(ctx, session)


async def set_default_provider(
    ctx: AppContext, session: AsyncSession, user_id: uuid.UUID, provider: LlmProvider | None
) -> User:
    """Set (or clear, with None) the provider a user's new chats start with, and commit."""
    name = require_enabled(ctx, provider) if provider is not None else None
    user = await users.get_user(session, user_id)
    user.default_llm_provider = name
    await session.commit()
    return user


def trace_of(
    call: LlmCall, owner_id: uuid.UUID, *, run_id: uuid.UUID | None, message_id: uuid.UUID | None
) -> LlmTrace:
    """The `llm_traces` row of one call."""
    return LlmTrace(
        owner_id=owner_id,
        run_id=run_id,
        message_id=message_id,
        phase=call.phase,
        call_index=call.call_index,
        step_id=call.step_id,
        purpose=call.purpose,
        provider=call.provider,
        model=call.model,
        temperature=call.temperature,
        structured_output=call.structured_output,
        prompt_messages=call.prompt_messages,
        response_content=call.response_content,
        tool_calls=call.tool_calls,
        prompt_tokens=call.usage.prompt,
        completion_tokens=call.usage.completion,
        total_tokens=call.usage.total,
        started_at=call.started_at,
        completed_at=call.completed_at or call.started_at,
        duration_ms=call.duration_ms,
        error=call.error,
    )


async def save_traces(
    session: AsyncSession,
    owner_id: uuid.UUID,
    calls: Sequence[LlmCall],
    *,
    run_id: uuid.UUID | None,
    message_id: uuid.UUID | None,
) -> None:
    """Add a trace row per call to the session; the caller commits."""
    llm_traces.add_traces(
        session, (trace_of(c, owner_id, run_id=run_id, message_id=message_id) for c in calls)
    )


async def list_traces(
    session: AsyncSession, owner_id: uuid.UUID, chat_id: uuid.UUID, message_id: uuid.UUID
) -> list[LlmTrace]:
    """A message's traces in call order; NOT_FOUND unless the chat is the caller's and
    the message is in it."""
    return await llm_traces.list_for_message(session, owner_id, chat_id, message_id)
