"""Ontologies (`ontologies:*`): build (and watch the build), graph, search, suggested
questions, join paths, compile.

Its owner does everything; someone it is shared with (`store.shares`) reads it and asks
about it (get, graph, datasets, search, suggestions, join paths, compile), and gets 404 for
the rest, as does everyone else."""

from __future__ import annotations

import uuid
from typing import Annotated

from fastapi import APIRouter, Query, Response
from fastapi import Path as PathParam

from dataagent.api.deps import (
    ContextDep,
    OntologyReader,
    OntologyWriter,
    ResumeAfter,
    RunsDep,
    SessionDep,
)
from dataagent.api.schemas import (
    BUILD_RESPONSES,
    ERROR_RESPONSES,
    NO_NUL,
    POOL_RESPONSES,
    Envelope,
    json_errors,
)
from dataagent.api.schemas.ontologies import (
    CompileInput,
    CompileOutput,
    DatasetDetail,
    Graph,
    GraphNode,
    JoinPathsInput,
    OntologyCreate,
    OntologyPublic,
    SearchResult,
    SuggestionPublic,
    dataset_detail_public,
    edge_public,
    ontology_public,
    search_result,
)
from dataagent.api.schemas.queries import query_output
from dataagent.api.schemas.runs import BUILD_EVENT_RESPONSES
from dataagent.runs import builds
from dataagent.runs.sse import EventStream, event_stream
from dataagent.semantic.joins import JoinPath
from dataagent.services import ontologies, queries

router = APIRouter(prefix="/api/ontologies", tags=["ontologies"], responses=ERROR_RESPONSES)


@router.get("", operation_id="listOntologies")
async def list_ontologies(
    user: OntologyReader, session: SessionDep
) -> Envelope[list[OntologyPublic]]:
    """The ontologies the caller reaches: their own, and those shared with them (each says
    which, and who owns it)."""
    found = await ontologies.list_ontologies(session, user.id)
    emails = await ontologies.owner_emails(session, {a.owner_id for a in found})
    return Envelope(
        data=[ontology_public(a.ontology, a.kind, emails.get(a.owner_id, "")) for a in found]
    )


@router.post("", status_code=201, operation_id="createOntology")
async def create_ontology(
    user: OntologyWriter, context: ContextDep, session: SessionDep, body: OntologyCreate
) -> Envelope[OntologyPublic]:
    """Start building an ontology; it is `building` until it turns `ready` or `failed`."""
    ontology = await ontologies.create_ontology(
        context, session, user.id, body.semantic_model_id, body.name, body.description
    )
    return Envelope(data=ontology_public(ontology, "owner", user.email))


@router.get("/{ontology_id}", operation_id="getOntology")
async def get_ontology(
    user: OntologyReader, session: SessionDep, ontology_id: uuid.UUID
) -> Envelope[OntologyPublic]:
    """One ontology the caller reaches (theirs or shared with them) and its status."""
    access = await ontologies.reach(session, user.id, ontology_id)
    emails = await ontologies.owner_emails(session, {access.owner_id})
    return Envelope(
        data=ontology_public(access.ontology, access.kind, emails.get(access.owner_id, ""))
    )


@router.delete("/{ontology_id}", status_code=204, operation_id="deleteOntology")
async def delete_ontology(
    user: OntologyWriter, session: SessionDep, ontology_id: uuid.UUID
) -> Response:
    """Delete an ontology and its chats."""
    await ontologies.delete_ontology(session, user.id, ontology_id)
    return Response(status_code=204)


@router.post(
    "/{ontology_id}/rebuild",
    status_code=202,
    operation_id="rebuildOntology",
    responses=BUILD_RESPONSES,
)
async def rebuild_ontology(
    user: OntologyWriter, context: ContextDep, session: SessionDep, ontology_id: uuid.UUID
) -> Envelope[OntologyPublic]:
    """Rebuild from the current semantic model (picks up YAML edits, re-embeds)."""
    ontology = await ontologies.rebuild_ontology(context, session, user.id, ontology_id)
    return Envelope(data=ontology_public(ontology, "owner", user.email))


@router.get(
    "/{ontology_id}/build/events",
    operation_id="streamOntologyBuildEvents",
    response_class=EventStream,
    # Its errors are JSON (the router's would be filed under the stream's media type).
    responses=json_errors({**ERROR_RESPONSES, **BUILD_EVENT_RESPONSES}),
)
async def build_events(
    user: OntologyReader,
    session: SessionDep,
    system: RunsDep,
    ontology_id: uuid.UUID,
    after: ResumeAfter,
) -> EventStream:
    """Replay the ontology's latest build's events after `Last-Event-ID` (or `after`), then
    follow it live until it ends (`build_complete` or `build_error`)."""
    run = await builds.build_run(session, user.id, ontology_id)
    await session.close()
    return event_stream(system.events, run.id, after, system.heartbeat_s)


@router.get("/{ontology_id}/graph", operation_id="getOntologyGraph")
async def graph(
    user: OntologyReader, session: SessionDep, ontology_id: uuid.UUID
) -> Envelope[Graph]:
    """Datasets as nodes and relationships as edges."""
    datasets, relationships = await ontologies.graph(session, user.id, ontology_id)
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
    return Envelope(data=Graph(nodes=nodes, edges=[edge_public(r) for r in relationships]))


@router.get("/{ontology_id}/search", operation_id="searchOntology")
async def search(
    user: OntologyReader,
    context: ContextDep,
    session: SessionDep,
    ontology_id: uuid.UUID,
    q: Annotated[str, Query(min_length=1, max_length=2000, pattern=NO_NUL)],
    k: Annotated[int, Query(ge=1, le=100)] = 10,
) -> Envelope[SearchResult]:
    """The datasets and metrics of this ontology most relevant to a question (k of each)."""
    ontology = (await ontologies.reach(session, user.id, ontology_id)).ontology
    ranking = await ontologies.search(context, session, ontology, q, k)
    return Envelope(data=search_result(ranking))


@router.get("/{ontology_id}/suggestions", operation_id="getOntologySuggestions")
async def suggestions(
    user: OntologyReader,
    session: SessionDep,
    ontology_id: uuid.UUID,
    limit: Annotated[int, Query(ge=1, le=8)] = 4,
) -> Envelope[list[SuggestionPublic]]:
    """Questions to ask about this ontology, drawn from its semantic model (the same every time)."""
    found = await ontologies.suggestions(session, user.id, ontology_id, limit)
    return Envelope(data=[SuggestionPublic.model_validate(s) for s in found])


@router.get("/{ontology_id}/datasets/{name}", operation_id="getOntologyDataset")
async def dataset(
    user: OntologyReader,
    session: SessionDep,
    ontology_id: uuid.UUID,
    name: Annotated[str, PathParam(pattern=NO_NUL)],
) -> Envelope[DatasetDetail]:
    """A dataset's YAML, fields and relationships."""
    found, related = await ontologies.dataset_detail(session, user.id, ontology_id, name)
    return Envelope(data=dataset_detail_public(found, related))


@router.post("/{ontology_id}/join-paths", operation_id="findJoinPaths")
async def join_paths(
    user: OntologyReader, session: SessionDep, ontology_id: uuid.UUID, body: JoinPathsInput
) -> Envelope[list[JoinPath]]:
    """Up to 3 shortest paths between two datasets, or the connecting tree of 3 or more."""
    paths = await ontologies.find_join_paths(session, user.id, ontology_id, body.datasets)
    return Envelope(data=paths)


@router.post("/{ontology_id}/compile", operation_id="compilePlan", responses=POOL_RESPONSES)
async def compile_query(
    user: OntologyReader,
    context: ContextDep,
    session: SessionDep,
    ontology_id: uuid.UUID,
    body: CompileInput,
) -> Envelope[CompileOutput]:
    """Compile a QueryPlan to SQL for the ontology's dialect; `execute: true` also runs it."""
    compiled = await queries.compile_and_run(
        context,
        session,
        user.id,
        ontology_id,
        body.plan,
        execute=body.execute,
        max_rows=body.max_rows,
    )
    output = CompileOutput(
        sql=compiled.compiled.sql,
        dialect=compiled.compiled.dialect,
        join_path=compiled.compiled.join_path,
        columns=compiled.compiled.columns,
        pre_aggregated=compiled.compiled.pre_aggregated,
        time_window=compiled.compiled.time_window,
        notes=compiled.compiled.notes,
        result=query_output(compiled.run) if compiled.run else None,
    )
    return Envelope(data=output)
