"""Ontologies: create and build them, check they are ready, search them, read their parts.

A build runs in the background as a durable run (`AppContext.builds`), wherever it was
started (the API, the command line, the demo set-up), which the run reaper fails
(INTERRUPTED) when its process stopped; a build is recorded in the same transaction that
sets its ontology `building`, and its run executes `build_ontology`.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import uuid
from collections.abc import Awaitable, Callable, Sequence

from sqlalchemy.ext.asyncio import AsyncSession

from dataagent.errors import DataAgentError, ErrorCode, not_found
from dataagent.llm.embeddings import EmbeddingProvider, Matrix
from dataagent.ontology.metrics import metric_docs
from dataagent.ontology.retrieval import DatasetIndex, Ranking, dataset_docs, embed_datasets
from dataagent.ontology.values import ValueIndex
from dataagent.semantic.joins import JoinPath, join_paths
from dataagent.semantic.model import SemanticModel, without_samples
from dataagent.semantic.suggestions import Suggestion, suggest_questions
from dataagent.semantic.yaml_io import dump_dataset_yaml, load_yaml
from dataagent.services.builds import BuildJobs
from dataagent.services.context import AppContext
from dataagent.services.index_cache import IndexCache
from dataagent.store import ontologies, semantic_models, shares, users
from dataagent.store.models import (
    Ontology,
    OntologyDataset,
    OntologyRelationship,
    SemanticModelRecord,
    User,
)
from dataagent.store.shares import OntologyAccess

log = logging.getLogger(__name__)

INTERRUPTED = "The build was interrupted (the server stopped); rebuild the ontology."

# Reads the value index of an ontology being built (`services.value_index.read_values`).
ValueReader = Callable[[AppContext, AsyncSession, Ontology, SemanticModel], Awaitable[ValueIndex]]


async def get_own_ontology(
    session: AsyncSession, owner_id: uuid.UUID, ontology_id: uuid.UUID
) -> Ontology:
    """The caller's own ontology, or NOT_FOUND (also when it is only shared with them): for
    what only its owner may do (rebuild, delete, share)."""
    return await ontologies.get_owned_ontology(session, owner_id, ontology_id)


async def reach(
    session: AsyncSession, user_id: uuid.UUID, ontology_id: uuid.UUID
) -> OntologyAccess:
    """The ontology as the caller reaches it: their own or shared with them (to read it and
    ask about it); NOT_FOUND otherwise. Read from the database on every call."""
    return await shares.reach(session, user_id, ontology_id)


async def list_ontologies(session: AsyncSession, user_id: uuid.UUID) -> list[OntologyAccess]:
    """The ontologies the caller reaches, their own and shared with them, newest first."""
    return await shares.reachable(session, user_id)


async def owner_emails(session: AsyncSession, owner_ids: set[uuid.UUID]) -> dict[uuid.UUID, str]:
    """The email of each owner an ontology listing names."""
    return await shares.owner_emails(session, owner_ids)


def access_model(access: OntologyAccess) -> SemanticModel:
    """The semantic model of a ready ontology as this person may see it: whole for its owner
    and unrestricted grantees; for a grantee under a database role, without what was read
    with the owner's account (sample values, distinct and row counts)."""
    text = require_ready(access.ontology)
    return _restricted_model(text) if access.restricted else _parse_model(text)


# --- the ontology a stateless chat asks about ---------------------------------------------------


async def set_default_ontology(
    session: AsyncSession, user: User, ontology_id: uuid.UUID | None
) -> User:
    """Set (or clear, with None) the ontology the person's stateless chat asks about when the
    request names none, and commit; NOT_FOUND for an ontology that is not theirs."""
    if ontology_id is not None:
        await reach(session, user.id, ontology_id)
    await users.set_default_ontology(session, user.id, ontology_id)
    await session.commit()
    await session.refresh(user)
    return user


async def chat_ontology(
    session: AsyncSession, user: User, ontology_id: uuid.UUID | None
) -> OntologyAccess:
    """The ready ontology a stateless chat asks about: the one named, else the person's
    default, else their only ready one (their own or shared with them). NOT_FOUND for one
    they do not reach, VALIDATION_ERROR for one not ready, or, when none is named and they
    have no default, unless exactly one they reach is ready (the sentence names those they
    can choose from)."""
    chosen = ontology_id if ontology_id is not None else user.default_ontology_id
    if chosen is not None:
        access = await reach(session, user.id, chosen)
        require_ready(access.ontology)
        return access
    ready = [a for a in await list_ontologies(session, user.id) if a.ontology.status == "ready"]
    if len(ready) == 1:
        return ready[0]
    if not ready:
        raise DataAgentError(
            ErrorCode.VALIDATION_ERROR,
            "You have no ready ontology to ask about; build one first (POST /api/ontologies).",
        )
    names = ", ".join(sorted(f"{a.ontology.name!r} ({a.ontology.id})" for a in ready))
    raise DataAgentError(
        ErrorCode.VALIDATION_ERROR,
        "Name the ontology to ask about (ontologyId) or set your default "
        f"(PUT /api/me/default-ontology); you can choose from: {names}.",
    )


# --- readiness: the one check -----------------------------------------------------------------


def require_ready(ontology: Ontology) -> str:
    """The frozen model YAML of a ready ontology; VALIDATION_ERROR while it is not ready."""
    if ontology.status != "ready" or not ontology.model_yaml:
        raise DataAgentError(
            ErrorCode.VALIDATION_ERROR, f"The ontology is {ontology.status}, not ready."
        )
    return ontology.model_yaml


def ready_model(ontology: Ontology) -> SemanticModel:
    """The semantic model of a ready ontology; VALIDATION_ERROR while it is not ready."""
    return _parse_model(require_ready(ontology))


async def suggestions(
    session: AsyncSession, user_id: uuid.UUID, ontology_id: uuid.UUID, limit: int
) -> list[Suggestion]:
    """Questions to offer about a ready ontology the caller reaches, drawn from its semantic
    model as they may see it."""
    access = await reach(session, user_id, ontology_id)
    return suggest_questions(access_model(access), limit)


@functools.lru_cache(maxsize=8)
def _parse_model(text: str) -> SemanticModel:
    # Parsing a 1,000-table model takes about a second; every request of a chat reuses it.
    return load_yaml(text)


@functools.lru_cache(maxsize=8)
def _restricted_model(text: str) -> SemanticModel:
    return without_samples(_parse_model(text))


async def _embedder(ctx: AppContext, provider: EmbeddingProvider | None) -> EmbeddingProvider:
    """The given provider, or the app's (loading it off the event loop the first time)."""
    if provider is not None:
        return provider
    return await asyncio.to_thread(lambda: ctx.embeddings)


# --- building ----------------------------------------------------------------------------------


def _builds(ctx: AppContext) -> BuildJobs:
    if ctx.builds is None:
        raise RuntimeError("building an ontology needs the run system (RunSystem.install)")
    return ctx.builds


ALREADY_BUILDING = (
    "The ontology is already building: wait for that build to end (its events are at "
    "GET /api/ontologies/{id}/build/events), then build it again."
)


async def _start_build(
    ctx: AppContext,
    session: AsyncSession,
    owner_id: uuid.UUID,
    ontology: Ontology,
    *,
    new: bool = False,
) -> None:
    """Set the ontology `building` and record its build run in one commit, then start it.

    An existing ontology that is building already is CONFLICT: two builds of one ontology
    would replace each other's rows."""
    if not new and not await ontologies.claim_for_build(session, ontology):
        raise DataAgentError(ErrorCode.CONFLICT, ALREADY_BUILDING)
    builds = _builds(ctx)
    run_id = await builds.record(session, owner_id, ontology.id)
    await session.commit()
    await builds.start(ontology.id, run_id)


async def create_ontology(
    ctx: AppContext,
    session: AsyncSession,
    owner_id: uuid.UUID,
    semantic_model_id: uuid.UUID,
    name: str,
    description: str | None,
) -> Ontology:
    """Record an ontology of one of the caller's semantic models and start building it."""
    await semantic_models.get_semantic_model(session, owner_id, semantic_model_id)
    ontology = await ontologies.add_ontology(
        session, owner_id, semantic_model_id, name, description
    )
    await _start_build(ctx, session, owner_id, ontology, new=True)
    return ontology


async def rebuild_ontology(
    ctx: AppContext, session: AsyncSession, owner_id: uuid.UUID, ontology_id: uuid.UUID
) -> Ontology:
    """Build again from the current semantic model (picks up YAML edits, re-embeds)."""
    ontology = await get_own_ontology(session, owner_id, ontology_id)
    await _start_build(ctx, session, owner_id, ontology)
    return ontology


async def wait_for_build(ctx: AppContext, ontology_id: uuid.UUID) -> None:
    """Wait for the ontology's build started in this process to end."""
    await _builds(ctx).wait(ontology_id)


async def build_ontology(
    ctx: AppContext,
    ontology_id: uuid.UUID,
    provider: EmbeddingProvider | None = None,
    *,
    read_values: ValueReader,
) -> None:
    """Build datasets, fields, relationships, metrics, embeddings and the value index; end
    in `ready` or `failed`.

    In its own database session: it outlives the request that started it. `read_values`
    reads the value index from the ontology's database (the build run passes
    `services.value_index.read_values`, which needs the connections this module cannot
    import).
    """
    async with ctx.database.session() as session:
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
            embedder = await _embedder(ctx, provider)
            docs = await asyncio.to_thread(embed_datasets, embedder, dataset_docs(model))
            metrics = await asyncio.to_thread(embed_datasets, embedder, metric_docs(model))
            await ontologies.replace_graph(session, ontology, model, docs, metrics)
            await ontologies.replace_values(
                session, ontology.id, await read_values(ctx, session, ontology, model)
            )
            ontology.model_yaml = record.yaml
            ontology.dataset_count = len(model.datasets)
            ontology.relationship_count = len(model.relationships)
            ontology.embedding_provider = embedder.name
            ontology.status = "ready"
            ontology.error = None
            await session.commit()
        except Exception as exc:  # not a cancellation (shutdown): the next start marks that
            await session.rollback()
            log.warning("ontology %s failed to build: %s", ontology_id, exc)
            ontology = await session.get(Ontology, ontology_id)
            if ontology is not None:
                ontology.status = "failed"
                ontology.error = (
                    exc.message if isinstance(exc, DataAgentError) else "The build failed."
                )
                await session.commit()


async def backfill_embeddings(
    ctx: AppContext, session: AsyncSession, ontology_id: uuid.UUID
) -> Ontology:
    """Build one ontology again (any owner's: for admins) with the configured embedding
    provider, as a build run of its owner's, and wait for it to end."""
    ontology = await session.get(Ontology, ontology_id)
    if ontology is None:
        raise not_found("Ontology")
    if ontology.semantic_model_id is None:
        raise DataAgentError(
            ErrorCode.VALIDATION_ERROR, "The ontology has no semantic model to embed."
        )
    await _start_build(ctx, session, ontology.owner_id, ontology)
    await wait_for_build(ctx, ontology.id)
    await session.refresh(ontology)
    return ontology


async def backfill_stale(ctx: AppContext, force: bool = False) -> int:
    """Build again, one after the other, every ontology whose embeddings are missing or from
    another provider (every one with `force`); how many were."""
    provider = await _embedder(ctx, None)
    async with ctx.database.session() as session:
        ids = await ontologies.stale_ontology_ids(session, provider.name, force)
        for ontology_id in ids:
            await backfill_embeddings(ctx, session, ontology_id)
    return len(ids)


async def delete_ontology(
    session: AsyncSession, owner_id: uuid.UUID, ontology_id: uuid.UUID
) -> None:
    """Delete an ontology, its chats and its shares, and commit."""
    ontology = await get_own_ontology(session, owner_id, ontology_id)
    await ontologies.delete_ontology(session, ontology)
    await session.commit()


# --- reading a built ontology ----------------------------------------------------------------


async def graph(
    session: AsyncSession, user_id: uuid.UUID, ontology_id: uuid.UUID
) -> tuple[list[OntologyDataset], list[OntologyRelationship]]:
    """The datasets (nodes) and relationships (edges) of an ontology the caller reaches."""
    return await graph_of(session, await reach(session, user_id, ontology_id))


async def graph_of(
    session: AsyncSession, access: OntologyAccess
) -> tuple[list[OntologyDataset], list[OntologyRelationship]]:
    """The datasets and relationships of an ontology whose access was checked (an answer
    checks it once, when it starts), as this person may see them (`datasets_by_name`)."""
    ontology = access.ontology
    datasets = await ontologies.datasets_of(session, ontology.id)
    if access.restricted:
        model = access_model(access)
        datasets = [_restricted_copy(model, d) for d in datasets]
    return datasets, await ontologies.relationships_of(session, ontology.id)


async def datasets_by_name(
    session: AsyncSession, access: OntologyAccess, names: Sequence[str]
) -> list[OntologyDataset]:
    """The YAML and fields of these datasets, in the order asked (unknown names skipped), as
    this person may see them (`access_model`)."""
    stored = await ontologies.datasets_of(session, access.ontology.id, list(names))
    found = {d.name: d for d in stored}
    ordered = [found[name] for name in dict.fromkeys(names) if name in found]
    if access.restricted:
        model = access_model(access)
        return [_restricted_copy(model, d) for d in ordered]
    return ordered


async def dataset_detail(
    session: AsyncSession, user_id: uuid.UUID, ontology_id: uuid.UUID, name: str
) -> tuple[OntologyDataset, list[OntologyRelationship]]:
    """One dataset of an ontology the caller reaches and the relationships that touch it.

    For a grantee under a database role, the dataset's YAML is written again from the model
    as they may see it (no sample values or counts; see `access_model`)."""
    access = await reach(session, user_id, ontology_id)
    found = await datasets_by_name(session, access, [name])
    if not found:
        raise not_found("Dataset")
    related = [
        r
        for r in await ontologies.relationships_of(session, access.ontology.id)
        if name in (r.from_dataset, r.to_dataset)
    ]
    return found[0], related


def _restricted_copy(model: SemanticModel, dataset: OntologyDataset) -> OntologyDataset:
    """A detached copy of a dataset row whose YAML and description come from the restricted
    model (`access_model`)."""
    shown = model.dataset(dataset.name)
    relationships = [
        r for r in model.relationships if dataset.name in (r.from_dataset, r.to_dataset)
    ]
    copy = OntologyDataset(
        id=dataset.id,
        ontology_id=dataset.ontology_id,
        name=dataset.name,
        # A generated description states the row count the owner's account read.
        description=shown.description if shown is not None else None,
        source=dataset.source,
        yaml=dump_dataset_yaml(shown, relationships) if shown is not None else "",
        search_text="",
        field_count=dataset.field_count,
    )
    copy.fields = list(dataset.fields)
    return copy


async def find_join_paths(
    session: AsyncSession, user_id: uuid.UUID, ontology_id: uuid.UUID, names: Sequence[str]
) -> list[JoinPath]:
    """Alternative paths between two datasets, or the tree connecting three or more."""
    access = await reach(session, user_id, ontology_id)
    return join_paths(ready_model(access.ontology), names)


async def search(
    ctx: AppContext,
    session: AsyncSession,
    ontology: Ontology,
    question: str,
    k: int = 10,
    provider: EmbeddingProvider | None = None,
) -> Ranking:
    """The datasets and metrics of this ontology (and no other) most relevant to the question."""
    query = await embed_question(ctx, ontology, question, provider)
    return await rank(ctx, session, ontology, question, query, k)


async def embed_question(
    ctx: AppContext,
    ontology: Ontology,
    question: str,
    provider: EmbeddingProvider | None = None,
) -> Matrix:
    """The question's vector, by the provider that embedded this ontology (CONFLICT when the
    ontology was embedded by another). Needs no database session: a caller that has none
    open holds no connection while the model embeds."""
    require_ready(ontology)
    embedder = await _embedder(ctx, provider)
    if ontology.embedding_provider != embedder.name:
        raise DataAgentError(
            ErrorCode.CONFLICT,
            "The ontology was embedded with another provider: rebuild it "
            "(or run `dataagent ontology backfill`).",
        )
    return await asyncio.to_thread(embedder.embed_query, question)


async def rank(
    ctx: AppContext,
    session: AsyncSession,
    ontology: Ontology,
    question: str,
    query: Matrix,
    k: int = 10,
) -> Ranking:
    """The ontology's datasets and metrics ranked for the question and its vector."""
    index = await _index(ctx, session, ontology)
    if not len(index):
        return Ranking([], [])
    return index.rank(question, query, k)


_VALUE_INDEXES: IndexCache[ValueIndex] = IndexCache()


async def value_index(session: AsyncSession, access: OntologyAccess) -> ValueIndex:
    """The value index of an ontology's last build (empty before its first), cached per build.

    Empty for a grantee under a database role: it was read with the owner's account."""
    if access.restricted:
        return ValueIndex.from_rows([])
    ontology = await session.get(Ontology, access.ontology.id)
    if ontology is None:
        raise not_found("Ontology")
    cached = _VALUE_INDEXES.get(ontology.id, ontology.updated_at)
    if cached is not None:
        return cached
    index = await ontologies.values_of(session, ontology.id)
    _VALUE_INDEXES.put(ontology.id, ontology.updated_at, index)
    return index


async def _index(ctx: AppContext, session: AsyncSession, ontology: Ontology) -> DatasetIndex:
    cached = ctx.search_indexes.get(ontology.id, ontology.updated_at)
    if cached is not None:
        return cached
    index = DatasetIndex.from_rows(
        await ontologies.search_rows(session, ontology.id),
        await ontologies.metric_docs_of(session, ontology.id),
    )
    ctx.search_indexes.put(ontology.id, ontology.updated_at, index)
    return index
