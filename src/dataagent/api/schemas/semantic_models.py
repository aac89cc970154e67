"""Semantic models (OSI-style YAML) generated from a connection."""

from __future__ import annotations

import uuid
from datetime import datetime

from pydantic import Field

from dataagent.api.schemas import HAS_TEXT, ApiInput, ApiModel
from dataagent.dialects import Dialect
from dataagent.semantic.curation import ModelChange


class SemanticModelSummary(ApiModel):
    """A semantic model without its YAML."""

    id: uuid.UUID
    name: str
    description: str | None
    connection_id: uuid.UUID | None
    dialect: Dialect
    dataset_count: int
    relationship_count: int
    created_at: datetime
    updated_at: datetime


class SemanticModelPublic(SemanticModelSummary):
    """A semantic model with its YAML."""

    yaml: str


class SemanticModelRegenerated(SemanticModelPublic):
    """A semantic model after regeneration, with what the merge did to it."""

    changes: list[ModelChange] = Field(
        description="Every item the regeneration added, removed or updated, every edit and "
        "deletion of yours it kept, and everything it dropped because what it named is gone."
    )


class SemanticModelCreate(ApiInput):
    """Generate a model from one of the caller's connections."""

    connection_id: uuid.UUID
    name: str = Field(min_length=1, max_length=255, pattern=HAS_TEXT)
    description: str | None = Field(None, max_length=10_000)


class SemanticModelUpdate(ApiInput):
    """A new name, description or YAML (validated; errors point at line and field)."""

    name: str | None = Field(None, min_length=1, max_length=255, pattern=HAS_TEXT)
    description: str | None = Field(None, max_length=10_000)
    yaml: str | None = Field(None, min_length=1, max_length=20_000_000, pattern=HAS_TEXT)
