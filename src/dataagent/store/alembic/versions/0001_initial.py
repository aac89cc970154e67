"""initial schema: users, ontologies, chats, messages, audit

Revision ID: 0001
Revises:
Create Date: 2026-11-23
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:

    op.create_table(
        "users",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("email", sa.String(length=320), nullable=False),
        sa.Column("password_hash", sa.String(length=255), nullable=False),
        sa.Column("role", sa.String(length=20), nullable=False),
        sa.Column("is_active", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_users")),
        sa.UniqueConstraint("email", name=op.f("uq_users_email")),
    )
    op.create_table(
        "audit_events",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("actor_id", sa.Uuid(), nullable=True),
        sa.Column("action", sa.String(length=100), nullable=False),
        sa.Column("object_type", sa.String(length=50), nullable=False),
        sa.Column("object_id", sa.String(length=64), nullable=True),
        sa.Column(
            "details", sa.JSON().with_variant(postgresql.JSONB(), "postgresql"), nullable=True
        ),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["actor_id"],
            ["users.id"],
            name=op.f("fk_audit_events_actor_id_users"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_audit_events")),
    )
    with op.batch_alter_table("audit_events", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_audit_events_actor_id"), ["actor_id"], unique=False)
        batch_op.create_index(
            batch_op.f("ix_audit_events_created_at"), ["created_at"], unique=False
        )
        batch_op.create_index(
            batch_op.f("ix_audit_events_object_type_object_id"),
            ["object_type", "object_id"],
            unique=False,
        )

    op.create_table(
        "ontologies",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("description", sa.Text(), nullable=True),
        sa.Column("owner_id", sa.Uuid(), nullable=False),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["owner_id"],
            ["users.id"],
            name=op.f("fk_ontologies_owner_id_users"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_ontologies")),
    )
    with op.batch_alter_table("ontologies", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_ontologies_owner_id"), ["owner_id"], unique=False)

    op.create_table(
        "data_chats",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("ontology_id", sa.Uuid(), nullable=False),
        sa.Column("owner_id", sa.Uuid(), nullable=False),
        sa.Column("llm_provider", sa.String(length=50), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["ontology_id"],
            ["ontologies.id"],
            name=op.f("fk_data_chats_ontology_id_ontologies"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["owner_id"],
            ["users.id"],
            name=op.f("fk_data_chats_owner_id_users"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_data_chats")),
    )
    with op.batch_alter_table("data_chats", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_data_chats_ontology_id"), ["ontology_id"], unique=False
        )
        batch_op.create_index(batch_op.f("ix_data_chats_owner_id"), ["owner_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_data_chats_updated_at"), ["updated_at"], unique=False)

    op.create_table(
        "data_chat_messages",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("chat_id", sa.Uuid(), nullable=False),
        sa.Column("role", sa.String(length=20), nullable=False),
        sa.Column("content", sa.Text(), nullable=False),
        sa.Column(
            "metadata", sa.JSON().with_variant(postgresql.JSONB(), "postgresql"), nullable=True
        ),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["chat_id"],
            ["data_chats.id"],
            name=op.f("fk_data_chat_messages_chat_id_data_chats"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_data_chat_messages")),
    )
    with op.batch_alter_table("data_chat_messages", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_data_chat_messages_chat_id"), ["chat_id"], unique=False
        )
        batch_op.create_index(
            batch_op.f("ix_data_chat_messages_created_at"), ["created_at"], unique=False
        )


def downgrade() -> None:

    with op.batch_alter_table("data_chat_messages", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_data_chat_messages_created_at"))
        batch_op.drop_index(batch_op.f("ix_data_chat_messages_chat_id"))

    op.drop_table("data_chat_messages")
    with op.batch_alter_table("data_chats", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_data_chats_updated_at"))
        batch_op.drop_index(batch_op.f("ix_data_chats_owner_id"))
        batch_op.drop_index(batch_op.f("ix_data_chats_ontology_id"))

    op.drop_table("data_chats")
    with op.batch_alter_table("ontologies", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_ontologies_owner_id"))

    op.drop_table("ontologies")
    with op.batch_alter_table("audit_events", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_audit_events_object_type_object_id"))
        batch_op.drop_index(batch_op.f("ix_audit_events_created_at"))
        batch_op.drop_index(batch_op.f("ix_audit_events_actor_id"))

    op.drop_table("audit_events")
    op.drop_table("users")
