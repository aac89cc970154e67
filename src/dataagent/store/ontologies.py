"""Ontology records: ownership and readiness (their content arrives with the data layer)."""

from __future__ import annotations

import uuid

from sqlalchemy.ext.asyncio import AsyncSession

from dataagent.errors import not_found
from dataagent.store.models import Ontology


async def get_owned_ontology(
    session: AsyncSession, owner_id: uuid.UUID, ontology_id: uuid.UUID
) -> Ontology:
    """The caller's ontology, or NOT_FOUND (also when someone else owns it)."""
    ontology = await session.get(Ontology, ontology_id)
    if ontology is None or ontology.owner_id != owner_id:
        raise not_found("Ontology")
    return ontology


async def create_ontology(
    session: AsyncSession,
    owner_id: uuid.UUID,
    name: str,
    status: str = "building",
    description: str | None = None,
) -> Ontology:
    """Insert an ontology record and commit."""
    ontology = Ontology(name=name, owner_id=owner_id, status=status, description=description)
    session.add(ontology)
    await session.commit()
    return ontology
