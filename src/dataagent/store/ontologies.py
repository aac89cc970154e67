"""Ontologies: the rows of a built ontology (datasets, fields, relationships, metrics,
embeddings)."""

from __future__ import annotations

import uuid
from collections import defaultdict
from collections.abc import Sequence

from sqlalchemy import delete, select, update
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import selectinload

from dataagent.ontology.retrieval import (
    DatasetDoc,
    MetricDoc,
    StoredDoc,
    vector_from_bytes,
    vector_to_bytes,
)
from dataagent.ontology.values import ValueIndex
from dataagent.semantic.model import Relationship, SemanticModel
from dataagent.semantic.yaml_io import dump_dataset_yaml
from dataagent.store import audit
from dataagent.store.models import (
    Ontology,
    OntologyDataset,
    OntologyField,
    OntologyMetric,
    OntologyRelationship,
    OntologyValue,
)
from dataagent.store.ownership import get_owned


async def get_owned_ontology(
    session: AsyncSession, owner_id: uuid.UUID, ontology_id: uuid.UUID
) -> Ontology:
    """The owner's ontology, or NOT_FOUND (also when someone else owns it)."""
    return await get_owned(session, Ontology, owner_id, ontology_id, "Ontology")


async def find_ontologies(session: AsyncSession, name_or_id: str) -> list[Ontology]:
    """Every user's ontologies with this id or name, for the operator's command line."""
    try:
        found = await session.get(Ontology, uuid.UUID(name_or_id))
    except ValueError:
        found = None
    if found is not None:
        return [found]
    rows = await session.scalars(
        select(Ontology).where(Ontology.name == name_or_id).order_by(Ontology.created_at)
    )
    return list(rows)


async def add_ontology(
    session: AsyncSession,
    owner_id: uuid.UUID,
    semantic_model_id: uuid.UUID,
    name: str,
    description: str | None,
) -> Ontology:
    """An ontology row in `building`, pointing at the semantic model it is built from."""
    ontology = Ontology(
        name=name,
        description=description,
        owner_id=owner_id,
        status="building",
        semantic_model_id=semantic_model_id,
    )
    session.add(ontology)
    await session.flush()
    audit.record(session, owner_id, "ontology.create", "ontology", ontology.id)
    return ontology


async def claim_for_build(session: AsyncSession, ontology: Ontology) -> bool:
    """Set an existing ontology `building` unless it already is; False when it was.

    One conditional UPDATE, so of two requests racing to rebuild one ontology only one
    wins (PostgreSQL re-reads the row the other committed; SQLite serialises writers)."""
    result = await session.execute(
        update(Ontology)
        .where(Ontology.id == ontology.id, Ontology.status != "building")
        .values(status="building", error=None)
        .execution_options(synchronize_session=False)
    )
    if result.rowcount != 1:  # type: ignore[attr-defined]
        return False
    ontology.status, ontology.error = "building", None
    return True


async def replace_graph(
    session: AsyncSession,
    ontology: Ontology,
    model: SemanticModel,
    docs: list[DatasetDoc],
    metric_docs: Sequence[MetricDoc] = (),
) -> None:
    """Replace the ontology's datasets, fields, relationships and metrics with the model's."""
    await session.execute(delete(OntologyDataset).where(OntologyDataset.ontology_id == ontology.id))
    await session.execute(
        delete(OntologyRelationship).where(OntologyRelationship.ontology_id == ontology.id)
    )
    await session.execute(delete(OntologyMetric).where(OntologyMetric.ontology_id == ontology.id))
    by_name = {doc.name: doc for doc in docs}
    touching: dict[str, list[Relationship]] = defaultdict(list)
    for r in model.relationships:
        touching[r.from_dataset].append(r)
        if r.to_dataset != r.from_dataset:
            touching[r.to_dataset].append(r)
    for dataset in model.datasets:
        related = touching[dataset.name]
        doc = by_name[dataset.name]
        session.add(
            OntologyDataset(
                ontology_id=ontology.id,
                name=dataset.name,
                description=dataset.description,
                source=dataset.source,
                yaml=dump_dataset_yaml(dataset, related),
                search_text=doc.text,
                field_count=len(dataset.fields),
                embedding=vector_to_bytes(doc.vector) if doc.vector is not None else None,
                embedding_key=doc.vector_key,
                fields=[
                    OntologyField(
                        position=i,
                        name=f.name,
                        label=f.label,
                        description=f.description,
                        data_type=f.data_type.value,
                        is_primary_key=f.is_primary_key,
                    )
                    for i, f in enumerate(dataset.fields)
                ],
            )
        )
    for r in model.relationships:
        session.add(
            OntologyRelationship(
                ontology_id=ontology.id,
                name=r.name,
                from_dataset=r.from_dataset,
                from_columns=r.from_columns,
                to_dataset=r.to_dataset,
                to_columns=r.to_columns,
                cardinality=r.cardinality.value,
                source=r.source.value,
            )
        )
    for m in metric_docs:
        session.add(
            OntologyMetric(
                ontology_id=ontology.id,
                name=m.name,
                label=m.label,
                description=m.description,
                format=m.format,
                datasets=list(m.datasets),
                search_text=m.text,
                embedding=vector_to_bytes(m.vector) if m.vector is not None else None,
                embedding_key=m.vector_key,
            )
        )


async def replace_values(session: AsyncSession, ontology_id: uuid.UUID, index: ValueIndex) -> None:
    """Replace the ontology's value index with `index`."""
    await session.execute(delete(OntologyValue).where(OntologyValue.ontology_id == ontology_id))
    session.add_all(OntologyValue(ontology_id=ontology_id, **row) for row in index.to_rows())


async def values_of(session: AsyncSession, ontology_id: uuid.UUID) -> ValueIndex:
    """The ontology's value index, in the order it was stored by field."""
    rows = await session.execute(
        select(OntologyValue.dataset, OntologyValue.field, OntologyValue.value, OntologyValue.kind)
        .where(OntologyValue.ontology_id == ontology_id)
        .order_by(OntologyValue.dataset, OntologyValue.field, OntologyValue.value)
    )
    return ValueIndex.from_rows(row._asdict() for row in rows)


async def delete_ontology(session: AsyncSession, ontology: Ontology) -> None:
    """Delete an ontology (its datasets and chats go with it, by cascade)."""
    audit.record(session, ontology.owner_id, "ontology.delete", "ontology", ontology.id)
    await session.delete(ontology)


async def datasets_of(
    session: AsyncSession, ontology_id: uuid.UUID, names: list[str] | None = None
) -> list[OntologyDataset]:
    """The datasets of an ontology (all, or those named), by name, with their fields."""
    query = (
        select(OntologyDataset)
        .where(OntologyDataset.ontology_id == ontology_id)
        .options(selectinload(OntologyDataset.fields))
        .order_by(OntologyDataset.name)
    )
    if names is not None:
        query = query.where(OntologyDataset.name.in_(names))
    return list(await session.scalars(query))


async def relationships_of(
    session: AsyncSession, ontology_id: uuid.UUID
) -> list[OntologyRelationship]:
    """The relationships of an ontology."""
    rows = await session.scalars(
        select(OntologyRelationship)
        .where(OntologyRelationship.ontology_id == ontology_id)
        .order_by(OntologyRelationship.name)
    )
    return list(rows)


async def search_rows(session: AsyncSession, ontology_id: uuid.UUID) -> list[StoredDoc]:
    """The stored name, search text, embedding bytes and key of each dataset."""
    rows = await session.execute(
        select(
            OntologyDataset.name,
            OntologyDataset.search_text,
            OntologyDataset.embedding,
            OntologyDataset.embedding_key,
        )
        .where(OntologyDataset.ontology_id == ontology_id)
        .order_by(OntologyDataset.name)
    )
    return [(name, text, vector, key) for name, text, vector, key in rows.all()]


async def metric_docs_of(session: AsyncSession, ontology_id: uuid.UUID) -> list[MetricDoc]:
    """The stored metrics of an ontology as search reads them, by name."""
    rows = await session.scalars(
        select(OntologyMetric)
        .where(OntologyMetric.ontology_id == ontology_id)
        .order_by(OntologyMetric.name)
    )
    return [
        MetricDoc(
            name=m.name,
            text=m.search_text,
            vector=vector_from_bytes(m.embedding) if m.embedding else None,
            vector_key=m.embedding_key,
            label=m.label,
            description=m.description,
            format=m.format,
            datasets=tuple(m.datasets),
        )
        for m in rows
    ]


async def stale_ontology_ids(
    session: AsyncSession, provider_name: str, force: bool = False
) -> list[uuid.UUID]:
    """Ontologies whose embeddings are missing or were made by another provider."""
    query = select(Ontology.id).where(Ontology.semantic_model_id.is_not(None))
    if not force:
        missing = select(OntologyDataset.ontology_id).where(OntologyDataset.embedding.is_(None))
        no_metric = select(OntologyMetric.ontology_id).where(OntologyMetric.embedding.is_(None))
        query = query.where(
            (Ontology.embedding_provider.is_(None))
            | (Ontology.embedding_provider != provider_name)
            | Ontology.id.in_(missing)
            | Ontology.id.in_(no_metric)
        )
    return list(await session.scalars(query.order_by(Ontology.created_at)))
