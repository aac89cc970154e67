"""The agent: durable runs and their event log, LLM traces and settings, charts

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-23
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _json() -> sa.types.TypeEngine[Any]:
    return sa.JSON().with_variant(postgresql.JSONB(), "postgresql")


def _fk(table: str, column: str, target: str, ondelete: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        [column],
        [f"{target}.id"],
        name=op.f(f"fk_{table}_{column}_{target}"),
        ondelete=ondelete,
    )


def _when(name: str, nullable: bool = False) -> sa.Column[object]:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable)


def upgrade() -> None:
    with op.batch_alter_table("users", schema=None) as batch_op:
        batch_op.add_column(sa.Column("default_llm_provider", sa.String(50), nullable=True))
    with op.batch_alter_table("data_chats", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column(
                "agent_mode", sa.String(20), server_default=sa.text("'react'"), nullable=False
            )
        )
        batch_op.add_column(sa.Column("history_summary", sa.Text(), nullable=True))
        batch_op.add_column(sa.Column("summary_through_seq", sa.Integer(), nullable=True))

    op.create_table(
        "agent_runs",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("kind", sa.String(30), nullable=False),
        sa.Column("owner_id", sa.Uuid(), nullable=False),
        sa.Column("chat_id", sa.Uuid(), nullable=True),
        sa.Column("message_id", sa.Uuid(), nullable=True),
        sa.Column("ontology_id", sa.Uuid(), nullable=True),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("cancel_requested", sa.Boolean(), nullable=False),
        sa.Column("worker_id", sa.String(64), nullable=True),
        _when("lease_expires_at", nullable=True),
        sa.Column("error_code", sa.String(50), nullable=True),
        sa.Column("error_message", sa.Text(), nullable=True),
        _when("created_at"),
        _when("started_at", nullable=True),
        _when("finished_at", nullable=True),
        _fk("agent_runs", "owner_id", "users", "CASCADE"),
        _fk("agent_runs", "chat_id", "data_chats", "CASCADE"),
        _fk("agent_runs", "message_id", "data_chat_messages", "CASCADE"),
        _fk("agent_runs", "ontology_id", "ontologies", "CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_agent_runs")),
        sa.UniqueConstraint("message_id", name=op.f("uq_agent_runs_message_id")),
    )
    with op.batch_alter_table("agent_runs", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_agent_runs_owner_id_status"), ["owner_id", "status"], unique=False
        )
        batch_op.create_index(
            batch_op.f("ix_agent_runs_status_lease_expires_at"),
            ["status", "lease_expires_at"],
            unique=False,
        )
        batch_op.create_index(batch_op.f("ix_agent_runs_chat_id"), ["chat_id"], unique=False)
        batch_op.create_index(
            batch_op.f("ix_agent_runs_ontology_id"), ["ontology_id"], unique=False
        )

    op.create_table(
        "run_events",
        sa.Column("run_id", sa.Uuid(), nullable=False),
        sa.Column("seq", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("event", sa.String(50), nullable=False),
        sa.Column("data", sa.Text(), nullable=False),
        _when("created_at"),
        _fk("run_events", "run_id", "agent_runs", "CASCADE"),
        sa.PrimaryKeyConstraint("run_id", "seq", name=op.f("pk_run_events")),
    )

    op.create_table(
        "llm_traces",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("owner_id", sa.Uuid(), nullable=False),
        sa.Column("run_id", sa.Uuid(), nullable=True),
        sa.Column("message_id", sa.Uuid(), nullable=True),
        sa.Column("phase", sa.String(50), nullable=False),
        sa.Column("call_index", sa.Integer(), nullable=False),
        sa.Column("step_id", sa.Integer(), nullable=True),
        sa.Column("purpose", sa.String(100), nullable=False),
        sa.Column("provider", sa.String(50), nullable=False),
        sa.Column("model", sa.String(200), nullable=False),
        sa.Column("temperature", sa.Float(), nullable=True),
        sa.Column("structured_output", sa.Boolean(), nullable=False),
        sa.Column("prompt_messages", _json(), nullable=False),
        sa.Column("response_content", sa.Text(), nullable=True),
        sa.Column("tool_calls", _json(), nullable=True),
        sa.Column("prompt_tokens", sa.Integer(), nullable=False),
        sa.Column("completion_tokens", sa.Integer(), nullable=False),
        sa.Column("total_tokens", sa.Integer(), nullable=False),
        _when("started_at"),
        _when("completed_at"),
        sa.Column("duration_ms", sa.Integer(), nullable=False),
        sa.Column("error", sa.Text(), nullable=True),
        _when("created_at"),
        _fk("llm_traces", "owner_id", "users", "CASCADE"),
        _fk("llm_traces", "run_id", "agent_runs", "CASCADE"),
        _fk("llm_traces", "message_id", "data_chat_messages", "CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_llm_traces")),
    )
    with op.batch_alter_table("llm_traces", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_llm_traces_message_id_phase"), ["message_id", "phase"], unique=False
        )
        batch_op.create_index(batch_op.f("ix_llm_traces_run_id"), ["run_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_llm_traces_owner_id"), ["owner_id"], unique=False)

    op.create_table(
        "llm_settings",
        sa.Column("provider", sa.String(50), nullable=False),
        sa.Column("model", sa.String(200), nullable=True),
        sa.Column("temperature", sa.Float(), nullable=True),
        sa.Column("reasoning_level", sa.String(20), nullable=True),
        sa.Column("updated_by", sa.Uuid(), nullable=True),
        _when("updated_at"),
        _fk("llm_settings", "updated_by", "users", "SET NULL"),
        sa.PrimaryKeyConstraint("provider", name=op.f("pk_llm_settings")),
    )

    op.create_table(
        "charts",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("owner_id", sa.Uuid(), nullable=False),
        sa.Column("message_id", sa.Uuid(), nullable=True),
        sa.Column("title", sa.String(255), nullable=True),
        sa.Column("media_type", sa.String(50), nullable=False),
        sa.Column("content", sa.LargeBinary(), nullable=False),
        sa.Column("spec", _json(), nullable=True),
        _when("created_at"),
        _fk("charts", "owner_id", "users", "CASCADE"),
        _fk("charts", "message_id", "data_chat_messages", "CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_charts")),
    )
    with op.batch_alter_table("charts", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_charts_owner_id"), ["owner_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_charts_message_id"), ["message_id"], unique=False)

    with op.batch_alter_table("query_records", schema=None) as batch_op:
        batch_op.add_column(sa.Column("run_id", sa.Uuid(), nullable=True))
        batch_op.create_foreign_key(
            batch_op.f("fk_query_records_run_id_agent_runs"),
            "agent_runs",
            ["run_id"],
            ["id"],
            ondelete="SET NULL",
        )
        batch_op.create_index(batch_op.f("ix_query_records_run_id"), ["run_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("query_records", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_query_records_run_id"))
        batch_op.drop_constraint(
            batch_op.f("fk_query_records_run_id_agent_runs"), type_="foreignkey"
        )
        batch_op.drop_column("run_id")
    op.drop_table("charts")
    op.drop_table("llm_settings")
    op.drop_table("llm_traces")
    op.drop_table("run_events")
    op.drop_table("agent_runs")
    with op.batch_alter_table("data_chats", schema=None) as batch_op:
        batch_op.drop_column("summary_through_seq")
        batch_op.drop_column("history_summary")
        batch_op.drop_column("agent_mode")
    with op.batch_alter_table("users", schema=None) as batch_op:
        batch_op.drop_column("default_llm_provider")
