"""The long-lived objects every use case may need, made once per process."""

from __future__ import annotations

import functools
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field

from langchain_core.language_models.chat_models import BaseChatModel

from dataagent.auth.login_limits import LoginLimiter
from dataagent.config import Settings
from dataagent.llm.calls import ModelInfo
from dataagent.llm.embedding_factory import provider_from_settings
from dataagent.llm.embeddings import EmbeddingProvider
from dataagent.llm.providers import close_chat_model
from dataagent.ontology.retrieval import DatasetIndex
from dataagent.sandbox import Sandbox, sandbox_from_settings
from dataagent.services.builds import BuildJobs
from dataagent.services.index_cache import IndexCache
from dataagent.sources.credentials import CredentialCipher
from dataagent.sources.pool import QueryPool
from dataagent.store.database import Database


@dataclass
class AppContext:
    """Settings, the app database, the credential cipher, the query pool, the sandbox, ...

    The API makes one per app (on `app.state.context`); the command line and the demo set-up
    make their own. `aclose` releases what it holds.
    """

    settings: Settings
    database: Database
    cipher: CredentialCipher
    secret_key: str
    query_pool: QueryPool
    login_limiter: LoginLimiter
    # Refuses executions (not start-up) when bubblewrap is missing and unsafe mode is off.
    sandbox: Sandbox
    # Durable runs, put here by the run system (`runs.system.RunSystem.install`): a context
    # without one cannot build ontologies.
    builds: BuildJobs | None = None
    search_indexes: IndexCache[DatasetIndex] = field(default_factory=IndexCache)
    # The model boundary's one seam: when set, every chat model is made by this function
    # (tests and benchmarks put a scripted model here) instead of from the provider settings.
    chat_model_factory: Callable[[ModelInfo], BaseChatModel] | None = None
    # Chat models built from the provider settings, shared by every answer (services.llm).
    chat_models: dict[Hashable, BaseChatModel] = field(default_factory=dict)

    @classmethod
    def from_settings(cls, settings: Settings) -> AppContext:
        """A context for these settings (the data directory is created if missing)."""
        settings.data_dir.mkdir(parents=True, exist_ok=True)
        secret_key = settings.resolved_secret_key()
        return cls(
            settings=settings,
            database=Database(settings.resolved_database_url),
            cipher=CredentialCipher(secret_key),
            secret_key=secret_key,
            query_pool=QueryPool(settings.query_max_concurrency, settings.query_max_per_user),
            login_limiter=LoginLimiter.from_settings(settings),
            sandbox=sandbox_from_settings(settings),
        )

    @functools.cached_property
    def embeddings(self) -> EmbeddingProvider:
        """The embedding provider, loaded on first use (the local model takes about a second)."""
        return provider_from_settings(self.settings)

    async def aclose(self) -> None:
        """Stop the builds still running, the sandbox, the query pool and the app database."""
        if self.builds is not None:
            await self.builds.cancel_all()
        for model in self.chat_models.values():
            await close_chat_model(model)
        self.chat_models.clear()
        await self.sandbox.aclose()
        self.query_pool.shutdown()
        await self.database.dispose()
