"""Chat models per provider, built from the settings and an admin's override.

Three integrations cover four kinds of server: `ChatOpenAI` (OpenAI itself, and any
OpenAI-compatible server — Ollama, vLLM, llama.cpp, LM Studio — through `OPENAI_BASE_URL`),
`AzureChatOpenAI` and `ChatAnthropic`. Every model gets explicit connect/read time-outs and
has its SDK's own retries turned off: `ChatClient` retries, and only before anything of a
call was streamed to a person.

An OpenAI-compatible server is the `openai` provider with a base URL, not a provider of its
own: both come from the same `OPENAI_*` variables, so only one of them can exist at a time.
`openai_compatible` (accepted in the vocabulary for chats and settings) is read as `openai`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any, Final, Literal

import anthropic
import openai
from langchain_anthropic import ChatAnthropic
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_openai import AzureChatOpenAI, ChatOpenAI
from pydantic import SecretStr

from dataagent.config import Settings
from dataagent.errors import DataAgentError, ErrorCode
from dataagent.llm.calls import ModelInfo
from dataagent.llm.structured import StructuredMode
from dataagent.vocabulary import LlmProvider

ProviderId = Literal["openai", "anthropic", "azure"]
# The order `enabled` lists providers in, and so the "first enabled" default.
PROVIDER_ORDER: Final[tuple[ProviderId, ...]] = ("openai", "anthropic", "azure")

REASONING_EFFORTS: Final[tuple[str, ...]] = ("low", "medium", "high")
THINKING_ADAPTIVE: Final = "adaptive"
THINKING_MIN_TOKENS: Final = 1024
THINKING_MAX_TOKENS: Final = 128_000
# Room for the answer beyond the thinking budget (Anthropic needs max_tokens > budget).
_ANSWER_TOKENS: Final = 8192
# Compatible servers often need no key, but the OpenAI SDK refuses to start without one.
_NO_KEY: Final = "not-needed"
_AZURE_DEFAULT_MODEL: Final = "gpt-4o"

NOT_CONFIGURED = (
    "No language model is configured: set OPENAI_API_KEY (or OPENAI_BASE_URL for an "
    "OpenAI-compatible server such as Ollama), ANTHROPIC_API_KEY, or AZURE_OPENAI_API_KEY "
    "with AZURE_OPENAI_ENDPOINT, then restart."
)


@dataclass(frozen=True)
class ModelOverride:
    """An admin's settings for one provider; None keeps the provider's default."""

    model: str | None = None
    temperature: float | None = None
    reasoning_level: str | None = None


def canonical(provider: str | None) -> ProviderId | None:
    """The provider id this name stands for (`openai_compatible` is `openai`), or None."""
    if provider == "openai_compatible":
        return "openai"
    for known in PROVIDER_ORDER:
        if provider == known:
            return known
    return None


def enabled(settings: Settings) -> list[ProviderId]:
    """The providers whose credentials are set, in `PROVIDER_ORDER`."""
    found: list[ProviderId] = []
    if settings.openai_api_key is not None or settings.openai_base_url:
        found.append("openai")
    if settings.anthropic_api_key is not None:
        found.append("anthropic")
    if settings.azure_openai_api_key is not None and settings.azure_openai_endpoint:
        found.append("azure")
    return found


def default_model(settings: Settings, provider: LlmProvider) -> str:
    """The model a provider uses when no admin setting names one."""
    match canonical(provider):
        case "anthropic":
            return settings.anthropic_model
        case "azure":
            return settings.azure_openai_deployment or _AZURE_DEFAULT_MODEL
        case _:
            return settings.openai_model


def display_name(settings: Settings, provider: LlmProvider) -> str:
    """The provider's name as a person reads it."""
    match canonical(provider):
        case "anthropic":
            return "Anthropic"
        case "azure":
            return "Azure OpenAI"
        case _:
            return "OpenAI-compatible server" if settings.openai_base_url else "OpenAI"


def check_reasoning_level(provider: LlmProvider, level: str) -> str:
    """The level, normalised, or ValueError with the values this provider accepts.

    OpenAI and Azure: `reasoning_effort` low, medium or high. Anthropic: extended thinking,
    `adaptive` or a token budget of 1024–128000 written as digits.
    """
    value = level.strip().lower()
    if canonical(provider) == "anthropic":
        if value == THINKING_ADAPTIVE:
            return value
        if value.isascii() and value.isdigit():
            budget = int(value)
            if THINKING_MIN_TOKENS <= budget <= THINKING_MAX_TOKENS:
                return str(budget)
        raise ValueError(
            f"Anthropic's reasoning level is {THINKING_ADAPTIVE!r} or a thinking budget of "
            f"{THINKING_MIN_TOKENS}-{THINKING_MAX_TOKENS} tokens, not {level!r}."
        )
    if value in REASONING_EFFORTS:
        return value
    raise ValueError(
        f"The reasoning level of {provider} is one of {', '.join(REASONING_EFFORTS)}, "
        f"not {level!r}."
    )


def model_info(
    settings: Settings, provider: LlmProvider, override: ModelOverride | None = None
) -> ModelInfo:
    """Which model a provider answers with, the temperature actually sent, and how a
    structured answer is asked of it.

    With a reasoning level no temperature is sent: reasoning models refuse one.
    """
    override = override or ModelOverride()
    name = canonical(provider) or "openai"
    model = override.model or default_model(settings, name)
    temperature = None if override.reasoning_level else override.temperature
    return ModelInfo(
        provider=name,
        model=model,
        temperature=temperature,
        structured_mode=structured_mode(name, override.reasoning_level),
    )


def structured_mode(provider: ProviderId, reasoning_level: str | None) -> StructuredMode:
    """How a structured answer is asked of a provider.

    OpenAI and Azure: the JSON-schema response format. An OpenAI-compatible server gets it
    too (Ollama, vLLM, llama.cpp and LM Studio implement it); one that refuses it is asked
    again with the schema in the prompt (`ChatClient.structured`). Anthropic: a forced tool,
    except with extended thinking, which refuses forced tools: the schema in the prompt.
    """
    if provider == "anthropic":
        return "prompt" if reasoning_level else "tool"
    return "json_schema"


def timeout_of(settings: Settings) -> openai.Timeout:
    """Connect and read time-outs from the settings (writes and the pool wait as connect).

    The SDKs' own `Timeout` (httpx2's; both OpenAI's and Anthropic's SDK refuse httpx's).
    """
    connect = settings.llm_connect_timeout_s
    return openai.Timeout(settings.llm_read_timeout_s, connect=connect, write=connect, pool=connect)


def build_chat_model(
    settings: Settings, provider: LlmProvider, override: ModelOverride | None = None
) -> BaseChatModel:
    """A LangChain chat model for an enabled provider, with the admin's override applied.

    LLM_UNAVAILABLE when the provider is not enabled. Keys are handed to the SDK only.
    """
    name = canonical(provider)
    if name is None or name not in enabled(settings):
        raise DataAgentError(ErrorCode.LLM_UNAVAILABLE, not_enabled_message(provider))
    override = override or ModelOverride()
    info = model_info(settings, name, override)
    reasoning = (
        check_reasoning_level(name, override.reasoning_level) if override.reasoning_level else None
    )
    if name == "anthropic":
        return _anthropic(settings, info, reasoning)
    if name == "azure":
        return _azure(settings, info, reasoning)
    return _openai(settings, info, reasoning)


async def close_chat_model(model: BaseChatModel) -> None:
    """Close the HTTP clients of a model built here (its connections); others: nothing.

    Each model has clients of its own (the SDKs cache none for an `httpx.Timeout`). The SDKs
    close a forgotten client when it is collected, but only while an event loop runs.
    """
    if isinstance(model, ChatOpenAI):  # AzureChatOpenAI too
        if model.root_async_client is not None:
            await model.root_async_client.close()
        if model.root_client is not None:
            model.root_client.close()
    elif isinstance(model, TimedChatAnthropic):
        # Made on first use only (cached properties): close those that were.
        if "_async_client" in model.__dict__:
            await model._async_client.close()
        if "_client" in model.__dict__:
            model._client.close()


def not_enabled_message(provider: str) -> str:
    """Why a named provider cannot answer, and how to enable it."""
    how = {
        "openai": "set OPENAI_API_KEY (or OPENAI_BASE_URL for an OpenAI-compatible server)",
        "anthropic": "set ANTHROPIC_API_KEY",
        "azure": "set AZURE_OPENAI_API_KEY and AZURE_OPENAI_ENDPOINT",
    }.get(canonical(provider) or "", "use openai, anthropic or azure")
    return (
        f"The language model provider {provider!r} is not configured: {how}, then restart, "
        "or choose another provider."
    )


def _secret(value: SecretStr | None) -> SecretStr:
    return value if value is not None else SecretStr(_NO_KEY)


def _openai(settings: Settings, info: ModelInfo, reasoning: str | None) -> BaseChatModel:
    return ChatOpenAI(
        model=info.model,
        api_key=_secret(settings.openai_api_key),
        base_url=settings.openai_base_url or None,
        temperature=info.temperature,
        reasoning_effort=reasoning,
        timeout=timeout_of(settings),
        # The SDK's read time-out restarts with every byte, keep-alive comments included;
        # this one restarts only with a parsed chunk, so a silent stream fails too.
        stream_chunk_timeout=settings.llm_read_timeout_s,
        max_retries=0,
        # Usage in streams: OpenAI and most compatible servers send it when asked.
        stream_usage=True,
    )


def _azure(settings: Settings, info: ModelInfo, reasoning: str | None) -> BaseChatModel:
    return AzureChatOpenAI(
        azure_endpoint=settings.azure_openai_endpoint,
        azure_deployment=info.model,
        api_version=settings.azure_openai_api_version,
        api_key=settings.azure_openai_api_key,
        model=info.model,
        temperature=info.temperature,
        reasoning_effort=reasoning,
        timeout=timeout_of(settings),
        stream_chunk_timeout=settings.llm_read_timeout_s,
        max_retries=0,
        stream_usage=True,
    )


def _anthropic(settings: Settings, info: ModelInfo, reasoning: str | None) -> BaseChatModel:
    extra: dict[str, Any] = {}
    if reasoning == THINKING_ADAPTIVE:
        extra["thinking"] = {"type": "adaptive"}
    elif reasoning is not None:
        budget = int(reasoning)
        extra["thinking"] = {"type": "enabled", "budget_tokens": budget}
        extra["max_tokens"] = budget + _ANSWER_TOKENS
    return TimedChatAnthropic(
        model=info.model,
        api_key=_secret(settings.anthropic_api_key),
        base_url=settings.anthropic_base_url or None,
        temperature=info.temperature,
        timeout=settings.llm_read_timeout_s,
        connect_timeout_s=settings.llm_connect_timeout_s,
        max_retries=0,
        stream_usage=True,
        **extra,
    )


class TimedChatAnthropic(ChatAnthropic):
    """`ChatAnthropic` with a connect time-out apart from the read time-out.

    The integration takes one float for both; the SDK takes a `Timeout`, so the client is
    made here with one (and without the integration's client cache, which an unhashable
    `Timeout` would break).
    """

    connect_timeout_s: float | None = None

    @cached_property
    def _client_params(self) -> dict[str, Any]:
        params: dict[str, Any] = dict(ChatAnthropic._client_params.func(self))  # type: ignore[attr-defined]
        read = self.default_request_timeout
        if read is not None and self.connect_timeout_s is not None:
            connect = self.connect_timeout_s
            params["timeout"] = anthropic.Timeout(
                read, connect=connect, write=connect, pool=connect
            )
        return params

    @cached_property
    def _client(self) -> anthropic.Client:
        params = self._client_params
        http = anthropic.DefaultHttpxClient(**self._http_params(params))
        return anthropic.Client(**params, http_client=http)

    @cached_property
    def _async_client(self) -> anthropic.AsyncClient:
        params = self._client_params
        http = anthropic.DefaultAsyncHttpxClient(**self._http_params(params))
        return anthropic.AsyncClient(**params, http_client=http)

    def _http_params(self, params: dict[str, Any]) -> dict[str, Any]:
        http: dict[str, Any] = {}
        if params.get("timeout") is not None:
            http["timeout"] = params["timeout"]
        if self.anthropic_proxy:
            http["proxy"] = self.anthropic_proxy
        return http
