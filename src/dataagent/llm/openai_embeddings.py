"""Embeddings from OpenAI or an OpenAI-compatible server (Ollama, vLLM, …) over HTTP."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import httpx
import numpy as np

from dataagent.errors import DataAgentError, ErrorCode
from dataagent.llm.embeddings import Matrix, l2_normalise

OPENAI_BASE_URL = "https://api.openai.com/v1"
# Published output sizes; any other model's size is learnt from its first response.
KNOWN_OPENAI_DIMENSIONS = {
    "text-embedding-3-small": 1536,
    "text-embedding-3-large": 3072,
    "text-embedding-ada-002": 1536,
}


class OpenAIEmbeddingProvider:
    """POST {base_url}/embeddings: OpenAI itself, or Ollama, vLLM and other compatible servers."""

    def __init__(
        self,
        model: str = "text-embedding-3-small",
        api_key: str | None = None,
        base_url: str | None = None,
        *,
        timeout_s: float = 30.0,
        batch_size: int = 128,
        max_chars: int = 16_000,
        transport: httpx.BaseTransport | None = None,
        async_transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.model = model
        self.base_url = (base_url or OPENAI_BASE_URL).rstrip("/")
        self._api_key = api_key
        self.timeout_s = timeout_s
        self.batch_size = batch_size
        # Servers refuse inputs past their context (8,192 tokens for OpenAI); cut well before.
        self.max_chars = max_chars
        self._transport = transport
        self._async_transport = async_transport
        self._dimension: int | None = KNOWN_OPENAI_DIMENSIONS.get(model)

    @property
    def name(self) -> str:
        """`openai/<model>`."""
        return f"openai/{self.model}"

    @property
    def dimension(self) -> int:
        """The model's vector size (asked of the server once when the model is not known)."""
        if self._dimension is None:
            self.embed_query("dimension")
        assert self._dimension is not None
        return self._dimension

    def _client_options(self) -> dict[str, Any]:
        headers = {"Authorization": f"Bearer {self._api_key}"} if self._api_key else {}
        return {"base_url": self.base_url, "headers": headers, "timeout": self.timeout_s}

    def _payload(self, batch: Sequence[str]) -> dict[str, Any]:
        # OpenAI rejects empty strings; a space embeds as "nothing" on every server.
        return {"model": self.model, "input": [t[: self.max_chars] or " " for t in batch]}

    def _batches(self, texts: Sequence[str]) -> list[Sequence[str]]:
        return [texts[i : i + self.batch_size] for i in range(0, len(texts), self.batch_size)]

    def _rows(self, response: httpx.Response, expected: int) -> list[list[float]]:
        if response.status_code >= 400:
            raise _http_error(response)
        try:
            data = sorted(response.json()["data"], key=lambda item: item["index"])
            rows = [item["embedding"] for item in data]
        except (ValueError, KeyError, TypeError) as exc:
            raise DataAgentError(
                ErrorCode.LLM_ERROR, "The embedding server returned an unreadable response."
            ) from exc
        if len(rows) != expected:
            raise DataAgentError(
                ErrorCode.LLM_ERROR,
                f"The embedding server returned {len(rows)} vectors for {expected} texts.",
            )
        return rows

    def _finish(self, rows: list[list[float]], count: int) -> Matrix:
        if not rows:
            return np.zeros((count, self._dimension or 0), dtype=np.float32)
        matrix = l2_normalise(np.asarray(rows, dtype=np.float32))
        self._dimension = int(matrix.shape[1])
        return matrix

    def embed_documents(self, texts: Sequence[str]) -> Matrix:
        """One normalised row per text, in order (batched requests)."""
        rows: list[list[float]] = []
        try:
            with httpx.Client(transport=self._transport, **self._client_options()) as client:
                for batch in self._batches(texts):
                    response = client.post("embeddings", json=self._payload(batch))
                    rows += self._rows(response, len(batch))
        except httpx.HTTPError as exc:
            raise _transport_error(exc) from exc
        return self._finish(rows, len(texts))

    def embed_query(self, text: str) -> Matrix:
        """One normalised vector."""
        return self.embed_documents([text])[0]

    async def aembed_documents(self, texts: Sequence[str]) -> Matrix:
        """`embed_documents` with an async HTTP client."""
        rows: list[list[float]] = []
        options = self._client_options()
        try:
            async with httpx.AsyncClient(transport=self._async_transport, **options) as client:
                for batch in self._batches(texts):
                    response = await client.post("embeddings", json=self._payload(batch))
                    rows += self._rows(response, len(batch))
        except httpx.HTTPError as exc:
            raise _transport_error(exc) from exc
        return self._finish(rows, len(texts))

    async def aembed_query(self, text: str) -> Matrix:
        """`embed_query` with an async HTTP client."""
        return (await self.aembed_documents([text]))[0]


def _http_error(response: httpx.Response) -> DataAgentError:
    # The body can echo part of the API key back, so only its error code is reported.
    reason = ""
    try:
        error = response.json().get("error") or {}
        code = error.get("code") or error.get("type") if isinstance(error, dict) else None
        reason = f" ({code})" if isinstance(code, str) else ""
    except (ValueError, AttributeError):
        pass
    if response.status_code in (401, 403):
        return DataAgentError(
            ErrorCode.LLM_UNAVAILABLE,
            f"The embedding server refused the API key (HTTP {response.status_code}){reason}.",
        )
    return DataAgentError(
        ErrorCode.LLM_ERROR,
        f"The embedding server answered HTTP {response.status_code}{reason}.",
    )


def _transport_error(exc: httpx.HTTPError) -> DataAgentError:
    # httpx messages name the host; users and models must not see it.
    if isinstance(exc, httpx.TimeoutException):
        return DataAgentError(ErrorCode.LLM_ERROR, "The embedding server did not answer in time.")
    return DataAgentError(
        ErrorCode.LLM_ERROR, f"The embedding server could not be reached ({type(exc).__name__})."
    )
