"""Semantic models keep the generator's last output, the base of the next regeneration

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-26
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("semantic_models", schema=None) as batch_op:
        batch_op.add_column(sa.Column("generated_yaml", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("semantic_models", schema=None) as batch_op:
        batch_op.drop_column("generated_yaml")
