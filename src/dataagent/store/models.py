"""Tables of the app database. Schemas for the API live in `dataagent.api.schemas`."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from sqlalchemy import (
    Boolean,
    CheckConstraint,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Text,
    UniqueConstraint,
    Uuid,
    text,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

from dataagent.store.types import JSONDocument, UTCDateTime, utcnow
from dataagent.vocabulary import (
    AgentMode,
    ConnectionKind,
    LlmProvider,
    MessageRole,
    MessageStatus,
    OntologyStatus,
    PreferenceSource,
    QueryMode,
    QueryStatus,
    Role,
    RunKind,
    RunStatus,
)

NAMING = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    """Declarative base with a stable constraint naming convention (for migrations)."""

    metadata = MetaData(naming_convention=NAMING)


def _uuid_pk() -> Mapped[uuid.UUID]:
    return mapped_column(Uuid, primary_key=True, default=uuid.uuid4)


class User(Base):
    """A local account; the role decides the permissions."""

    __tablename__ = "users"

    id: Mapped[uuid.UUID] = _uuid_pk()
    email: Mapped[str] = mapped_column(String(320), unique=True)
    password_hash: Mapped[str] = mapped_column(String(255))
    role: Mapped[Role] = mapped_column(String(20), default="viewer")
    is_active: Mapped[bool] = mapped_column(default=True)
    # Tokens carry the version they were issued at; bumping it signs the user out everywhere.
    token_version: Mapped[int] = mapped_column(Integer, default=0, server_default=text("0"))
    # The provider new chats start with (seed 001's user default); None: the system default.
    default_llm_provider: Mapped[LlmProvider | None] = mapped_column(String(50))
    # The ontology a stateless chat asks about when the request names none; None: their only
    # ready ontology, if they have one. (`use_alter`: ontologies refer to users too.)
    default_ontology_id: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("ontologies.id", ondelete="SET NULL", use_alter=True)
    )
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow, onupdate=utcnow)


class Ontology(Base):
    """A knowledge graph of one semantic model; chats ask questions against it."""

    __tablename__ = "ontologies"

    id: Mapped[uuid.UUID] = _uuid_pk()
    name: Mapped[str] = mapped_column(String(255))
    description: Mapped[str | None] = mapped_column(Text)
    owner_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    status: Mapped[OntologyStatus] = mapped_column(String(20), default="building")
    error: Mapped[str | None] = mapped_column(Text)
    semantic_model_id: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("semantic_models.id", ondelete="SET NULL")
    )
    dataset_count: Mapped[int] = mapped_column(Integer, default=0)
    relationship_count: Mapped[int] = mapped_column(Integer, default=0)
    embedding_provider: Mapped[str | None] = mapped_column(String(100))
    # The semantic model this ontology was built from, frozen until the next rebuild.
    model_yaml: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow, onupdate=utcnow)

    __table_args__ = (Index(None, "owner_id"), Index(None, "semantic_model_id"))


class Group(Base):
    """A named set of users an ontology can be shared with (admins manage them)."""

    __tablename__ = "groups"

    id: Mapped[uuid.UUID] = _uuid_pk()
    name: Mapped[str] = mapped_column(String(255), unique=True)
    description: Mapped[str | None] = mapped_column(Text)
    created_by: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("users.id", ondelete="SET NULL")
    )
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow, onupdate=utcnow)


class GroupMember(Base):
    """One user in one group; a deleted user or group leaves with its rows."""

    __tablename__ = "group_members"

    group_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("groups.id", ondelete="CASCADE"), primary_key=True
    )
    user_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    )
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)

    __table_args__ = (Index(None, "user_id"),)


class OntologyShare(Base):
    """An ontology shared with one user or one group: they may ask, nothing else.

    `database_role` (PostgreSQL only) is the role each of the grantee's queries runs under
    (`SET LOCAL ROLE`), so the database's row-level security decides what they see.
    """

    __tablename__ = "ontology_shares"

    id: Mapped[uuid.UUID] = _uuid_pk()
    ontology_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("ontologies.id", ondelete="CASCADE"))
    user_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    group_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("groups.id", ondelete="CASCADE"))
    database_role: Mapped[str | None] = mapped_column(String(63))
    created_by: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("users.id", ondelete="SET NULL")
    )
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)

    __table_args__ = (
        UniqueConstraint("ontology_id", "user_id"),
        UniqueConstraint("ontology_id", "group_id"),
        CheckConstraint("(user_id IS NULL) <> (group_id IS NULL)", name="one_grantee"),
        Index(None, "user_id"),
        Index(None, "group_id"),
    )


class DataChat(Base):
    """A conversation with the agent about one ontology."""

    __tablename__ = "data_chats"

    id: Mapped[uuid.UUID] = _uuid_pk()
    name: Mapped[str] = mapped_column(String(255))
    ontology_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("ontologies.id", ondelete="CASCADE"))
    owner_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    llm_provider: Mapped[LlmProvider | None] = mapped_column(String(50))
    agent_mode: Mapped[AgentMode] = mapped_column(
        String(20), default="react", server_default=text("'react'")
    )
    # Seed 003: the history older than the quoted recent messages, summarised once by the
    # model and kept; `summary_through_seq` is the seq of the last message it covers.
    history_summary: Mapped[str | None] = mapped_column(Text)
    summary_through_seq: Mapped[int | None] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)

    messages: Mapped[list[DataChatMessage]] = relationship(
        back_populates="chat",
        cascade="all, delete-orphan",
        passive_deletes=True,
        order_by="(DataChatMessage.created_at, DataChatMessage.seq)",
    )

    __table_args__ = (
        Index(None, "owner_id"),
        Index(None, "ontology_id"),
        Index(None, "updated_at"),
    )


class DataChatMessage(Base):
    """One user or assistant message; metadata holds tool calls, tokens, errors, claims."""

    __tablename__ = "data_chat_messages"

    id: Mapped[uuid.UUID] = _uuid_pk()
    chat_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("data_chats.id", ondelete="CASCADE"))
    role: Mapped[MessageRole] = mapped_column(String(20))
    content: Mapped[str] = mapped_column(Text, default="")
    metadata_: Mapped[dict[str, Any] | None] = mapped_column("metadata", JSONDocument)
    status: Mapped[MessageStatus] = mapped_column(String(20), default="complete")
    # Position in the chat: orders messages created in the same instant (a question before
    # its reply).
    seq: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)

    chat: Mapped[DataChat] = relationship(back_populates="messages")

    __table_args__ = (Index(None, "chat_id"), Index(None, "created_at"))


class DataAgentPreference(Base):
    """A user's stored preference (seed 001): global (no ontology) or one ontology's, whose
    value wins over the global one of the same key."""

    __tablename__ = "data_agent_preferences"

    id: Mapped[uuid.UUID] = _uuid_pk()
    user_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    # None: a global preference, which no ontology's deletion touches.
    ontology_id: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("ontologies.id", ondelete="CASCADE")
    )
    key: Mapped[str] = mapped_column(String(255))
    value: Mapped[str] = mapped_column(Text)
    source: Mapped[PreferenceSource] = mapped_column(
        String(20), default="manual", server_default=text("'manual'")
    )
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)

    # One value per key per user per scope. A unique constraint treats NULLs as distinct, so
    # it holds only for ontology-scoped rows; the partial index holds for the global ones.
    __table_args__ = (
        UniqueConstraint("user_id", "ontology_id", "key"),
        Index(
            "uq_data_agent_preferences_user_id_key_global",
            "user_id",
            "key",
            unique=True,
            sqlite_where=text("ontology_id IS NULL"),
            postgresql_where=text("ontology_id IS NULL"),
        ),
        Index(None, "ontology_id"),
    )


class AuditEvent(Base):
    """Who did what to which object, kept after the object is gone."""

    __tablename__ = "audit_events"

    id: Mapped[uuid.UUID] = _uuid_pk()
    actor_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    action: Mapped[str] = mapped_column(String(100))
    object_type: Mapped[str] = mapped_column(String(50))
    object_id: Mapped[str | None] = mapped_column(String(64))
    details: Mapped[dict[str, Any] | None] = mapped_column(JSONDocument)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)

    __table_args__ = (
        Index(None, "actor_id"),
        Index(None, "created_at"),
        Index(None, "object_type", "object_id"),
    )


class Connection(Base):
    """A user's database. The credentials are one encrypted blob; `display` is safe to show."""

    __tablename__ = "connections"

    id: Mapped[uuid.UUID] = _uuid_pk()
    owner_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(String(255))
    dialect: Mapped[str] = mapped_column(String(20))
    kind: Mapped[ConnectionKind] = mapped_column(String(20), default="database")
    display: Mapped[str] = mapped_column(Text)
    secret: Mapped[str] = mapped_column(Text)
    server_version: Mapped[str | None] = mapped_column(String(255))
    last_tested_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow, onupdate=utcnow)

    __table_args__ = (Index(None, "owner_id"),)


class FileDataset(Base):
    """Uploaded files loaded into a DuckDB database, reachable through a `files` connection."""

    __tablename__ = "file_datasets"

    id: Mapped[uuid.UUID] = _uuid_pk()
    owner_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    connection_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("connections.id", ondelete="CASCADE")
    )
    # The directory of its files under `<data_dir>/datasets` (a random id).
    registry_id: Mapped[str] = mapped_column(String(64), unique=True)
    name: Mapped[str] = mapped_column(String(255))
    description: Mapped[str | None] = mapped_column(Text)
    version_hash: Mapped[str] = mapped_column(String(64))
    prompts: Mapped[list[str] | None] = mapped_column(JSONDocument)
    files: Mapped[list[dict[str, Any]] | None] = mapped_column(JSONDocument)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow, onupdate=utcnow)

    __table_args__ = (Index(None, "owner_id"),)


class SemanticModelRecord(Base):
    """A semantic model (OSI-style YAML) generated from, or written for, a connection."""

    __tablename__ = "semantic_models"

    id: Mapped[uuid.UUID] = _uuid_pk()
    owner_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    connection_id: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("connections.id", ondelete="SET NULL")
    )
    name: Mapped[str] = mapped_column(String(255))
    description: Mapped[str | None] = mapped_column(Text)
    dialect: Mapped[str] = mapped_column(String(20))
    yaml: Mapped[str] = mapped_column(Text)
    # The generator's last output, the base the next regeneration merges people's edits over
    # (None for models stored before regeneration existed).
    generated_yaml: Mapped[str | None] = mapped_column(Text)
    dataset_count: Mapped[int] = mapped_column(Integer, default=0)
    relationship_count: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow, onupdate=utcnow)

    __table_args__ = (Index(None, "owner_id"), Index(None, "connection_id"))


class OntologyDataset(Base):
    """A dataset node of an ontology: its YAML, fields and embedding."""

    __tablename__ = "ontology_datasets"

    id: Mapped[uuid.UUID] = _uuid_pk()
    ontology_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("ontologies.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(String(255))
    description: Mapped[str | None] = mapped_column(Text)
    source: Mapped[str] = mapped_column(String(512))
    yaml: Mapped[str] = mapped_column(Text)
    # The text that was embedded (and that keyword scores read), so search needs no YAML.
    search_text: Mapped[str] = mapped_column(Text, default="")
    field_count: Mapped[int] = mapped_column(Integer, default=0)
    embedding: Mapped[bytes | None] = mapped_column(LargeBinary)
    embedding_key: Mapped[str | None] = mapped_column(String(128))

    fields: Mapped[list[OntologyField]] = relationship(
        cascade="all, delete-orphan", passive_deletes=True, order_by="OntologyField.position"
    )

    __table_args__ = (UniqueConstraint("ontology_id", "name"),)


class OntologyField(Base):
    """A field of an ontology dataset."""

    __tablename__ = "ontology_fields"

    id: Mapped[uuid.UUID] = _uuid_pk()
    dataset_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("ontology_datasets.id", ondelete="CASCADE")
    )
    position: Mapped[int] = mapped_column(Integer)
    name: Mapped[str] = mapped_column(String(255))
    label: Mapped[str | None] = mapped_column(String(255))
    description: Mapped[str | None] = mapped_column(Text)
    data_type: Mapped[str] = mapped_column(String(20))
    is_primary_key: Mapped[bool] = mapped_column(Boolean, default=False)

    __table_args__ = (Index(None, "dataset_id"),)


class OntologyMetric(Base):
    """A metric of an ontology: what a search hit on it shows, and its embedding."""

    __tablename__ = "ontology_metrics"

    id: Mapped[uuid.UUID] = _uuid_pk()
    ontology_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("ontologies.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(String(255))
    label: Mapped[str | None] = mapped_column(String(255))
    description: Mapped[str | None] = mapped_column(Text)
    format: Mapped[str] = mapped_column(String(20))
    # The datasets it reads, its own first (a hit on the metric brings them into the results).
    datasets: Mapped[list[str]] = mapped_column(JSONDocument)
    # The text that was embedded (and that keyword scores read), as for datasets.
    search_text: Mapped[str] = mapped_column(Text, default="")
    embedding: Mapped[bytes | None] = mapped_column(LargeBinary)
    embedding_key: Mapped[str | None] = mapped_column(String(128))

    __table_args__ = (UniqueConstraint("ontology_id", "name"),)


class OntologyValue(Base):
    """A row of an ontology's value index: a distinct value of a few-valued text field (which
    the offline planner finds in questions), or the first or last date of a date field."""

    __tablename__ = "ontology_values"

    id: Mapped[uuid.UUID] = _uuid_pk()
    ontology_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("ontologies.id", ondelete="CASCADE"))
    dataset: Mapped[str] = mapped_column(String(255))
    field: Mapped[str] = mapped_column(String(255))
    value: Mapped[str] = mapped_column(Text)
    # `value`: a distinct value; `min`/`max`: the first and last date of a date field.
    kind: Mapped[str] = mapped_column(String(10), default="value", server_default=text("'value'"))

    __table_args__ = (Index(None, "ontology_id"),)


class OntologyRelationship(Base):
    """A RELATES_TO edge between two datasets of an ontology."""

    __tablename__ = "ontology_relationships"

    id: Mapped[uuid.UUID] = _uuid_pk()
    ontology_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("ontologies.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(String(255))
    from_dataset: Mapped[str] = mapped_column(String(255))
    from_columns: Mapped[list[str]] = mapped_column(JSONDocument)
    to_dataset: Mapped[str] = mapped_column(String(255))
    to_columns: Mapped[list[str]] = mapped_column(JSONDocument)
    cardinality: Mapped[str] = mapped_column(String(20))
    source: Mapped[str] = mapped_column(String(20))

    __table_args__ = (Index(None, "ontology_id"),)


class QueryRecord(Base):
    """One SQL execution against a user's database, what ran and how it ended.

    Seed 004's "run capsule" (`GET /api/runs/{id}`); "run" alone means an agent run.
    """

    __tablename__ = "query_records"

    id: Mapped[uuid.UUID] = _uuid_pk()
    owner_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    connection_id: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("connections.id", ondelete="SET NULL")
    )
    ontology_id: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("ontologies.id", ondelete="SET NULL")
    )
    dataset_version: Mapped[str | None] = mapped_column(String(64))
    question: Mapped[str | None] = mapped_column(Text)
    mode: Mapped[QueryMode] = mapped_column(String(10))
    plan: Mapped[dict[str, Any] | None] = mapped_column(JSONDocument)
    sql: Mapped[str] = mapped_column(Text)
    compiled_sql: Mapped[str | None] = mapped_column(Text)
    status: Mapped[QueryStatus] = mapped_column(String(20))
    row_count: Mapped[int] = mapped_column(Integer, default=0)
    truncated: Mapped[bool] = mapped_column(Boolean, default=False)
    result_summary: Mapped[dict[str, Any] | None] = mapped_column(JSONDocument)
    error_code: Mapped[str | None] = mapped_column(String(50))
    error_message: Mapped[str | None] = mapped_column(Text)
    execution_ms: Mapped[int] = mapped_column(Integer, default=0)
    # The agent run that asked for it, when one did.
    run_id: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("agent_runs.id", ondelete="SET NULL")
    )
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)

    __table_args__ = (Index(None, "owner_id"), Index(None, "created_at"), Index(None, "run_id"))


class AgentRun(Base):
    """A durable run: an answer to a message (its claim) or an ontology build.

    It executes in a worker under a lease the worker keeps renewing; a run whose lease
    expired is failed as INTERRUPTED by the reaper. Its events are in `run_events`.
    """

    __tablename__ = "agent_runs"

    id: Mapped[uuid.UUID] = _uuid_pk()
    kind: Mapped[RunKind] = mapped_column(String(30))
    owner_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    chat_id: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("data_chats.id", ondelete="CASCADE")
    )
    # Unique: the row *is* the claim on the assistant message, so a second claim fails.
    message_id: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("data_chat_messages.id", ondelete="CASCADE"), unique=True
    )
    ontology_id: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("ontologies.id", ondelete="CASCADE")
    )
    status: Mapped[RunStatus] = mapped_column(String(20), default="queued")
    cancel_requested: Mapped[bool] = mapped_column(Boolean, default=False)
    worker_id: Mapped[str | None] = mapped_column(String(64))
    lease_expires_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    error_code: Mapped[str | None] = mapped_column(String(50))
    error_message: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    started_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime)

    __table_args__ = (
        Index(None, "owner_id", "status"),
        Index(None, "status", "lease_expires_at"),
        Index(None, "chat_id"),
        Index(None, "ontology_id"),
    )


class RunEvent(Base):
    """One event of a run, stored before it is sent; `data` is the JSON exactly as sent."""

    __tablename__ = "run_events"

    run_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("agent_runs.id", ondelete="CASCADE"), primary_key=True
    )
    seq: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    event: Mapped[str] = mapped_column(String(50))
    data: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class LlmTrace(Base):
    """One call to a chat model (seed 001's `llm_traces`), kept for debugging and cost."""

    __tablename__ = "llm_traces"

    id: Mapped[uuid.UUID] = _uuid_pk()
    owner_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    run_id: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("agent_runs.id", ondelete="CASCADE")
    )
    message_id: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("data_chat_messages.id", ondelete="CASCADE")
    )
    phase: Mapped[str] = mapped_column(String(50))
    call_index: Mapped[int] = mapped_column(Integer)
    step_id: Mapped[int | None] = mapped_column(Integer)
    purpose: Mapped[str] = mapped_column(String(100))
    provider: Mapped[str] = mapped_column(String(50))
    model: Mapped[str] = mapped_column(String(200))
    temperature: Mapped[float | None] = mapped_column(Float)
    structured_output: Mapped[bool] = mapped_column(Boolean, default=False)
    prompt_messages: Mapped[list[dict[str, Any]]] = mapped_column(JSONDocument)
    response_content: Mapped[str | None] = mapped_column(Text)
    tool_calls: Mapped[list[dict[str, Any]] | None] = mapped_column(JSONDocument)
    prompt_tokens: Mapped[int] = mapped_column(Integer, default=0)
    completion_tokens: Mapped[int] = mapped_column(Integer, default=0)
    total_tokens: Mapped[int] = mapped_column(Integer, default=0)
    started_at: Mapped[datetime] = mapped_column(UTCDateTime)
    completed_at: Mapped[datetime] = mapped_column(UTCDateTime)
    duration_ms: Mapped[int] = mapped_column(Integer, default=0)
    error: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)

    __table_args__ = (
        Index(None, "message_id", "phase"),
        Index(None, "run_id"),
        Index(None, "owner_id"),
    )


class LlmSetting(Base):
    """An admin's model settings for one provider (seed 001's "Data Agent" settings)."""

    __tablename__ = "llm_settings"

    provider: Mapped[LlmProvider] = mapped_column(String(50), primary_key=True)
    model: Mapped[str | None] = mapped_column(String(200))
    temperature: Mapped[float | None] = mapped_column(Float)
    # OpenAI/Azure `reasoning_effort` (low, medium, high); Anthropic thinking
    # (`adaptive` or a token budget as digits).
    reasoning_level: Mapped[str | None] = mapped_column(String(20))
    updated_by: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("users.id", ondelete="SET NULL")
    )
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow, onupdate=utcnow)


class Chart(Base):
    """A chart image of an answer (the chart tool's PNG or one `run_python` drew)."""

    __tablename__ = "charts"

    id: Mapped[uuid.UUID] = _uuid_pk()
    owner_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    message_id: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("data_chat_messages.id", ondelete="CASCADE")
    )
    title: Mapped[str | None] = mapped_column(String(255))
    media_type: Mapped[str] = mapped_column(String(50), default="image/png")
    content: Mapped[bytes] = mapped_column(LargeBinary)
    # The Vega-Lite spec of the same chart, for interactive display (None for drawn images).
    spec: Mapped[dict[str, Any] | None] = mapped_column(JSONDocument)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)

    __table_args__ = (Index(None, "owner_id"), Index(None, "message_id"))
