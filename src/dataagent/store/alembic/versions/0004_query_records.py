"""query_runs becomes query_records: "run" is kept for the agent's runs

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-23
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_COLUMNS = (
    "id, owner_id, connection_id, ontology_id, dataset_version, question, mode, plan, sql, "
    "compiled_sql, status, row_count, truncated, result_summary, error_code, error_message, "
    "execution_ms, created_at"
)


def _create(table: str) -> None:
    """The records table under `table`, its keys and indexes named after it."""
    json = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")
    op.create_table(
        table,
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("owner_id", sa.Uuid(), nullable=False),
        sa.Column("connection_id", sa.Uuid(), nullable=True),
        sa.Column("ontology_id", sa.Uuid(), nullable=True),
        sa.Column("dataset_version", sa.String(length=64), nullable=True),
        sa.Column("question", sa.Text(), nullable=True),
        sa.Column("mode", sa.String(length=10), nullable=False),
        sa.Column("plan", json, nullable=True),
        sa.Column("sql", sa.Text(), nullable=False),
        sa.Column("compiled_sql", sa.Text(), nullable=True),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("row_count", sa.Integer(), nullable=False),
        sa.Column("truncated", sa.Boolean(), nullable=False),
        sa.Column("result_summary", json, nullable=True),
        sa.Column("error_code", sa.String(length=50), nullable=True),
        sa.Column("error_message", sa.Text(), nullable=True),
        sa.Column("execution_ms", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["connection_id"],
            ["connections.id"],
            name=op.f(f"fk_{table}_connection_id_connections"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["ontology_id"],
            ["ontologies.id"],
            name=op.f(f"fk_{table}_ontology_id_ontologies"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["owner_id"], ["users.id"], name=op.f(f"fk_{table}_owner_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f(f"pk_{table}")),
    )
    with op.batch_alter_table(table, schema=None) as batch_op:
        batch_op.create_index(batch_op.f(f"ix_{table}_created_at"), ["created_at"], unique=False)
        batch_op.create_index(batch_op.f(f"ix_{table}_owner_id"), ["owner_id"], unique=False)


def _move(source: str, target: str) -> None:
    # A new table and a copy, not a rename: the keys and indexes take the new name on
    # SQLite and PostgreSQL alike, and no record is lost.
    _create(target)
    op.execute(f"INSERT INTO {target} ({_COLUMNS}) SELECT {_COLUMNS} FROM {source}")  # noqa: S608
    with op.batch_alter_table(source, schema=None) as batch_op:
        batch_op.drop_index(batch_op.f(f"ix_{source}_owner_id"))
        batch_op.drop_index(batch_op.f(f"ix_{source}_created_at"))
    op.drop_table(source)


def upgrade() -> None:
    _move("query_runs", "query_records")


def downgrade() -> None:
    _move("query_records", "query_runs")
