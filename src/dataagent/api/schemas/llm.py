"""Chat-model providers, their admin settings, a user's default and LLM traces (seed 001)."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field

from dataagent.api.schemas import HAS_TEXT, ApiInput, ApiModel
from dataagent.llm.providers import ProviderId
from dataagent.services.llm import LlmChoices, ProviderSettings, ProviderView
from dataagent.store.models import LlmTrace
from dataagent.vocabulary import LlmProvider


class ProviderPublic(ApiModel):
    """An enabled provider and the model it answers with."""

    id: ProviderId
    name: str
    model: str
    reasoning_level: str | None
    is_default: bool


class LlmProvidersPublic(ApiModel):
    """The providers a user may choose, their default and the system's."""

    providers: list[ProviderPublic]
    default_provider: ProviderId | None = Field(
        description="The caller's default provider (null: the system default)."
    )
    system_default: ProviderId | None = Field(
        description="The provider of a chat and user naming none (null: none is enabled)."
    )


class DefaultProviderUpdate(ApiInput):
    """The caller's default provider; null clears it back to the system default."""

    provider: LlmProvider | None


class ProviderSettingsPublic(ApiModel):
    """One provider's admin settings (null fields: the environment's default)."""

    provider: ProviderId
    name: str
    enabled: bool
    model: str | None
    temperature: float | None
    reasoning_level: str | None
    default_model: str = Field(description="The model the environment names.")
    effective_model: str = Field(description="The model that answers: the setting or default.")
    updated_at: datetime | None


class LlmSettingsPublic(ApiModel):
    """Every provider's admin settings."""

    providers: list[ProviderSettingsPublic]
    system_default: ProviderId | None


def _json_integer(value: Any) -> Any:
    """A JSON number with no fraction (2048.0) is an integer, as JSON Schema counts it; a
    string or a boolean stays what it is, for the strict check to refuse."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


class _SettingsUpdate(ApiInput):
    model: Annotated[str, Field(min_length=1, max_length=200, pattern=HAS_TEXT)] | None = None
    temperature: Annotated[float, Field(ge=0, le=2, strict=True)] | None = None


class OpenAISettingsUpdate(_SettingsUpdate):
    """OpenAI's or Azure's settings: `reasoningLevel` is their `reasoning_effort`."""

    provider: Literal["openai", "azure", "openai_compatible"]
    reasoning_level: Literal["low", "medium", "high"] | None = None


class AnthropicSettingsUpdate(_SettingsUpdate):
    """Anthropic's settings: `reasoningLevel` is extended thinking, `adaptive` or a budget
    of 1024–128000 tokens."""

    provider: Literal["anthropic"]
    reasoning_level: (
        Literal["adaptive"]
        # The bounds first, on the int itself, so the schema states them (after a validator
        # they would be Python-only steps, and the document would accept 0).
        | Annotated[int, Field(ge=1024, le=128_000, strict=True), BeforeValidator(_json_integer)]
        | None
    ) = None


# One provider's settings, replaced whole: an omitted or null field goes back to the default.
LlmSettingsUpdate = Annotated[
    OpenAISettingsUpdate | AnthropicSettingsUpdate, Field(discriminator="provider")
]


class LlmTracePublic(ApiModel):
    """One model call of an answer (seed 001's trace)."""

    id: uuid.UUID
    run_id: uuid.UUID | None
    message_id: uuid.UUID | None
    phase: str
    call_index: int
    step_id: int | None
    purpose: str
    provider: str
    model: str
    temperature: float | None
    structured_output: bool
    prompt_messages: list[dict[str, Any]]
    response_content: str | None
    tool_calls: list[dict[str, Any]] | None
    prompt_tokens: int
    completion_tokens: int
    total_tokens: int
    started_at: datetime
    completed_at: datetime
    duration_ms: int
    error: str | None


def providers_public(choices: LlmChoices) -> LlmProvidersPublic:
    """The public view of a user's provider choices."""
    return LlmProvidersPublic(
        providers=[provider_public(p) for p in choices.providers],
        default_provider=choices.user_default,
        system_default=choices.system_default,
    )


def provider_public(view: ProviderView) -> ProviderPublic:
    """The public view of an enabled provider."""
    return ProviderPublic.model_validate(view)


def settings_public(
    settings: list[ProviderSettings], system_default: ProviderId | None
) -> LlmSettingsPublic:
    """The public view of the admin settings."""
    return LlmSettingsPublic(
        providers=[ProviderSettingsPublic.model_validate(s) for s in settings],
        system_default=system_default,
    )


def trace_public(trace: LlmTrace) -> LlmTracePublic:
    """The public view of a trace."""
    return LlmTracePublic.model_validate(trace)
