"""Ontologies (`ontologies:*`, owner only): build, graph, search, join paths, compile."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, BackgroundTasks, Depends, Query, Request, Response
from fastapi import Path as PathParam
from pydantic import Field

from dataagent.api.deps import CipherDep, QueryPoolDep
from dataagent.api.routes.query import QueryOutput, query_output
from dataagent.api.schemas import (
    ERROR_RESPONSES,
    NO_NUL,
    POOL_RESPONSES,
    ApiInput,
    ApiModel,
    Envelope,
)
from dataagent.auth.dependencies import SessionDep, SettingsDep, require
from dataagent.auth.permissions import Permission
from dataagent.errors import not_found
from dataagent.llm.embeddings import EmbeddingProvider
from dataagent.semantic import joins
from dataagent.semantic.compiler import compile_plan
from dataagent.semantic.joins import JoinPath
from dataagent.semantic.plan import QueryPlan
from dataagent.store import ontologies, runs, semantic_models
from dataagent.store.models import Ontology, User
from dataagent.store.targets import resolve_target

router = APIRouter(prefix="/api/ontologies", tags=["ontologies"], responses=ERROR_RESPONSES)
Reader = Annotated[User, Depends(require(Permission.ONTOLOGIES_READ))]
Writer = Annotated[User, Depends(require(Permission.ONTOLOGIES_WRITE))]


def embeddings_of(request: Request) -> EmbeddingProvider:
    """The app's embedding provider (the local MiniLM unless configured otherwise)."""
    provider: EmbeddingProvider = request.app.state.embeddings()
    return provider


EmbeddingsDep = Annotated[EmbeddingProvider, Depends(embeddings_of)]


class OntologyPublic(ApiModel):
    """An ontology and its build status."""

    id: uuid.UUID
    name: str
    description: str | None
    status: str
    error: str | None
    semantic_model_id: uuid.UUID | None
    dataset_count: int
    relationship_count: int
    embedding_provider: str | None
    created_at: datetime
    updated_at: datetime


class OntologyCreate(ApiInput):
    """Build an ontology from one of the caller's semantic models."""

    semantic_model_id: uuid.UUID
    name: str = Field(min_length=1, max_length=255)
    description: str | None = Field(None, max_length=10_000)


class GraphNode(ApiModel):
    """A dataset in the graph."""

    id: str
    label: str
    description: str | None
    source: str
    field_count: int


class GraphEdge(ApiModel):
    """A relationship in the graph."""

    id: str
    source: str
    target: str
    from_columns: list[str]
    to_columns: list[str]
    cardinality: str
    origin: str


class Graph(ApiModel):
    """Nodes and edges for drawing the ontology."""

    nodes: list[GraphNode]
    edges: list[GraphEdge]


class SearchHit(ApiModel):
    """A dataset and how well it matches the question."""

    name: str
    score: float
    cosine: float
    keyword: float


class FieldPublic(ApiModel):
    """A field of a dataset."""

    name: str
    label: str | None
    description: str | None
    data_type: str
    is_primary_key: bool


class DatasetDetail(ApiModel):
    """A dataset's YAML, fields and relationships."""

    name: str
    description: str | None
    source: str
    yaml: str
    fields: list[FieldPublic]
    relationships: list[GraphEdge]


class JoinPathsInput(ApiInput):
    """Datasets to connect: two give alternative paths, three or more a connecting tree."""

    datasets: list[str] = Field(min_length=2, max_length=50)


def _plan_needs_a_column(schema: dict[str, Any]) -> None:
    """State the plan's own rule (a measure or a dimension) where clients read the schema.

    The reference moves into `allOf`: tools reading OpenAPI ignore a `$ref`'s siblings.
    """
    schema["allOf"] = [{"$ref": schema.pop("$ref")}]
    schema["anyOf"] = [
        {"required": ["measures"], "properties": {"measures": {"minItems": 1}}},
        {"required": ["dimensions"], "properties": {"dimensions": {"minItems": 1}}},
    ]


class CompileInput(ApiInput):
    """A QueryPlan to compile, and optionally run."""

    plan: QueryPlan = Field(json_schema_extra=_plan_needs_a_column)
    execute: bool = False
    max_rows: int | None = Field(None, ge=1, le=10_000)


class CompileOutput(ApiModel):
    """The SQL, the join path it follows and, when executed, the result and run id."""

    sql: str
    dialect: str
    join_path: JoinPath
    pre_aggregated: bool
    notes: list[str]
    result: QueryOutput | None = None


def _public(ontology: Ontology) -> OntologyPublic:
    return OntologyPublic.model_validate(ontology)


def _edge(r: Any) -> GraphEdge:
    return GraphEdge(
        id=r.name,
        source=r.from_dataset,
        target=r.to_dataset,
        from_columns=r.from_columns,
        to_columns=r.to_columns,
        cardinality=r.cardinality,
        origin=r.source,
    )


@router.get("", operation_id="listOntologies")
async def list_ontologies(user: Reader, session: SessionDep) -> Envelope[list[OntologyPublic]]:
    """The caller's ontologies."""
    return Envelope(data=[_public(o) for o in await ontologies.list_ontologies(session, user.id)])


@router.post("", status_code=201, operation_id="createOntology")
async def create_ontology(
    user: Writer,
    session: SessionDep,
    request: Request,
    tasks: BackgroundTasks,
    embeddings: EmbeddingsDep,
    body: OntologyCreate,
) -> Envelope[OntologyPublic]:
    """Start building an ontology; it is `building` until it turns `ready` or `failed`."""
    await semantic_models.get_semantic_model(session, user.id, body.semantic_model_id)
    ontology = await ontologies.create_from_semantic_model(
        session, user.id, body.semantic_model_id, body.name, body.description
    )
    tasks.add_task(ontologies.build_ontology, request.app.state.database, ontology.id, embeddings)
    return Envelope(data=_public(ontology))


@router.get("/{ontology_id}", operation_id="getOntology")
async def get_ontology(
    user: Reader, session: SessionDep, ontology_id: uuid.UUID
) -> Envelope[OntologyPublic]:
    """One ontology and its status."""
    return Envelope(
        data=_public(await ontologies.get_owned_ontology(session, user.id, ontology_id))
    )


@router.delete("/{ontology_id}", status_code=204, operation_id="deleteOntology")
async def delete_ontology(user: Writer, session: SessionDep, ontology_id: uuid.UUID) -> Response:
    """Delete an ontology and its chats."""
    ontology = await ontologies.get_owned_ontology(session, user.id, ontology_id)
    await ontologies.delete_ontology(session, ontology)
    return Response(status_code=204)


@router.post("/{ontology_id}/rebuild", status_code=202, operation_id="rebuildOntology")
async def rebuild_ontology(
    user: Writer,
    session: SessionDep,
    request: Request,
    tasks: BackgroundTasks,
    embeddings: EmbeddingsDep,
    ontology_id: uuid.UUID,
) -> Envelope[OntologyPublic]:
    """Rebuild from the current semantic model (picks up YAML edits, re-embeds)."""
    ontology = await ontologies.get_owned_ontology(session, user.id, ontology_id)
    await ontologies.mark_building(session, ontology)
    tasks.add_task(ontologies.build_ontology, request.app.state.database, ontology.id, embeddings)
    return Envelope(data=_public(ontology))


@router.get("/{ontology_id}/graph", operation_id="getOntologyGraph")
async def graph(user: Reader, session: SessionDep, ontology_id: uuid.UUID) -> Envelope[Graph]:
    """Datasets as nodes and relationships as edges."""
    ontology = await ontologies.get_owned_ontology(session, user.id, ontology_id)
    datasets = await ontologies.datasets_of(session, ontology.id)
    relationships = await ontologies.relationships_of(session, ontology.id)
    nodes = [
        GraphNode(
            id=d.name,
            label=d.name,
            description=d.description,
            source=d.source,
            field_count=d.field_count,
        )
        for d in datasets
    ]
    return Envelope(data=Graph(nodes=nodes, edges=[_edge(r) for r in relationships]))


@router.get("/{ontology_id}/search", operation_id="searchOntology")
async def search(
    user: Reader,
    session: SessionDep,
    embeddings: EmbeddingsDep,
    ontology_id: uuid.UUID,
    q: Annotated[str, Query(min_length=1, max_length=2000, pattern=NO_NUL)],
    k: Annotated[int, Query(ge=1, le=100)] = 10,
) -> Envelope[list[SearchHit]]:
    """The datasets of this ontology most relevant to a question."""
    ontology = await ontologies.get_owned_ontology(session, user.id, ontology_id)
    hits = await ontologies.search(session, ontology, q, embeddings, k)
    return Envelope(
        data=[
            SearchHit(name=h.name, score=h.score, cosine=h.cosine, keyword=h.keyword) for h in hits
        ]
    )


@router.get("/{ontology_id}/datasets/{name}", operation_id="getOntologyDataset")
async def dataset(
    user: Reader,
    session: SessionDep,
    ontology_id: uuid.UUID,
    name: Annotated[str, PathParam(pattern=NO_NUL)],
) -> Envelope[DatasetDetail]:
    """A dataset's YAML, fields and relationships."""
    ontology = await ontologies.get_owned_ontology(session, user.id, ontology_id)
    found = next(
        (d for d in await ontologies.datasets_of(session, ontology.id) if d.name == name), None
    )
    if found is None:
        raise not_found("Dataset")
    related = [
        _edge(r)
        for r in await ontologies.relationships_of(session, ontology.id)
        if name in (r.from_dataset, r.to_dataset)
    ]
    return Envelope(
        data=DatasetDetail(
            name=found.name,
            description=found.description,
            source=found.source,
            yaml=found.yaml,
            fields=[FieldPublic.model_validate(f) for f in found.fields],
            relationships=related,
        )
    )


@router.post("/{ontology_id}/join-paths", operation_id="findJoinPaths")
async def join_paths(
    user: Reader, session: SessionDep, ontology_id: uuid.UUID, body: JoinPathsInput
) -> Envelope[list[JoinPath]]:
    """Up to 3 shortest paths between two datasets, or the connecting tree of 3 or more."""
    ontology = await ontologies.get_owned_ontology(session, user.id, ontology_id)
    return Envelope(data=joins.join_paths(ontologies.ready_model(ontology), body.datasets))


@router.post("/{ontology_id}/compile", operation_id="compilePlan", responses=POOL_RESPONSES)
async def compile_query(
    user: Reader,
    session: SessionDep,
    settings: SettingsDep,
    cipher: CipherDep,
    pool: QueryPoolDep,
    ontology_id: uuid.UUID,
    body: CompileInput,
) -> Envelope[CompileOutput]:
    """Compile a QueryPlan to SQL for the ontology's dialect; `execute: true` also runs it."""
    ontology = await ontologies.get_owned_ontology(session, user.id, ontology_id)
    model = ontologies.ready_model(ontology)
    compiled = compile_plan(body.plan, model, model.dialect)
    output = CompileOutput(
        sql=compiled.sql,
        dialect=compiled.dialect,
        join_path=compiled.join_path,
        pre_aggregated=compiled.pre_aggregated,
        notes=compiled.notes,
    )
    if body.execute:
        target = await resolve_target(session, cipher, settings, user.id, None, ontology.id)
        result, run = await runs.execute_and_record(
            session,
            settings,
            pool,
            user.id,
            target,
            compiled.sql,
            max_rows=body.max_rows,
            mode="plan",
            plan=body.plan.model_dump(mode="json"),
        )
        output.result = query_output(result, run)
    return Envelope(data=output)
