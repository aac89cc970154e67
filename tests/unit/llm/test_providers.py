"""Chat models per provider: which class, which model, time-outs, base URLs, reasoning."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_anthropic import ChatAnthropic
from langchain_openai import AzureChatOpenAI, ChatOpenAI

from dataagent.config import Settings
from dataagent.errors import DataAgentError, ErrorCode
from dataagent.llm import providers
from dataagent.llm.providers import ModelOverride, build_chat_model


def settings(**values: Any) -> Settings:
    values.setdefault("llm_connect_timeout_s", 3.0)
    values.setdefault("llm_read_timeout_s", 45.0)
    return Settings(_env_file=None, **values)  # type: ignore[call-arg]


ALL = {
    "openai_api_key": "sk-openai-secret",
    "anthropic_api_key": "sk-ant-secret",
    "azure_openai_api_key": "azure-secret",
    "azure_openai_endpoint": "https://example.openai.azure.com",
    "azure_openai_deployment": "gpt-4o-deploy",
}


def test_nothing_configured_enables_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "AZURE_OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    assert providers.enabled(settings()) == []
    with pytest.raises(DataAgentError) as caught:
        build_chat_model(settings(), "openai")
    assert caught.value.code == ErrorCode.LLM_UNAVAILABLE
    assert "OPENAI_API_KEY" in caught.value.message


def test_enabled_in_order_and_azure_needs_an_endpoint() -> None:
    assert providers.enabled(settings(**ALL)) == ["openai", "anthropic", "azure"]
    assert providers.enabled(settings(azure_openai_api_key="k")) == []
    assert providers.enabled(settings(openai_base_url="http://localhost:11434/v1")) == ["openai"]


def test_openai_model_has_timeouts_no_sdk_retries_and_streams_usage() -> None:
    model = build_chat_model(settings(**ALL), "openai")
    assert type(model) is ChatOpenAI
    assert model.model_name == "gpt-4o"
    client = model.root_async_client
    assert (client.timeout.connect, client.timeout.read) == (3.0, 45.0)
    assert client.max_retries == 0
    assert model.stream_usage is True
    assert model.stream_chunk_timeout == 45.0
    assert str(client.base_url).startswith("https://api.openai.com")
    assert model.temperature is None and model.reasoning_effort is None


def test_compatible_server_gets_base_url_and_a_stand_in_key() -> None:
    s = settings(openai_base_url="http://localhost:11434/v1", openai_model="llama3.1")
    model = build_chat_model(s, "openai_compatible")
    assert isinstance(model, ChatOpenAI)
    assert str(model.root_async_client.base_url) == "http://localhost:11434/v1/"
    assert model.root_async_client.api_key == "not-needed"
    assert model.model_name == "llama3.1"
    assert providers.display_name(s, "openai") == "OpenAI-compatible server"
    assert providers.display_name(settings(**ALL), "openai") == "OpenAI"


def test_admin_override_sets_model_and_temperature() -> None:
    model = build_chat_model(settings(**ALL), "openai", ModelOverride("gpt-4.1-mini", 0.2))
    assert isinstance(model, ChatOpenAI)
    assert (model.model_name, model.temperature) == ("gpt-4.1-mini", 0.2)


def test_openai_reasoning_effort_drops_the_temperature() -> None:
    override = ModelOverride("o3", 0.7, "high")
    model = build_chat_model(settings(**ALL), "openai", override)
    assert isinstance(model, ChatOpenAI)
    assert model.reasoning_effort == "high"
    assert model.temperature is None
    info = providers.model_info(settings(**ALL), "openai", override)
    assert (info.model, info.temperature) == ("o3", None)


def test_azure_model_uses_endpoint_deployment_and_version() -> None:
    model = build_chat_model(
        settings(**ALL, azure_openai_api_version="2025-01-01"),
        "azure",
        ModelOverride(reasoning_level="low"),
    )
    assert type(model) is AzureChatOpenAI
    assert model.deployment_name == "gpt-4o-deploy"
    assert model.openai_api_version == "2025-01-01"
    assert model.reasoning_effort == "low"
    client = model.root_async_client
    assert str(client.base_url).startswith(
        "https://example.openai.azure.com/openai/deployments/gpt-4o-deploy"
    )
    assert (client.timeout.connect, client.timeout.read, client.max_retries) == (3.0, 45.0, 0)


def test_anthropic_model_has_separate_connect_and_read_timeouts() -> None:
    s = settings(**ALL, anthropic_base_url="http://gateway.local:8080")
    model = build_chat_model(s, "anthropic", ModelOverride(temperature=0.3))
    assert isinstance(model, ChatAnthropic)
    assert (model.model, model.temperature, model.thinking) == ("claude-sonnet-4-5", 0.3, None)
    client = model._async_client
    assert (client.timeout.connect, client.timeout.read) == (3.0, 45.0)
    assert client.max_retries == 0
    assert str(client.base_url).startswith("http://gateway.local:8080")
    assert model.stream_usage is True


def test_anthropic_thinking_adaptive_and_budget_without_temperature() -> None:
    adaptive = build_chat_model(
        settings(**ALL), "anthropic", ModelOverride(temperature=0.5, reasoning_level="adaptive")
    )
    assert isinstance(adaptive, ChatAnthropic)
    assert adaptive.thinking == {"type": "adaptive"}
    assert adaptive.temperature is None
    budget = build_chat_model(settings(**ALL), "anthropic", ModelOverride(reasoning_level="4096"))
    assert isinstance(budget, ChatAnthropic)
    assert budget.thinking == {"type": "enabled", "budget_tokens": 4096}
    assert budget.max_tokens is not None and budget.max_tokens > 4096


@pytest.mark.parametrize(
    ("provider", "level", "expected"),
    [
        ("openai", "low", "low"),
        ("azure", " High ", "high"),
        ("openai", "adaptive", None),
        ("openai", "1024", None),
        ("anthropic", "adaptive", "adaptive"),
        ("anthropic", "1024", "1024"),
        ("anthropic", "128000", "128000"),
        ("anthropic", "1023", None),
        ("anthropic", "128001", None),
        ("anthropic", "high", None),
        ("anthropic", "２０４８", None),  # full-width digits are digits to str.isdigit
    ],
)
def test_reasoning_levels_per_provider(provider: str, level: str, expected: str | None) -> None:
    if expected is None:
        with pytest.raises(ValueError, match="reasoning level"):
            providers.check_reasoning_level(provider, level)  # type: ignore[arg-type]
    else:
        assert providers.check_reasoning_level(provider, level) == expected  # type: ignore[arg-type]


def test_default_models_and_aliases() -> None:
    s = settings(**ALL, anthropic_model="claude-opus-4-1")
    assert providers.default_model(s, "anthropic") == "claude-opus-4-1"
    assert providers.default_model(s, "azure") == "gpt-4o-deploy"
    assert providers.default_model(s, "openai_compatible") == "gpt-4o"
    assert providers.canonical("openai_compatible") == "openai"
    assert providers.canonical("mistral") is None


def test_keys_never_appear_in_a_models_repr() -> None:
    for name in ("openai", "anthropic", "azure"):
        model = build_chat_model(settings(**ALL), name)  # type: ignore[arg-type]
        text = repr(model) + str(model.model_dump())
        assert "secret" not in text, name


def test_a_provider_that_is_not_enabled_is_named() -> None:
    with pytest.raises(DataAgentError) as caught:
        build_chat_model(settings(openai_api_key="k"), "anthropic")
    assert caught.value.code == ErrorCode.LLM_UNAVAILABLE
    assert "'anthropic'" in caught.value.message and "ANTHROPIC_API_KEY" in caught.value.message
