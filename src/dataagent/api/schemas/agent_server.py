"""Seed 004's agent server: a question in (`POST /api/chat`), the answer and its query out."""

from __future__ import annotations

import uuid
from typing import Any, Final, Literal

from pydantic import ConfigDict, Field, model_validator
from pydantic.json_schema import SkipJsonSchema

from dataagent.agent.events import SERVER_EVENTS
from dataagent.agent.plan_agent import ServerStatus
from dataagent.api.schemas import (
    HAS_TEXT,
    POOL_RESPONSES,
    ApiInput,
    ApiModel,
    ErrorBody,
    json_errors,
)
from dataagent.api.schemas.runs import sse_event_schema
from dataagent.vocabulary import QueryMode


class AgentServerChatRequest(ApiInput):
    """A question about one of the caller's ontologies or file datasets (exactly one), in a
    new thread or continuing `threadId`."""

    model_config = ConfigDict(
        json_schema_extra={"oneOf": [{"required": ["ontologyId"]}, {"required": ["datasetId"]}]}
    )

    ontology_id: uuid.UUID | SkipJsonSchema[None] = None
    dataset_id: uuid.UUID | SkipJsonSchema[None] = None
    thread_id: uuid.UUID | None = None
    message: str = Field(min_length=1, max_length=10_000, pattern=HAS_TEXT)

    @model_validator(mode="after")
    def _one_source(self) -> AgentServerChatRequest:
        if (self.ontology_id is None) == (self.dataset_id is None):
            raise ValueError("give exactly one of ontologyId or datasetId")
        return self

    @property
    def source(self) -> tuple[Literal["ontology", "dataset"], uuid.UUID]:
        """Which kind of source the question is about, and its id."""
        if self.ontology_id is not None:
            return "ontology", self.ontology_id
        assert self.dataset_id is not None
        return "dataset", self.dataset_id


class AgentServerResult(ApiModel):
    """The rows of the query that produced the answer (empty when none ran)."""

    columns: list[str]
    rows: list[list[Any]]
    row_count: int
    exec_time_ms: int
    error: str | None = Field(description="Always null here: a failed query is an error.")


class AgentServerDetails(ApiModel):
    """How the result was asked for: a QueryPlan compiled to SQL, or SQL as written."""

    query_mode: QueryMode | None = Field(description="Null when no query ran.")
    plan_json: dict[str, Any] | None
    compiled_sql: str | None


class AgentServerAnswer(ApiModel):
    """The answer: its text, how it ended (`succeeded`: a query ran; `answered`: the model
    replied without one; `abstained`: without a model, the question was not understood well
    enough to answer, and `message` says what was understood and what to ask instead), the
    thread to continue, and the run capsule (`GET /api/runs/{runId}`) of its query."""

    thread_id: uuid.UUID
    message: str
    run_id: uuid.UUID | None
    status: ServerStatus
    result: AgentServerResult
    details: AgentServerDetails


_FRAMES = (
    "One Server-Sent Event per stored event (`id: <seq>`): `status` {stage} with planning, "
    "validating, executing (validating and executing again for each further query), "
    "`result` (the body of POST /api/chat), then `done` {status}; a failure ends the stream "
    "with `error` {code, message, runId?} instead. A `: heartbeat` comment on a quiet stream "
    "(docs/events.md)."
)

_ERRORS: Final[dict[int | str, dict[str, Any]]] = {
    400: {
        "model": ErrorBody,
        "description": "Not exactly one of ontologyId/datasetId, the ontology is not ready, "
        "the thread is about another source, or the SQL asked for was refused "
        "(SQL_POLICY_VIOLATION) or failed (QUERY_FAILED)",
    },
    404: {"model": ErrorBody, "description": "No such ontology, dataset or thread of yours"},
    408: {"model": ErrorBody, "description": "The query took too long (RUNNER_TIMEOUT)"},
    429: {
        "model": ErrorBody,
        "description": "A chat answer of yours is already streaming, or too many of your "
        "queries are running",
    },
}

CHAT_RESPONSES: Final[dict[int | str, dict[str, Any]]] = {
    **_ERRORS,
    502: POOL_RESPONSES[502],
}

STREAM_RESPONSES: Final[dict[int | str, dict[str, Any]]] = json_errors(
    {
        200: {
            "description": "The request's events as Server-Sent Events",
            "content": {
                "text/event-stream": {
                    "schema": sse_event_schema(SERVER_EVENTS, resumable=True, description=_FRAMES),
                    "example": {"id": "1", "event": "status", "data": '{"stage":"planning"}'},
                }
            },
        },
        **_ERRORS,
    }
)
