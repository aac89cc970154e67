"""The embedding provider the settings choose (`DATAAGENT_EMBEDDING_PROVIDER`: local | openai).

Its own module, above the interface (`embeddings.py`) and the implementations that import
it, so that no two of them import each other.
"""

from __future__ import annotations

from dataagent.config import Settings
from dataagent.errors import DataAgentError, ErrorCode
from dataagent.llm.embeddings import EmbeddingProvider
from dataagent.llm.minilm import LocalMiniLMProvider
from dataagent.llm.openai_embeddings import OpenAIEmbeddingProvider


def provider_from_settings(settings: Settings) -> EmbeddingProvider:
    """The embedding provider the settings ask for (`embedding_provider`: local | openai)."""
    if settings.embedding_provider == "local":
        return LocalMiniLMProvider()
    api_key = settings.openai_api_key.get_secret_value() if settings.openai_api_key else None
    if not api_key and not settings.openai_base_url:
        raise DataAgentError(
            ErrorCode.LLM_UNAVAILABLE,
            "The openai embedding provider needs DATAAGENT_OPENAI_API_KEY "
            "(or DATAAGENT_OPENAI_BASE_URL for a compatible server).",
        )
    return OpenAIEmbeddingProvider(
        model=settings.embedding_model, api_key=api_key, base_url=settings.openai_base_url
    )
