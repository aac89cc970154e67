"""Settings: the one object every room is given (env vars `DATAAGENT_*` and `.env`)."""

from __future__ import annotations

import secrets
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

SECRET_KEY_FILE = "secret_key"


class Settings(BaseSettings):
    """Every setting of the product. Each field is documented in docs/configuration.md."""

    model_config = SettingsConfigDict(
        env_prefix="DATAAGENT_",
        env_file=".env",
        env_file_encoding="utf-8",
        extra="ignore",
    )

    # --- where things live -------------------------------------------------
    data_dir: Path = Field(
        Path("./data"), description="Directory for the app database, uploads and keys."
    )
    database_url: str | None = Field(
        None, description="App database URL. Default: a SQLite file in the data directory."
    )
    secret_key: SecretStr | None = Field(
        None, description="Signs tokens and derives the credential key. Generated if unset."
    )

    # --- server --------------------------------------------------------------
    host: str = Field("127.0.0.1", description="Address the server listens on.")
    port: int = Field(8000, ge=1, le=65535, description="Port the server listens on.")
    cors_origins: Annotated[list[str], NoDecode] = Field(
        default_factory=list, description="Comma-separated origins allowed by CORS."
    )
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = Field(
        "INFO", description="Log level."
    )
    max_body_bytes: int = Field(
        1_048_576, ge=1024, description="Largest JSON request body accepted, in bytes."
    )

    # --- auth ----------------------------------------------------------------
    token_ttl_minutes: int = Field(720, ge=1, description="Lifetime of a login token.")
    cookie_secure: bool = Field(False, description="Mark the session cookie Secure (HTTPS only).")
    admin_email: str = Field("admin@example.com", description="Admin created by `dataagent demo`.")
    admin_password: SecretStr | None = Field(
        None, description="Password for the demo admin; generated and printed once if unset."
    )
    login_max_failures: int = Field(
        5, ge=1, description="Failed sign-ins one account may have per window before a 429."
    )
    login_max_attempts_per_address: int = Field(
        30, ge=1, description="Sign-in attempts one client address may make per window."
    )
    login_window_s: int = Field(
        300, ge=1, description="The window, in seconds, the sign-in limits count over."
    )

    # --- the SQL executor ------------------------------------------------------
    query_timeout_s: float = Field(30.0, gt=0, description="Time limit of one SQL query.")
    query_max_rows: int = Field(500, ge=1, description="Rows returned by one query at most.")
    query_max_bytes: int = Field(
        5_000_000, ge=1024, description="Bytes of result returned by one query at most."
    )
    query_max_cell_chars: int = Field(
        2000, ge=16, description="Characters kept of one result cell; longer cells are cut."
    )
    query_memory_mb: int = Field(
        512, ge=64, description="Memory an embedded engine (DuckDB, SQLite) may use for queries."
    )
    query_max_concurrency: int = Field(
        16, ge=1, description="Queries run at once against users' databases (the query pool)."
    )
    query_max_per_user: int = Field(
        3, ge=1, description="Queries one user may run at once; more wait, then get a 429."
    )
    file_roots: Annotated[list[Path], NoDecode] = Field(
        default_factory=list,
        description="Comma-separated folders SQLite/DuckDB connections may point into.",
    )
    allow_privileged_accounts: bool = Field(
        False, description="Let connections use superuser / FILE / SUPER accounts (warns)."
    )
    upload_max_bytes: int = Field(
        100 * 1024 * 1024, ge=1024, description="Largest file accepted for upload, in bytes."
    )

    # --- the Python sandbox ------------------------------------------------------
    sandbox_url: str | None = Field(
        None, description="URL of a remote sandbox service; unset runs the local pool."
    )
    sandbox_pool_size: int = Field(2, ge=0, description="Warm sandboxed interpreters kept ready.")
    sandbox_max_concurrency: int = Field(
        2, ge=1, description="Executions run at once; more wait in a queue."
    )
    sandbox_timeout_s: float = Field(30.0, gt=0, description="Default wall time of one execution.")
    sandbox_memory_mb: int = Field(512, ge=64, description="Memory limit of one execution.")
    sandbox_allow_unsafe: bool = Field(
        False, description="Run without bubblewrap when it is missing (logs a warning every run)."
    )

    # --- embeddings ------------------------------------------------------------------
    embedding_provider: Literal["local", "openai"] = Field(
        "local", description="Embedding provider: the bundled MiniLM, or an OpenAI-compatible API."
    )
    embedding_model: str = Field(
        "text-embedding-3-small", description="Model name used by the openai embedding provider."
    )
    openai_api_key: SecretStr | None = Field(None, description="API key for OpenAI providers.")
    openai_base_url: str | None = Field(
        None, description="Base URL of an OpenAI-compatible server (Ollama, vLLM, ...)."
    )

    @field_validator("cors_origins", "file_roots", mode="before")
    @classmethod
    def _split_list(cls, value: object) -> object:
        if isinstance(value, str):
            return [item.strip() for item in value.split(",") if item.strip()]
        return value

    @property
    def resolved_database_url(self) -> str:
        """The app database URL, defaulting to a SQLite file in the data directory."""
        if self.database_url:
            return self.database_url
        return f"sqlite+aiosqlite:///{(self.data_dir / 'dataagent.db').resolve()}"

    def resolved_secret_key(self) -> str:
        """The secret key; generated once and stored in the data directory when unset."""
        if self.secret_key is not None:
            return self.secret_key.get_secret_value()
        path = self.data_dir / SECRET_KEY_FILE
        if path.exists():
            return path.read_text().strip()
        self.data_dir.mkdir(parents=True, exist_ok=True)
        key = secrets.token_urlsafe(48)
        path.touch(mode=0o600)
        path.write_text(key)
        return key


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process-wide settings (tests build their own Settings instead)."""
    return Settings()
