"""Settings: the one object every room is given (env vars `DATAAGENT_*` and `.env`)."""

from __future__ import annotations

import datetime as dt
import secrets
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Literal

from pydantic import AliasChoices, Field, IPvAnyNetwork, SecretStr, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

SECRET_KEY_FILE = "secret_key"
# `web/dist` of the source checkout this package runs from: where `make web` builds the page.
DEFAULT_WEB_DIR = Path(__file__).resolve().parents[2] / "web" / "dist"


def _env(name: str) -> AliasChoices:
    """`DATAAGENT_NAME`, or the seeds' and SDKs' own `NAME` (OPENAI_API_KEY, ...)."""
    return AliasChoices(f"DATAAGENT_{name.upper()}", name.upper(), name)


class Settings(BaseSettings):
    """Every setting of the product. Each field is documented in docs/configuration.md."""

    model_config = SettingsConfigDict(
        env_prefix="DATAAGENT_",
        env_file=".env",
        env_file_encoding="utf-8",
        extra="ignore",
        populate_by_name=True,
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
    web_dir: Path = Field(
        DEFAULT_WEB_DIR, description="The built web page (`index.html`, `assets/`) served at `/`."
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
    trusted_proxies: Annotated[list[IPvAnyNetwork], NoDecode] = Field(
        default_factory=list,
        description=(
            "Comma-separated IPs/CIDRs of reverse proxies whose X-Forwarded-For names the "
            "client address (the sign-in limits count per client address)."
        ),
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
    sandbox_max_per_user: int = Field(
        1, ge=1, description="One person's executions run at once; more wait behind others'."
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

    # --- chat models (the seeds' variable names work too: OPENAI_API_KEY, ...) -----------
    openai_api_key: SecretStr | None = Field(
        None, validation_alias=_env("openai_api_key"), description="API key for OpenAI."
    )
    openai_base_url: str | None = Field(
        None,
        validation_alias=_env("openai_base_url"),
        description="Base URL of an OpenAI-compatible server (Ollama, vLLM, ...).",
    )
    openai_model: str = Field(
        "gpt-4o", validation_alias=_env("openai_model"), description="OpenAI chat model."
    )
    anthropic_api_key: SecretStr | None = Field(
        None, validation_alias=_env("anthropic_api_key"), description="API key for Anthropic."
    )
    anthropic_base_url: str | None = Field(
        None, validation_alias=_env("anthropic_base_url"), description="Anthropic API base URL."
    )
    anthropic_model: str = Field(
        "claude-sonnet-4-5",
        validation_alias=_env("anthropic_model"),
        description="Anthropic chat model.",
    )
    azure_openai_api_key: SecretStr | None = Field(
        None, validation_alias=_env("azure_openai_api_key"), description="Azure OpenAI API key."
    )
    azure_openai_endpoint: str | None = Field(
        None, validation_alias=_env("azure_openai_endpoint"), description="Azure OpenAI endpoint."
    )
    azure_openai_deployment: str | None = Field(
        None,
        validation_alias=_env("azure_openai_deployment"),
        description="Azure OpenAI deployment (the model).",
    )
    azure_openai_api_version: str = Field(
        "2024-10-21",
        validation_alias=_env("azure_openai_api_version"),
        description="Azure OpenAI API version.",
    )
    llm_default_provider: Literal["openai", "anthropic", "azure"] | None = Field(
        None,
        validation_alias=_env("llm_default_provider"),
        description="Provider used when a chat and its user name none; default: the first set.",
    )
    llm_connect_timeout_s: float = Field(
        10.0, gt=0, description="Time allowed to connect to a model provider."
    )
    llm_read_timeout_s: float = Field(
        120.0, gt=0, description="Time allowed between two reads from a model provider."
    )
    llm_max_retries: int = Field(
        2, ge=0, le=10, description="Retries of a model call on 429/5xx before anything streamed."
    )
    llm_trace_chars: int = Field(
        100_000, ge=1000, description="Characters of new prompt text one LLM trace keeps."
    )

    # --- the agent -------------------------------------------------------------------
    # `vocabulary.AgentMode`, spelled out: config and vocabulary are sibling rooms.
    agent_default_mode: Literal["react", "pipeline", "offline"] = Field(
        "pipeline",
        description="How a new chat answers when its creator names no mode: `pipeline` (seed "
        "001's six phases), `react` (the tool loop) or `offline` (no model).",
    )
    offline_fast_path: bool = Field(
        True,
        description="In pipeline mode, answer with the offline planner (no model call) when "
        "its confidence is high; the model pipeline runs otherwise.",
    )
    reference_date: dt.date | None = Field(
        None,
        description="The date relative time windows are read against (`YYYY-MM-DD`); unset: "
        "today's UTC date.",
    )
    agent_max_tool_rounds: int = Field(
        15,
        ge=1,
        le=50,
        validation_alias=_env("agent_max_tool_rounds"),
        description="Tool rounds one answer may take (chat answers and the stateless chat); "
        "the agent loop's graph takes two steps a round.",
    )
    agent_top_datasets: int = Field(
        10, ge=1, le=50, description="Datasets retrieved into the agent's prompt."
    )
    agent_history_messages: int = Field(
        10, ge=2, le=100, description="Recent messages quoted in the prompt; older are summarised."
    )
    agent_tool_result_chars: int = Field(
        2000, ge=100, description="Characters of a tool result kept in events and metadata."
    )
    agent_result_chars_per_call: int = Field(
        20_000, ge=500, description="Characters of one tool result the model receives."
    )
    agent_result_chars_per_turn: int = Field(
        60_000, ge=500, description="Characters of one turn's tool results the model receives."
    )
    agent_result_chars_per_answer: int = Field(
        200_000, ge=500, description="Characters of one answer's tool results the model receives."
    )
    agent_max_tool_calls_per_turn: int = Field(
        10, ge=1, le=100, description="Tool calls of one model turn that run; the rest do not."
    )
    agent_max_parallel_tool_calls: int = Field(
        4, ge=1, le=32, description="Tool calls of one answer running at once."
    )
    agent_tool_time_budget_s: float = Field(
        300.0, gt=0, description="Seconds of tool time one answer may spend in all."
    )
    agent_history_chars: int = Field(
        40_000, ge=1000, description="Characters of earlier messages quoted in the prompt."
    )
    agent_history_message_chars: int = Field(
        4000, ge=200, description="Characters quoted of one earlier message (and the summary)."
    )

    # --- charts the agent draws ------------------------------------------------------
    chart_max_argument_chars: int = Field(
        1_000_000, ge=1000, description="Characters of a create_chart call's arguments (JSON)."
    )
    chart_max_rows: int = Field(5000, ge=1, le=5000, description="Rows of one chart.")
    chart_max_columns: int = Field(20, ge=2, le=200, description="Columns of one chart's rows.")
    chart_max_text_chars: int = Field(
        200, ge=10, description="Characters of one text value or column name of a chart."
    )
    chart_max_spec_chars: int = Field(
        2_000_000, ge=10_000, description="Characters of a chart's Vega-Lite spec (JSON)."
    )
    chart_retention_hours: float = Field(
        24.0, gt=0, description="Hours a chart of no message (a stateless chat's) is kept."
    )

    # --- runs --------------------------------------------------------------------------
    run_max_concurrency: int = Field(
        8, ge=1, description="Agent runs executing at once in this process; more wait queued."
    )
    run_lease_s: float = Field(
        30.0, gt=0, description="A run's lease; a run not renewed for this long is interrupted."
    )
    run_heartbeat_s: float = Field(
        15.0, gt=0, description="Seconds between SSE heartbeat comments on a quiet stream."
    )
    agent_chat_max_per_user: int = Field(
        1,
        ge=1,
        description="Stateless chats (POST /api/agent/chat) one person streams at once here.",
    )
    answer_claim_timeout_s: float = Field(
        600.0,
        gt=0,
        description="Seconds an answer placeholder may wait for its stream before it fails.",
    )

    @field_validator("cors_origins", "file_roots", "trusted_proxies", mode="before")
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
