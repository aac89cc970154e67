"""File datasets: uploads that became tables of their own DuckDB file."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from dataagent.api.schemas import ApiModel


class DatasetPublic(ApiModel):
    """A dataset as its record holds it (seed 004's registry entry), plus its connection."""

    id: uuid.UUID
    name: str
    description: str | None
    prompts: list[str] | None
    version_hash: str
    files: list[dict[str, Any]] | None
    connection_id: uuid.UUID
    created_at: datetime
