"""Ontologies: built from a semantic model into datasets, fields, relationships, embeddings."""

from __future__ import annotations

import asyncio
import functools
import logging
import uuid
from collections import OrderedDict, defaultdict
from datetime import datetime

from sqlalchemy import delete, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import selectinload

from dataagent.errors import DataAgentError, ErrorCode
from dataagent.llm.embeddings import EmbeddingProvider
from dataagent.ontology.retrieval import (
    DatasetDoc,
    DatasetIndex,
    ScoredDataset,
    dataset_docs,
    embed_datasets,
    vector_to_bytes,
)
from dataagent.semantic.model import Relationship, SemanticModel
from dataagent.semantic.yaml_io import dump_dataset_yaml, load_yaml
from dataagent.store import audit
from dataagent.store.database import Database
from dataagent.store.models import (
    Ontology,
    OntologyDataset,
    OntologyField,
    OntologyRelationship,
    SemanticModelRecord,
)
from dataagent.store.ownership import get_owned

log = logging.getLogger(__name__)


async def get_owned_ontology(
    session: AsyncSession, owner_id: uuid.UUID, ontology_id: uuid.UUID
) -> Ontology:
    """The caller's ontology, or NOT_FOUND (also when someone else owns it)."""
    return await get_owned(session, Ontology, owner_id, ontology_id, "Ontology")


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


async def list_ontologies(session: AsyncSession, owner_id: uuid.UUID) -> list[Ontology]:
    """The caller's ontologies, newest first."""
    rows = await session.scalars(
        select(Ontology)
        .where(Ontology.owner_id == owner_id)
        .order_by(Ontology.created_at.desc(), Ontology.id)
    )
    return list(rows)


async def create_from_semantic_model(
    session: AsyncSession,
    owner_id: uuid.UUID,
    semantic_model_id: uuid.UUID,
    name: str,
    description: str | None,
) -> Ontology:
    """An ontology record in `building`, pointing at the semantic model it is built from."""
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
    await session.commit()
    return ontology


async def mark_building(session: AsyncSession, ontology: Ontology) -> None:
    """Put an ontology back into `building` before a rebuild."""
    ontology.status = "building"
    ontology.error = None
    await session.commit()


async def build_ontology(
    database: Database, ontology_id: uuid.UUID, provider: EmbeddingProvider
) -> None:
    """Build datasets, fields, relationships and embeddings; end in `ready` or `failed`."""
    async with database.session() as session:
        ontology = await session.get(Ontology, ontology_id)
        if ontology is None:
            return
        try:
            record = (
                await session.get(SemanticModelRecord, ontology.semantic_model_id)
                if ontology.semantic_model_id
                else None
            )
            if record is None:
                raise DataAgentError(
                    ErrorCode.VALIDATION_ERROR, "The ontology's semantic model no longer exists."
                )
            model = load_yaml(record.yaml)
            docs = await asyncio.to_thread(embed_datasets, provider, dataset_docs(model))
            await _replace_graph(session, ontology, model, docs)
            ontology.model_yaml = record.yaml
            ontology.dataset_count = len(model.datasets)
            ontology.relationship_count = len(model.relationships)
            ontology.embedding_provider = provider.name
            ontology.status = "ready"
            ontology.error = None
            await session.commit()
        except Exception as exc:
            await session.rollback()
            log.warning("ontology %s failed to build: %s", ontology_id, exc)
            ontology = await session.get(Ontology, ontology_id)
            if ontology is not None:
                ontology.status = "failed"
                ontology.error = (
                    exc.message if isinstance(exc, DataAgentError) else "The build failed."
                )
                await session.commit()


async def _replace_graph(
    session: AsyncSession, ontology: Ontology, model: SemanticModel, docs: list[DatasetDoc]
) -> None:
    await session.execute(delete(OntologyDataset).where(OntologyDataset.ontology_id == ontology.id))
    await session.execute(
        delete(OntologyRelationship).where(OntologyRelationship.ontology_id == ontology.id)
    )
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


async def delete_ontology(session: AsyncSession, ontology: Ontology) -> None:
    """Delete an ontology; its datasets and chats go with it (cascade)."""
    audit.record(session, ontology.owner_id, "ontology.delete", "ontology", ontology.id)
    await session.delete(ontology)
    await session.commit()


def require_ready(ontology: Ontology) -> str:
    """The frozen model YAML of a ready ontology (VALIDATION_ERROR while it is not ready)."""
    if ontology.status != "ready" or not ontology.model_yaml:
        raise DataAgentError(
            ErrorCode.VALIDATION_ERROR, f"The ontology is {ontology.status}, not ready."
        )
    return ontology.model_yaml


def ready_model(ontology: Ontology) -> SemanticModel:
    """The semantic model of a ready ontology (VALIDATION_ERROR while it is not ready)."""
    return _parse_model(require_ready(ontology))


@functools.lru_cache(maxsize=8)
def _parse_model(text: str) -> SemanticModel:
    # Parsing a 1,000-table model takes about a second; every request of a chat reuses it.
    return load_yaml(text)


async def datasets_of(session: AsyncSession, ontology_id: uuid.UUID) -> list[OntologyDataset]:
    """The datasets of an ontology, by name, with their fields."""
    rows = await session.scalars(
        select(OntologyDataset)
        .where(OntologyDataset.ontology_id == ontology_id)
        .options(selectinload(OntologyDataset.fields))
        .order_by(OntologyDataset.name)
    )
    return list(rows)


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


async def search(
    session: AsyncSession,
    ontology: Ontology,
    question: str,
    provider: EmbeddingProvider,
    k: int = 10,
) -> list[ScoredDataset]:
    """The datasets of this ontology (and no other) most relevant to the question."""
    require_ready(ontology)
    if ontology.embedding_provider != provider.name:
        raise DataAgentError(
            ErrorCode.CONFLICT,
            "The ontology was embedded with another provider: rebuild it "
            "(or run `dataagent ontology backfill`).",
        )
    index = await _index(session, ontology)
    if not len(index):
        return []
    query = await asyncio.to_thread(provider.embed_query, question)
    return index.search(question, query, k)


# Search indexes of recently searched ontologies, keyed by id and last build: a rebuild
# changes `updated_at`, so a stale index is never used.
_INDEXES: OrderedDict[tuple[uuid.UUID, datetime], DatasetIndex] = OrderedDict()
_INDEX_CACHE_SIZE = 16


async def _index(session: AsyncSession, ontology: Ontology) -> DatasetIndex:
    key = (ontology.id, ontology.updated_at)
    if key in _INDEXES:
        _INDEXES.move_to_end(key)
        return _INDEXES[key]
    rows = await session.execute(
        select(
            OntologyDataset.name,
            OntologyDataset.search_text,
            OntologyDataset.embedding,
            OntologyDataset.embedding_key,
        )
        .where(OntologyDataset.ontology_id == ontology.id)
        .order_by(OntologyDataset.name)
    )
    index = DatasetIndex.from_rows(rows.all())
    _INDEXES[key] = index
    while len(_INDEXES) > _INDEX_CACHE_SIZE:
        _INDEXES.popitem(last=False)
    return index


async def stale_ontology_ids(
    session: AsyncSession, provider_name: str, force: bool = False
) -> list[uuid.UUID]:
    """Ontologies whose embeddings are missing or were made by another provider."""
    query = select(Ontology.id).where(Ontology.semantic_model_id.is_not(None))
    if not force:
        missing = select(OntologyDataset.ontology_id).where(OntologyDataset.embedding.is_(None))
        query = query.where(
            (Ontology.embedding_provider.is_(None))
            | (Ontology.embedding_provider != provider_name)
            | Ontology.id.in_(missing)
        )
    return list(await session.scalars(query.order_by(Ontology.created_at)))
