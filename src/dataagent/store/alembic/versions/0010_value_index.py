"""ontology_values: the value index built with each ontology (issue 24)

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-26
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Ontologies built before this have no values: the offline planner falls back on the
    # model's sample values until they are rebuilt.
    op.create_table(
        "ontology_values",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("ontology_id", sa.Uuid(), nullable=False),
        sa.Column("dataset", sa.String(length=255), nullable=False),
        sa.Column("field", sa.String(length=255), nullable=False),
        sa.Column("value", sa.Text(), nullable=False),
        sa.Column("kind", sa.String(length=10), server_default=sa.text("'value'"), nullable=False),
        sa.ForeignKeyConstraint(
            ["ontology_id"],
            ["ontologies.id"],
            name=op.f("fk_ontology_values_ontology_id_ontologies"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_ontology_values")),
    )
    with op.batch_alter_table("ontology_values", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_ontology_values_ontology_id"), ["ontology_id"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table("ontology_values", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_ontology_values_ontology_id"))
    op.drop_table("ontology_values")
