"""Ontologies: build status, the graph, search hits (datasets and metrics), suggested
questions, datasets, join paths, compiled plans."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from pydantic import Field

from dataagent.api.schemas import HAS_TEXT, ApiInput, ApiModel, JsonBool
from dataagent.api.schemas.queries import MaxRows, QueryOutput
from dataagent.ontology.retrieval import Ranking
from dataagent.semantic.compiler import CompiledWindow
from dataagent.semantic.joins import JoinPath
from dataagent.semantic.model import MetricFormat
from dataagent.semantic.plan import QueryPlan
from dataagent.store.models import Ontology, OntologyDataset, OntologyRelationship
from dataagent.vocabulary import OntologyAccessKind, OntologyStatus


class OntologyOwner(ApiModel):
    """Who owns an ontology (and its connection and semantic model)."""

    id: uuid.UUID
    email: str


class OntologyPublic(ApiModel):
    """An ontology and its build status, and how the caller reaches it."""

    id: uuid.UUID
    name: str
    description: str | None
    status: OntologyStatus
    error: str | None
    semantic_model_id: uuid.UUID | None
    dataset_count: int
    relationship_count: int
    embedding_provider: str | None
    created_at: datetime
    updated_at: datetime
    access: OntologyAccessKind = Field(
        description="`owner`: the caller's own; `shared`: shared with them (directly or "
        "through a group), to read and ask about, nothing else."
    )
    owner: OntologyOwner


def ontology_public(
    ontology: Ontology, access: OntologyAccessKind, owner_email: str
) -> OntologyPublic:
    """The public view of an ontology as one caller reaches it."""
    return OntologyPublic.model_validate(
        {
            **{
                k: getattr(ontology, k) for k in OntologyPublic.model_fields if hasattr(ontology, k)
            },
            "access": access,
            "owner": OntologyOwner(id=ontology.owner_id, email=owner_email),
        }
    )


class OntologyCreate(ApiInput):
    """Build an ontology from one of the caller's semantic models."""

    semantic_model_id: uuid.UUID
    name: str = Field(min_length=1, max_length=255, pattern=HAS_TEXT)
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


class SuggestionPublic(ApiModel):
    """A question to offer about an ontology: a card's title and line, and the prompt."""

    title: str
    description: str
    prompt: str


class SearchHit(ApiModel):
    """A dataset and how well it matches the question.

    `viaMetric` names the metric whose score it took when that metric (which reads this
    dataset) matched the question better than the dataset itself did.
    """

    name: str
    score: float
    cosine: float
    keyword: float
    via_metric: str | None = None


class MetricHit(ApiModel):
    """A metric of the semantic model, the datasets it reads, and how well it matches."""

    name: str
    label: str | None
    description: str | None
    format: MetricFormat
    datasets: list[str]
    score: float
    cosine: float
    keyword: float


class SearchResult(ApiModel):
    """The datasets and the metrics most relevant to a question, best first."""

    datasets: list[SearchHit]
    metrics: list[MetricHit]


def search_result(ranking: Ranking) -> SearchResult:
    """A search's ranking as the API shows it."""
    return SearchResult(
        datasets=[
            SearchHit(
                name=h.name,
                score=h.score,
                cosine=h.cosine,
                keyword=h.keyword,
                via_metric=h.via_metric,
            )
            for h in ranking.datasets
        ],
        metrics=[
            MetricHit(
                name=m.name,
                label=m.label,
                description=m.description,
                format=MetricFormat(m.format),
                datasets=list(m.datasets),
                score=m.score,
                cosine=m.cosine,
                keyword=m.keyword,
            )
            for m in ranking.metrics
        ],
    )


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
    """State the plan's own rules (a metric, measure or dimension; a comparison needs a time
    window) where clients read the schema.

    The reference moves into `allOf`: tools reading OpenAPI ignore a `$ref`'s siblings.
    """
    compare_needs_window = {
        "if": {"required": ["compare"], "properties": {"compare": {"type": "string"}}},
        "then": {"required": ["time_window"], "properties": {"time_window": {"type": "object"}}},
    }
    schema["allOf"] = [{"$ref": schema.pop("$ref")}, compare_needs_window]
    schema["anyOf"] = [
        {"required": [key], "properties": {key: {"minItems": 1}}}
        for key in ("metrics", "measures", "dimensions")
    ]


class CompileInput(ApiInput):
    """A QueryPlan to compile, and optionally run."""

    plan: QueryPlan = Field(json_schema_extra=_plan_needs_a_column)
    execute: JsonBool = False
    max_rows: MaxRows | None = None


class BackfillResult(ApiModel):
    """The ontology after its datasets were embedded again."""

    ontology: OntologyPublic


class CompileOutput(ApiModel):
    """The SQL, the join path it follows and, when executed, the result and run id."""

    sql: str
    dialect: str
    join_path: JoinPath
    columns: list[str] = Field(description="Output column names, in order.")
    pre_aggregated: bool
    time_window: CompiledWindow | None = Field(
        None, description="The dates a relative time window became, and its reference date."
    )
    notes: list[str]
    result: QueryOutput | None = None


def edge_public(r: OntologyRelationship) -> GraphEdge:
    """A relationship as a graph edge."""
    return GraphEdge(
        id=r.name,
        source=r.from_dataset,
        target=r.to_dataset,
        from_columns=r.from_columns,
        to_columns=r.to_columns,
        cardinality=r.cardinality,
        origin=r.source,
    )


def dataset_detail_public(
    found: OntologyDataset, related: list[OntologyRelationship]
) -> DatasetDetail:
    """A dataset of an ontology with the relationships that touch it."""
    return DatasetDetail(
        name=found.name,
        description=found.description,
        source=found.source,
        yaml=found.yaml,
        fields=[FieldPublic.model_validate(f) for f in found.fields],
        relationships=[edge_public(r) for r in related],
    )
