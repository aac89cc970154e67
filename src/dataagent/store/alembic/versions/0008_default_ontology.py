"""users.default_ontology_id: the ontology a person's stateless chat asks about when the
request names none (issue 22, item 9)

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-26
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Nobody has a default yet; deleting the ontology clears it.
    with op.batch_alter_table("users", schema=None) as batch_op:
        batch_op.add_column(sa.Column("default_ontology_id", sa.Uuid(), nullable=True))
        batch_op.create_foreign_key(
            batch_op.f("fk_users_default_ontology_id_ontologies"),
            "ontologies",
            ["default_ontology_id"],
            ["id"],
            ondelete="SET NULL",
            use_alter=True,
        )


def downgrade() -> None:
    with op.batch_alter_table("users", schema=None) as batch_op:
        batch_op.drop_constraint(
            batch_op.f("fk_users_default_ontology_id_ontologies"), type_="foreignkey"
        )
        batch_op.drop_column("default_ontology_id")
