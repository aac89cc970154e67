"""Seed 001's model providers: the provider list, admin model settings, a user's default
provider, model resolution for a chat (`chat_client`) and LLM traces, on both app databases."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from langchain_core.messages import HumanMessage
from pydantic import SecretStr
from sqlalchemy import select
from tests.fakes.openai_server import FakeOpenAIServer, Step, tool
from tests.fakes.scripted_model import Reply, ScriptedChatModel
from tests.integration.api.conftest import Account, World

from dataagent.errors import DataAgentError, ErrorCode
from dataagent.llm.calls import ModelInfo
from dataagent.services import llm
from dataagent.store.models import AuditEvent, User


def configure(world: World, **values: Any) -> None:
    """Give the running app these provider settings (keys as SecretStr)."""
    for key, value in list(values.items()):
        if key.endswith("api_key") and isinstance(value, str):
            values[key] = SecretStr(value)
    world.context.settings = world.context.settings.model_copy(update=values)


OPENAI_AND_ANTHROPIC = {"openai_api_key": "sk-test-openai", "anthropic_api_key": "sk-test-ant"}


@pytest.fixture(autouse=True)
def no_provider(world: World) -> None:
    """These tests start on a server with no provider, and configure the ones they need."""
    configure(world, openai_api_key=None)


async def put_settings(account: Account, **body: Any) -> Any:
    return await account.client.put("/api/settings/llm", json=body)


# --- GET /api/llm/providers ------------------------------------------------------------------


async def test_providers_require_sign_in(world: World) -> None:
    response = await world.anon.get("/api/llm/providers")
    assert response.status_code == 401


async def test_no_provider_configured_lists_none(world: World) -> None:
    response = await world.viewer.client.get("/api/llm/providers")
    assert response.status_code == 200
    assert response.json() == {
        "data": {"providers": [], "defaultProvider": None, "systemDefault": None}
    }


async def test_providers_list_the_enabled_ones_with_their_models(world: World) -> None:
    configure(world, **OPENAI_AND_ANTHROPIC, llm_default_provider="anthropic")
    response = await world.viewer.client.get("/api/llm/providers")
    data = response.json()["data"]
    assert data["providers"] == [
        {
            "id": "openai",
            "name": "OpenAI",
            "model": "gpt-4o",
            "reasoningLevel": None,
            "isDefault": False,
        },
        {
            "id": "anthropic",
            "name": "Anthropic",
            "model": "claude-sonnet-4-5",
            "reasoningLevel": None,
            "isDefault": True,
        },
    ]
    assert data["systemDefault"] == "anthropic"
    # Keys are never part of an answer.
    assert "sk-test" not in response.text


async def test_admin_settings_show_in_the_provider_list(world: World) -> None:
    configure(world, **OPENAI_AND_ANTHROPIC)
    response = await put_settings(
        world.admin, provider="anthropic", model="claude-opus-4-1", reasoningLevel="adaptive"
    )
    assert response.status_code == 200, response.text
    data = (await world.contributor.client.get("/api/llm/providers")).json()["data"]
    anthropic = next(p for p in data["providers"] if p["id"] == "anthropic")
    assert (anthropic["model"], anthropic["reasoningLevel"]) == ("claude-opus-4-1", "adaptive")
    # With nothing named, the first enabled provider is the system default.
    assert data["systemDefault"] == "openai"


# --- /api/settings/llm -------------------------------------------------------------------


async def test_settings_are_admin_only(world: World) -> None:
    for account in (world.contributor, world.viewer):
        assert (await account.client.get("/api/settings/llm")).status_code == 403
        response = await put_settings(account, provider="openai", model="gpt-4o-mini")
        assert response.status_code == 403
        assert response.json()["error"]["code"] == "FORBIDDEN"
    assert (await world.anon.get("/api/settings/llm")).status_code == 401


async def test_admin_reads_every_providers_settings(world: World) -> None:
    configure(world, openai_api_key="sk-test", azure_openai_deployment="prod-gpt")
    response = await world.admin.client.get("/api/settings/llm")
    assert response.status_code == 200
    data = response.json()["data"]
    assert [(p["provider"], p["enabled"]) for p in data["providers"]] == [
        ("openai", True),
        ("anthropic", False),
        ("azure", False),
    ]
    azure = data["providers"][2]
    assert (azure["model"], azure["defaultModel"], azure["effectiveModel"]) == (
        None,
        "prod-gpt",
        "prod-gpt",
    )
    assert azure["updatedAt"] is None
    assert data["systemDefault"] == "openai"


async def test_admin_updates_then_replaces_a_providers_settings(world: World) -> None:
    configure(world, openai_api_key="sk-test")
    response = await put_settings(
        world.admin, provider="openai", model=" o3-mini ", temperature=0.2, reasoningLevel="high"
    )
    assert response.status_code == 200, response.text
    openai = response.json()["data"]["providers"][0]
    assert (openai["model"], openai["temperature"], openai["reasoningLevel"]) == (
        "o3-mini",
        0.2,
        "high",
    )
    assert (openai["effectiveModel"], openai["defaultModel"]) == ("o3-mini", "gpt-4o")
    assert openai["updatedAt"] is not None
    # A PUT replaces the whole row: what it leaves out goes back to the default.
    response = await put_settings(world.admin, provider="openai", temperature=1.5)
    openai = response.json()["data"]["providers"][0]
    assert (openai["model"], openai["temperature"], openai["reasoningLevel"]) == (None, 1.5, None)
    assert openai["effectiveModel"] == "gpt-4o"
    async with world.database.session() as session:
        actions = (
            await session.scalars(
                select(AuditEvent.action).where(AuditEvent.object_type == "llm_settings")
            )
        ).all()
    assert actions == ["llm_settings.update", "llm_settings.update"]


async def test_anthropic_thinking_budget_or_adaptive(world: World) -> None:
    # 2615.0 is an integer to JSON Schema (and so to the OpenAPI document): accepted.
    levels = ((2048, "2048"), (128000, "128000"), (2615.0, "2615"), ("adaptive", "adaptive"))
    for level, stored in levels:
        response = await put_settings(world.admin, provider="anthropic", reasoningLevel=level)
        assert response.status_code == 200, response.text
        assert response.json()["data"]["providers"][1]["reasoningLevel"] == stored


async def test_settings_of_a_provider_not_enabled_are_kept(world: World) -> None:
    response = await put_settings(world.admin, provider="azure", model="my-deployment")
    assert response.status_code == 200
    azure = response.json()["data"]["providers"][2]
    assert (azure["enabled"], azure["effectiveModel"]) == (False, "my-deployment")


@pytest.mark.parametrize(
    "body",
    [
        {"provider": "mistral", "model": "x"},
        {"model": "gpt-4o"},
        {"provider": "openai", "temperature": 2.5},
        {"provider": "openai", "temperature": -0.1},
        {"provider": "openai", "temperature": "warm"},
        {"provider": "openai", "temperature": False},
        {"provider": "openai", "reasoningLevel": "HIGH"},
        {"provider": "anthropic", "reasoningLevel": "2048"},
        {"provider": "openai", "model": ""},
        {"provider": "openai", "model": "m" * 201},
        {"provider": "openai", "model": "gpt\u00004o"},
        {"provider": "openai", "reasoningLevel": "adaptive"},
        {"provider": "openai", "reasoningLevel": "2048"},
        {"provider": "azure", "reasoningLevel": "extreme"},
        {"provider": "anthropic", "reasoningLevel": "high"},
        {"provider": "anthropic", "reasoningLevel": 1023},
        {"provider": "anthropic", "reasoningLevel": 2048.5},
        {"provider": "anthropic", "reasoningLevel": True},
        {"provider": "anthropic", "reasoningLevel": "128001"},
        {"provider": "anthropic", "reasoningLevel": "-2048"},
        {"provider": "openai", "apiKey": "sk-sneaky"},
    ],
)
async def test_invalid_settings_are_400(world: World, body: dict[str, Any]) -> None:
    response = await world.admin.client.put("/api/settings/llm", json=body)
    assert response.status_code == 400, response.text
    assert response.json()["error"]["code"] == "VALIDATION_ERROR"
    listed = (await world.admin.client.get("/api/settings/llm")).json()["data"]["providers"]
    assert all(p["updatedAt"] is None for p in listed)


# --- PUT /api/llm/default-provider ---------------------------------------------------------


async def test_user_sets_and_clears_their_default_provider(world: World) -> None:
    configure(world, **OPENAI_AND_ANTHROPIC)
    client = world.viewer.client
    response = await client.put("/api/llm/default-provider", json={"provider": "anthropic"})
    assert response.status_code == 200, response.text
    assert response.json()["data"]["defaultProvider"] == "anthropic"
    # Only the caller's default changed.
    other = (await world.contributor.client.get("/api/llm/providers")).json()["data"]
    assert other["defaultProvider"] is None
    response = await client.put("/api/llm/default-provider", json={"provider": None})
    assert response.json()["data"]["defaultProvider"] is None


async def test_default_provider_must_be_enabled(world: World) -> None:
    configure(world, openai_api_key="sk-test")
    response = await world.contributor.client.put(
        "/api/llm/default-provider", json={"provider": "azure"}
    )
    # A valid request the server's state refuses: a conflict, not a malformed body.
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "CONFLICT"
    assert "'azure' is not enabled" in response.json()["error"]["message"]
    for body in ({"provider": "bogus"}, {}, {"provider": "openai", "extra": 1}):
        response = await world.contributor.client.put("/api/llm/default-provider", json=body)
        assert response.status_code == 400, body


@pytest.mark.parametrize("provider", ["azure", "anthropic"])
async def test_a_provider_not_enabled_is_refused_alike_on_every_route(
    world: World, provider: str
) -> None:
    """Choosing a chat's provider, changing it, and choosing one's default: one rule."""
    configure(world, openai_api_key="sk-test")
    client = world.contributor.client
    ontology_id = str(await world.make_ontology(world.contributor))
    created = await client.post(
        "/api/data-agent/chats", json={"name": "x", "ontologyId": ontology_id}
    )
    chat_id = created.json()["data"]["id"]
    refusals = [
        await client.post(
            "/api/data-agent/chats",
            json={"name": "y", "ontologyId": ontology_id, "llmProvider": provider},
        ),
        await client.patch(f"/api/data-agent/chats/{chat_id}", json={"llmProvider": provider}),
        await client.put("/api/llm/default-provider", json={"provider": provider}),
    ]
    assert [r.status_code for r in refusals] == [409, 409, 409]
    errors = [r.json()["error"] for r in refusals]
    assert (
        errors[0]
        == errors[1]
        == errors[2]
        == {
            "code": "CONFLICT",
            "message": f"The provider '{provider}' is not enabled; choose one of: openai.",
        }
    )
    # Nothing changed: no second chat, the chat keeps its provider, no default set.
    listed = (await client.get("/api/data-agent/chats")).json()["data"]["items"]
    assert [(c["name"], c["llmProvider"]) for c in listed] == [("x", None)]
    me = (await client.get("/api/llm/providers")).json()["data"]
    assert me["defaultProvider"] is None
    # An enabled one is taken everywhere (openai_compatible is openai).
    for choice in ("openai", "openai_compatible"):
        patched = await client.patch(
            f"/api/data-agent/chats/{chat_id}", json={"llmProvider": choice}
        )
        assert patched.status_code == 200, patched.text


async def test_openai_compatible_is_the_openai_provider(world: World) -> None:
    configure(world, openai_base_url="http://127.0.0.1:9/v1", openai_model="llama3.1")
    data = (await world.viewer.client.get("/api/llm/providers")).json()["data"]
    assert [(p["id"], p["name"], p["model"]) for p in data["providers"]] == [
        ("openai", "OpenAI-compatible server", "llama3.1")
    ]
    response = await world.viewer.client.put(
        "/api/llm/default-provider", json={"provider": "openai_compatible"}
    )
    assert response.json()["data"]["defaultProvider"] == "openai"


# --- services.llm: resolution ----------------------------------------------------------------


async def test_no_provider_is_llm_unavailable_with_how_to_configure(world: World) -> None:
    with pytest.raises(DataAgentError) as caught:
        llm.require_provider(world.context)
    assert caught.value.code == ErrorCode.LLM_UNAVAILABLE and caught.value.status == 503
    assert "OPENAI_API_KEY" in caught.value.message
    assert "OPENAI_BASE_URL" in caught.value.message
    async with world.database.session() as session:
        with pytest.raises(DataAgentError) as caught:
            await llm.chat_client(world.context, session, world.contributor.id, None)
    assert caught.value.code == ErrorCode.LLM_UNAVAILABLE
    assert "ANTHROPIC_API_KEY" in caught.value.message


async def test_a_chat_naming_a_provider_not_enabled_is_refused(world: World) -> None:
    configure(world, openai_api_key="sk-test")
    async with world.database.session() as session:
        with pytest.raises(DataAgentError) as caught:
            await llm.chat_client(world.context, session, world.contributor.id, "anthropic")
    assert caught.value.code == ErrorCode.LLM_UNAVAILABLE
    assert "'anthropic'" in caught.value.message


async def test_resolution_order_chat_user_system_first(world: World) -> None:
    configure(
        world,
        **OPENAI_AND_ANTHROPIC,
        azure_openai_api_key="az",
        azure_openai_endpoint="https://x.openai.azure.com",
        llm_default_provider="azure",
    )
    seen: list[ModelInfo] = []

    def factory(info: ModelInfo) -> ScriptedChatModel:
        seen.append(info)
        return ScriptedChatModel(default=Reply(text="ok"))

    world.context.chat_model_factory = factory
    user_id = world.contributor.id

    async def provider(chat_provider: Any) -> str:
        async with world.database.session() as session:
            client = await llm.chat_client(world.context, session, user_id, chat_provider)
            return client.info.provider

    assert await provider(None) == "azure"  # the system default
    async with world.database.session() as session:
        await llm.set_default_provider(world.context, session, user_id, "anthropic")
    assert await provider(None) == "anthropic"  # the user's default
    assert await provider("openai") == "openai"  # the chat's own
    # A user default whose provider went away is passed over.
    configure(world, anthropic_api_key=None)
    assert await provider(None) == "azure"
    configure(world, llm_default_provider=None)
    assert await provider(None) == "openai"  # the first enabled
    assert [i.provider for i in seen] == ["azure", "anthropic", "openai", "azure", "openai"]


async def test_admin_settings_reach_the_model(world: World) -> None:
    configure(world, **OPENAI_AND_ANTHROPIC)
    await put_settings(world.admin, provider="anthropic", model="claude-x", temperature=0.1)
    await put_settings(
        world.admin, provider="openai", model="o3", temperature=0.4, reasoningLevel="low"
    )
    seen: list[ModelInfo] = []
    world.context.chat_model_factory = lambda info: seen.append(info) or ScriptedChatModel()
    async with world.database.session() as session:
        await llm.chat_client(world.context, session, world.admin.id, "anthropic")
        await llm.chat_client(world.context, session, world.admin.id, "openai")
    assert seen == [
        ModelInfo("anthropic", "claude-x", 0.1, structured_mode="tool"),
        # No temperature with a reasoning level.
        ModelInfo("openai", "o3", None, structured_mode="json_schema"),
    ]


async def test_scripted_factory_stands_in_when_nothing_is_configured(world: World) -> None:
    world.context.chat_model_factory = lambda info: ScriptedChatModel(default=Reply(text="hi"))
    llm.require_provider(world.context)
    async with world.database.session() as session:
        client = await llm.chat_client(world.context, session, world.viewer.id, None)
    assert client.info == ModelInfo("openai", "gpt-4o", None, structured_mode="json_schema")
    assert (await client.invoke([HumanMessage("hello")])).content == "hi"


async def test_chat_client_answers_through_an_openai_compatible_server(world: World) -> None:
    with FakeOpenAIServer(
        [Step(text="Forty-two.", prompt_tokens=20, completion_tokens=4)]
    ) as server:
        configure(world, openai_base_url=server.url, openai_model="qwen2.5")
        async with world.database.session() as session:
            client = await llm.chat_client(world.context, session, world.viewer.id, None)
        answer = await client.stream([HumanMessage("How many?")])
    assert answer.content == "Forty-two."
    assert client.usage.total == 24
    assert server.requests[0]["model"] == "qwen2.5"


# --- traces ------------------------------------------------------------------------------


async def _question(world: World, owner: Account) -> tuple[uuid.UUID, uuid.UUID]:
    """A chat of `owner` and its assistant message's id (asked with a provider configured)."""
    configure(world, openai_api_key="sk-test")
    ontology_id = await world.make_ontology(owner)
    chat = await owner.client.post(
        "/api/data-agent/chats", json={"name": "Sales", "ontologyId": str(ontology_id)}
    )
    chat_id = chat.json()["data"]["id"]
    sent = await owner.client.post(
        f"/api/data-agent/chats/{chat_id}/messages", json={"content": "How many customers?"}
    )
    return uuid.UUID(chat_id), uuid.UUID(sent.json()["data"]["assistantMessage"]["id"])


async def test_traces_are_saved_and_listed_in_call_order(world: World) -> None:
    owner = world.contributor
    chat_id, message_id = await _question(world, owner)
    script = [
        Step(tool_calls=[tool("query_database", "call_1", sql="SELECT 1")], prompt_tokens=50),
        Step(text="One customer.", prompt_tokens=70, completion_tokens=3),
    ]
    with FakeOpenAIServer(script) as server:
        configure(world, openai_base_url=server.url)
        async with world.database.session() as session:
            client = await llm.chat_client(world.context, session, owner.id, None)
        await client.stream([HumanMessage("How many customers?")], purpose="tools")
        await client.stream([HumanMessage("And now?")], purpose="answer")
    async with world.database.session() as session:
        await llm.save_traces(
            session, owner.id, list(reversed(client.calls)), run_id=None, message_id=message_id
        )
        await session.commit()
    async with world.database.session() as session:
        traces = await llm.list_traces(session, owner.id, chat_id, message_id)
    assert [(t.call_index, t.purpose) for t in traces] == [(0, "tools"), (1, "answer")]
    first, second = traces
    assert (first.provider, first.model) == ("openai", "gpt-4o")
    assert first.tool_calls == [
        {"id": "call_1", "name": "query_database", "args": {"sql": "SELECT 1"}}
    ]
    assert first.prompt_messages == [{"role": "human", "content": "How many customers?"}]
    assert (second.response_content, second.prompt_tokens, second.completion_tokens) == (
        "One customer.",
        70,
        3,
    )
    assert second.total_tokens == 73 and second.error is None
    assert second.completed_at >= second.started_at


async def test_traces_of_another_users_message_are_not_found(world: World) -> None:
    chat_id, message_id = await _question(world, world.contributor)
    other_chat, other_message = await _question(world, world.other)
    async with world.database.session() as session:
        assert await llm.list_traces(session, world.contributor.id, chat_id, message_id) == []
        for owner, chat, message in (
            (world.other.id, chat_id, message_id),  # someone else's chat
            (world.contributor.id, chat_id, other_message),  # a message of another chat
            (world.contributor.id, other_chat, other_message),  # that chat is not theirs
            (world.contributor.id, chat_id, uuid.uuid4()),  # no such message
            (world.contributor.id, uuid.uuid4(), message_id),  # no such chat
        ):
            with pytest.raises(DataAgentError) as caught:
                await llm.list_traces(session, owner, chat, message)
            assert caught.value.code == ErrorCode.NOT_FOUND


async def test_default_provider_is_kept_on_the_user(world: World) -> None:
    configure(world, openai_api_key="sk-test")
    await world.viewer.client.put("/api/llm/default-provider", json={"provider": "openai"})
    async with world.database.session() as session:
        user = await session.get(User, world.viewer.id)
        assert user is not None and user.default_llm_provider == "openai"
