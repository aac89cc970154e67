"""The OpenAI(-compatible) embedding provider, against an in-process fake HTTP transport."""

from __future__ import annotations

import json
from collections.abc import Callable

import httpx
import numpy as np
import pytest

from dataagent.config import Settings
from dataagent.errors import DataAgentError, ErrorCode
from dataagent.llm.embedding_factory import provider_from_settings
from dataagent.llm.embeddings import EmbeddingProvider
from dataagent.llm.minilm import LocalMiniLMProvider
from dataagent.llm.openai_embeddings import OpenAIEmbeddingProvider

Handler = Callable[[httpx.Request], httpx.Response]


def fake_server(requests: list[httpx.Request], dimension: int = 3) -> Handler:
    """An /embeddings endpoint: text i of a batch embeds as [len(text), i + 1, 0, ...]."""

    def handle(request: httpx.Request) -> httpx.Response:
        requests.append(request)
        body = json.loads(request.content)
        inputs = body["input"]
        data = [
            {
                "object": "embedding",
                "index": i,
                "embedding": [len(t), i + 1] + [0] * (dimension - 2),
            }
            for i, t in enumerate(inputs)
        ]
        # Servers may return items in any order; `index` says which input each is.
        return httpx.Response(
            200, json={"object": "list", "data": data[::-1], "model": body["model"]}
        )

    return handle


def provider(handler: Handler, **kwargs: object) -> OpenAIEmbeddingProvider:
    transport = httpx.MockTransport(handler)
    options: dict = {"api_key": "sk-test-secret", **kwargs}
    return OpenAIEmbeddingProvider(transport=transport, async_transport=transport, **options)


def test_posts_model_and_inputs_and_normalises() -> None:
    requests: list[httpx.Request] = []
    p = provider(fake_server(requests), model="text-embedding-3-small")
    vectors = p.embed_documents(["abc", "hello"])
    (request,) = requests
    assert request.method == "POST"
    assert str(request.url) == "https://api.openai.com/v1/embeddings"
    assert request.headers["authorization"] == "Bearer sk-test-secret"
    assert json.loads(request.content) == {
        "model": "text-embedding-3-small",
        "input": ["abc", "hello"],
    }
    expected = np.array([[3, 1, 0], [5, 2, 0]], dtype=np.float32)
    expected /= np.linalg.norm(expected, axis=1, keepdims=True)
    np.testing.assert_allclose(vectors, expected, atol=1e-6)
    assert vectors.dtype == np.float32


def test_batches_keep_order() -> None:
    requests: list[httpx.Request] = []
    p = provider(fake_server(requests), batch_size=2)
    texts = ["a", "bb", "ccc", "dddd", "eeeee"]
    vectors = p.embed_documents(texts)
    assert [len(json.loads(r.content)["input"]) for r in requests] == [2, 2, 1]
    # Row i was made from texts[i]: its first component is proportional to len(text).
    firsts = vectors[:, 0] / np.linalg.norm(vectors, axis=1)
    lengths = np.array([len(t) for t in texts], dtype=np.float32)
    seconds = np.array([1, 2, 1, 2, 1], dtype=np.float32)
    np.testing.assert_allclose(firsts, lengths / np.hypot(lengths, seconds), atol=1e-6)


def test_compatible_server_without_key_and_with_base_url() -> None:
    requests: list[httpx.Request] = []
    transport = httpx.MockTransport(fake_server(requests, dimension=4))
    p = OpenAIEmbeddingProvider(
        model="nomic-embed-text", base_url="http://ollama.local:11434/v1/", transport=transport
    )
    assert p.name == "openai/nomic-embed-text"
    assert p.dimension == 4  # unknown model: learnt from one call
    assert str(requests[0].url) == "http://ollama.local:11434/v1/embeddings"
    assert "authorization" not in requests[0].headers
    assert p.embed_query("x").shape == (4,)


def test_known_model_dimension_needs_no_call() -> None:
    requests: list[httpx.Request] = []
    assert provider(fake_server(requests), model="text-embedding-3-large").dimension == 3072
    assert requests == []


def test_empty_and_overlong_inputs_are_made_acceptable() -> None:
    requests: list[httpx.Request] = []
    provider(fake_server(requests), max_chars=10).embed_documents(["", "x" * 50])
    assert json.loads(requests[0].content)["input"] == [" ", "x" * 10]


def test_no_texts_makes_no_request() -> None:
    requests: list[httpx.Request] = []
    assert provider(fake_server(requests), model="text-embedding-3-small").embed_documents(
        []
    ).shape == (0, 1536)
    assert requests == []


async def test_async_variants() -> None:
    requests: list[httpx.Request] = []
    p = provider(fake_server(requests))
    np.testing.assert_allclose(
        await p.aembed_documents(["abc", "hello"]), p.embed_documents(["abc", "hello"])
    )
    np.testing.assert_allclose(await p.aembed_query("abc"), p.embed_query("abc"))


def test_rejected_key_is_unavailable_and_never_echoed() -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        error = {"message": "Incorrect API key provided: sk-test-secret", "code": "invalid_api_key"}
        return httpx.Response(401, json={"error": error})

    with pytest.raises(DataAgentError) as info:
        provider(refuse).embed_query("x")
    assert info.value.code is ErrorCode.LLM_UNAVAILABLE
    assert "invalid_api_key" in info.value.message
    assert "sk-test" not in info.value.message


@pytest.mark.parametrize(
    ("response", "fragment"),
    [
        (httpx.Response(500, text="upstream exploded"), "HTTP 500"),
        (
            httpx.Response(400, json={"error": {"code": "context_length_exceeded"}}),
            "context_length",
        ),
        (httpx.Response(200, text="not json"), "unreadable"),
        (httpx.Response(200, json={"data": []}), "0 vectors for 1 texts"),
    ],
)
def test_server_failures_are_llm_errors(response: httpx.Response, fragment: str) -> None:
    with pytest.raises(DataAgentError) as info:
        provider(lambda request: response).embed_query("x")
    assert info.value.code is ErrorCode.LLM_ERROR
    assert fragment in info.value.message


@pytest.mark.parametrize(
    ("exc", "fragment"),
    [
        (httpx.ConnectError("connection refused to secret-host.internal"), "could not be reached"),
        (httpx.ReadTimeout("timed out talking to secret-host.internal"), "in time"),
    ],
)
async def test_transport_failures_hide_the_host(exc: httpx.HTTPError, fragment: str) -> None:
    def fail(request: httpx.Request) -> httpx.Response:
        raise exc

    p = provider(fail)
    with pytest.raises(DataAgentError) as info:
        p.embed_query("x")
    with pytest.raises(DataAgentError) as async_info:
        await p.aembed_query("x")
    for error in (info.value, async_info.value):
        assert error.code is ErrorCode.LLM_ERROR
        assert fragment in error.message
        assert "secret-host" not in error.message


def test_provider_from_settings() -> None:
    local = provider_from_settings(Settings(_env_file=None, embedding_provider="local"))
    assert isinstance(local, LocalMiniLMProvider)

    remote = provider_from_settings(
        Settings(
            _env_file=None,
            embedding_provider="openai",
            embedding_model="text-embedding-3-large",
            openai_api_key="sk-x",
        )
    )
    assert isinstance(remote, OpenAIEmbeddingProvider)
    assert isinstance(remote, EmbeddingProvider)
    assert (remote.model, remote.base_url) == (
        "text-embedding-3-large",
        "https://api.openai.com/v1",
    )

    compatible = provider_from_settings(
        Settings(
            _env_file=None,
            embedding_provider="openai",
            embedding_model="nomic-embed-text",
            openai_base_url="http://localhost:11434/v1",
        )
    )
    assert isinstance(compatible, OpenAIEmbeddingProvider)
    assert compatible.base_url == "http://localhost:11434/v1"


def test_openai_without_key_or_server_is_unavailable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DATAAGENT_OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("DATAAGENT_OPENAI_BASE_URL", raising=False)
    with pytest.raises(DataAgentError) as info:
        provider_from_settings(Settings(_env_file=None, embedding_provider="openai"))
    assert info.value.code is ErrorCode.LLM_UNAVAILABLE
