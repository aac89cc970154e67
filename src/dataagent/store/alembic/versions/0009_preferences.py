"""data_agent_preferences: a person's stored preferences, global or per ontology (seed 001,
issue 23)

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-26
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TABLE = "data_agent_preferences"
GLOBAL_KEY_INDEX = "uq_data_agent_preferences_user_id_key_global"


def upgrade() -> None:
    op.create_table(
        TABLE,
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("user_id", sa.Uuid(), nullable=False),
        sa.Column("ontology_id", sa.Uuid(), nullable=True),
        sa.Column("key", sa.String(255), nullable=False),
        sa.Column("value", sa.Text(), nullable=False),
        sa.Column("source", sa.String(20), server_default=sa.text("'manual'"), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["users.id"],
            name=op.f("fk_data_agent_preferences_user_id_users"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["ontology_id"],
            ["ontologies.id"],
            name=op.f("fk_data_agent_preferences_ontology_id_ontologies"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_data_agent_preferences")),
        # Ontology-scoped rows: NULLs are distinct here, so global rows need the index below.
        sa.UniqueConstraint(
            "user_id",
            "ontology_id",
            "key",
            name=op.f("uq_data_agent_preferences_user_id_ontology_id_key"),
        ),
    )
    with op.batch_alter_table(TABLE, schema=None) as batch_op:
        batch_op.create_index(
            GLOBAL_KEY_INDEX,
            ["user_id", "key"],
            unique=True,
            sqlite_where=sa.text("ontology_id IS NULL"),
            postgresql_where=sa.text("ontology_id IS NULL"),
        )
        batch_op.create_index(
            batch_op.f("ix_data_agent_preferences_ontology_id"), ["ontology_id"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table(TABLE, schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_data_agent_preferences_ontology_id"))
        batch_op.drop_index(GLOBAL_KEY_INDEX)
    op.drop_table(TABLE)
