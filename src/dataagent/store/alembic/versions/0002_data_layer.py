"""data layer

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-23
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:

    op.create_table(
        "connections",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("owner_id", sa.Uuid(), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("dialect", sa.String(length=20), nullable=False),
        sa.Column("kind", sa.String(length=20), nullable=False),
        sa.Column("display", sa.Text(), nullable=False),
        sa.Column("secret", sa.Text(), nullable=False),
        sa.Column("server_version", sa.String(length=255), nullable=True),
        sa.Column("last_tested_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["owner_id"],
            ["users.id"],
            name=op.f("fk_connections_owner_id_users"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_connections")),
    )
    with op.batch_alter_table("connections", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_connections_owner_id"), ["owner_id"], unique=False)

    op.create_table(
        "file_datasets",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("owner_id", sa.Uuid(), nullable=False),
        sa.Column("connection_id", sa.Uuid(), nullable=False),
        sa.Column("registry_id", sa.String(length=64), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("description", sa.Text(), nullable=True),
        sa.Column("version_hash", sa.String(length=64), nullable=False),
        sa.Column(
            "prompts", sa.JSON().with_variant(postgresql.JSONB(), "postgresql"), nullable=True
        ),
        sa.Column("files", sa.JSON().with_variant(postgresql.JSONB(), "postgresql"), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["connection_id"],
            ["connections.id"],
            name=op.f("fk_file_datasets_connection_id_connections"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["owner_id"],
            ["users.id"],
            name=op.f("fk_file_datasets_owner_id_users"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_file_datasets")),
        sa.UniqueConstraint("registry_id", name=op.f("uq_file_datasets_registry_id")),
    )
    with op.batch_alter_table("file_datasets", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_file_datasets_owner_id"), ["owner_id"], unique=False)

    op.create_table(
        "semantic_models",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("owner_id", sa.Uuid(), nullable=False),
        sa.Column("connection_id", sa.Uuid(), nullable=True),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("description", sa.Text(), nullable=True),
        sa.Column("dialect", sa.String(length=20), nullable=False),
        sa.Column("yaml", sa.Text(), nullable=False),
        sa.Column("dataset_count", sa.Integer(), nullable=False),
        sa.Column("relationship_count", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["connection_id"],
            ["connections.id"],
            name=op.f("fk_semantic_models_connection_id_connections"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["owner_id"],
            ["users.id"],
            name=op.f("fk_semantic_models_owner_id_users"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_semantic_models")),
    )
    with op.batch_alter_table("semantic_models", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_semantic_models_connection_id"), ["connection_id"], unique=False
        )
        batch_op.create_index(batch_op.f("ix_semantic_models_owner_id"), ["owner_id"], unique=False)

    op.create_table(
        "ontology_datasets",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("ontology_id", sa.Uuid(), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("description", sa.Text(), nullable=True),
        sa.Column("source", sa.String(length=512), nullable=False),
        sa.Column("yaml", sa.Text(), nullable=False),
        sa.Column("search_text", sa.Text(), nullable=False),
        sa.Column("field_count", sa.Integer(), nullable=False),
        sa.Column("embedding", sa.LargeBinary(), nullable=True),
        sa.Column("embedding_key", sa.String(length=128), nullable=True),
        sa.ForeignKeyConstraint(
            ["ontology_id"],
            ["ontologies.id"],
            name=op.f("fk_ontology_datasets_ontology_id_ontologies"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_ontology_datasets")),
        sa.UniqueConstraint(
            "ontology_id", "name", name=op.f("uq_ontology_datasets_ontology_id_name")
        ),
    )
    op.create_table(
        "ontology_relationships",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("ontology_id", sa.Uuid(), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("from_dataset", sa.String(length=255), nullable=False),
        sa.Column(
            "from_columns", sa.JSON().with_variant(postgresql.JSONB(), "postgresql"), nullable=False
        ),
        sa.Column("to_dataset", sa.String(length=255), nullable=False),
        sa.Column(
            "to_columns", sa.JSON().with_variant(postgresql.JSONB(), "postgresql"), nullable=False
        ),
        sa.Column("cardinality", sa.String(length=20), nullable=False),
        sa.Column("source", sa.String(length=20), nullable=False),
        sa.ForeignKeyConstraint(
            ["ontology_id"],
            ["ontologies.id"],
            name=op.f("fk_ontology_relationships_ontology_id_ontologies"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_ontology_relationships")),
    )
    with op.batch_alter_table("ontology_relationships", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_ontology_relationships_ontology_id"), ["ontology_id"], unique=False
        )

    op.create_table(
        "query_runs",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("owner_id", sa.Uuid(), nullable=False),
        sa.Column("connection_id", sa.Uuid(), nullable=True),
        sa.Column("ontology_id", sa.Uuid(), nullable=True),
        sa.Column("dataset_version", sa.String(length=64), nullable=True),
        sa.Column("question", sa.Text(), nullable=True),
        sa.Column("mode", sa.String(length=10), nullable=False),
        sa.Column("plan", sa.JSON().with_variant(postgresql.JSONB(), "postgresql"), nullable=True),
        sa.Column("sql", sa.Text(), nullable=False),
        sa.Column("compiled_sql", sa.Text(), nullable=True),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("row_count", sa.Integer(), nullable=False),
        sa.Column("truncated", sa.Boolean(), nullable=False),
        sa.Column(
            "result_summary",
            sa.JSON().with_variant(postgresql.JSONB(), "postgresql"),
            nullable=True,
        ),
        sa.Column("error_code", sa.String(length=50), nullable=True),
        sa.Column("error_message", sa.Text(), nullable=True),
        sa.Column("execution_ms", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["connection_id"],
            ["connections.id"],
            name=op.f("fk_query_runs_connection_id_connections"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["ontology_id"],
            ["ontologies.id"],
            name=op.f("fk_query_runs_ontology_id_ontologies"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["owner_id"],
            ["users.id"],
            name=op.f("fk_query_runs_owner_id_users"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_query_runs")),
    )
    with op.batch_alter_table("query_runs", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_query_runs_created_at"), ["created_at"], unique=False)
        batch_op.create_index(batch_op.f("ix_query_runs_owner_id"), ["owner_id"], unique=False)

    op.create_table(
        "ontology_fields",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("dataset_id", sa.Uuid(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("label", sa.String(length=255), nullable=True),
        sa.Column("description", sa.Text(), nullable=True),
        sa.Column("data_type", sa.String(length=20), nullable=False),
        sa.Column("is_primary_key", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(
            ["dataset_id"],
            ["ontology_datasets.id"],
            name=op.f("fk_ontology_fields_dataset_id_ontology_datasets"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_ontology_fields")),
    )
    with op.batch_alter_table("ontology_fields", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_ontology_fields_dataset_id"), ["dataset_id"], unique=False
        )

    with op.batch_alter_table("ontologies", schema=None) as batch_op:
        batch_op.add_column(sa.Column("semantic_model_id", sa.Uuid(), nullable=True))
        batch_op.add_column(
            sa.Column("dataset_count", sa.Integer(), nullable=False, server_default="0")
        )
        batch_op.add_column(
            sa.Column("relationship_count", sa.Integer(), nullable=False, server_default="0")
        )
        batch_op.add_column(sa.Column("embedding_provider", sa.String(length=100), nullable=True))
        batch_op.add_column(sa.Column("model_yaml", sa.Text(), nullable=True))
        batch_op.create_index(
            batch_op.f("ix_ontologies_semantic_model_id"), ["semantic_model_id"], unique=False
        )
        batch_op.create_foreign_key(
            batch_op.f("fk_ontologies_semantic_model_id_semantic_models"),
            "semantic_models",
            ["semantic_model_id"],
            ["id"],
            ondelete="SET NULL",
        )


def downgrade() -> None:

    with op.batch_alter_table("ontologies", schema=None) as batch_op:
        batch_op.drop_constraint(
            batch_op.f("fk_ontologies_semantic_model_id_semantic_models"), type_="foreignkey"
        )
        batch_op.drop_index(batch_op.f("ix_ontologies_semantic_model_id"))
        batch_op.drop_column("model_yaml")
        batch_op.drop_column("embedding_provider")
        batch_op.drop_column("relationship_count")
        batch_op.drop_column("dataset_count")
        batch_op.drop_column("semantic_model_id")

    with op.batch_alter_table("ontology_fields", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_ontology_fields_dataset_id"))

    op.drop_table("ontology_fields")
    with op.batch_alter_table("query_runs", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_query_runs_owner_id"))
        batch_op.drop_index(batch_op.f("ix_query_runs_created_at"))

    op.drop_table("query_runs")
    with op.batch_alter_table("ontology_relationships", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_ontology_relationships_ontology_id"))

    op.drop_table("ontology_relationships")
    op.drop_table("ontology_datasets")
    with op.batch_alter_table("semantic_models", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_semantic_models_owner_id"))
        batch_op.drop_index(batch_op.f("ix_semantic_models_connection_id"))

    op.drop_table("semantic_models")
    with op.batch_alter_table("file_datasets", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_file_datasets_owner_id"))

    op.drop_table("file_datasets")
    with op.batch_alter_table("connections", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_connections_owner_id"))

    op.drop_table("connections")
