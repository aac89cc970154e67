"""Ontology metrics: each metric of the model an ontology was built from, with its embedding

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-24
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0007"
# Written beside 0006 (semantic models); chained after it when both land.
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Ontologies built before this have no metric rows: their searches return no metrics
    # until they are rebuilt (or `dataagent ontology backfill --force` runs).
    op.create_table(
        "ontology_metrics",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("ontology_id", sa.Uuid(), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("label", sa.String(length=255), nullable=True),
        sa.Column("description", sa.Text(), nullable=True),
        sa.Column("format", sa.String(length=20), nullable=False),
        sa.Column(
            "datasets", sa.JSON().with_variant(postgresql.JSONB(), "postgresql"), nullable=False
        ),
        sa.Column("search_text", sa.Text(), nullable=False),
        sa.Column("embedding", sa.LargeBinary(), nullable=True),
        sa.Column("embedding_key", sa.String(length=128), nullable=True),
        sa.ForeignKeyConstraint(
            ["ontology_id"],
            ["ontologies.id"],
            name=op.f("fk_ontology_metrics_ontology_id_ontologies"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_ontology_metrics")),
        sa.UniqueConstraint(
            "ontology_id", "name", name=op.f("uq_ontology_metrics_ontology_id_name")
        ),
    )


def downgrade() -> None:
    op.drop_table("ontology_metrics")
