"""SQL run through the executor, and the records (run capsules) that keep every run."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Annotated, Any

from pydantic import ConfigDict, Field, model_validator
from pydantic.json_schema import SkipJsonSchema

from dataagent.api.schemas import INTEGER_ONLY, ApiInput, ApiModel
from dataagent.services.queries import RecordedQuery
from dataagent.vocabulary import QueryMode, QueryStatus

# Rows a caller asks for at most (the server's own cap applies as well).
MaxRows = Annotated[int, Field(ge=1, le=10_000), INTEGER_ONLY]


class QueryInput(ApiInput):
    """SQL to run against a connection, or an ontology's connection (limited to its tables)."""

    # Exactly one of the two, written into the schema so clients see the rule.
    model_config = ConfigDict(
        json_schema_extra={"oneOf": [{"required": ["connectionId"]}, {"required": ["ontologyId"]}]}
    )

    connection_id: uuid.UUID | SkipJsonSchema[None] = None
    ontology_id: uuid.UUID | SkipJsonSchema[None] = None
    sql: str = Field(min_length=1, max_length=100_000)
    max_rows: MaxRows | None = None

    @model_validator(mode="after")
    def _one_target(self) -> QueryInput:
        if (self.connection_id is None) == (self.ontology_id is None):
            raise ValueError("give exactly one of connectionId or ontologyId")
        return self


class QueryOutput(ApiModel):
    """What came back, and the id of the record that keeps it."""

    run_id: uuid.UUID
    columns: list[str]
    rows: list[list[Any]]
    row_count: int
    truncated: bool
    execution_ms: int
    executed_sql: str | None


def query_output(recorded: RecordedQuery) -> QueryOutput:
    """The API view of an executed query and its record."""
    result = recorded.result
    return QueryOutput(
        run_id=recorded.record.id,
        columns=result.columns,
        rows=result.rows,
        row_count=result.row_count,
        truncated=result.truncated,
        execution_ms=result.execution_ms,
        executed_sql=result.executed_sql,
    )


class RunPublic(ApiModel):
    """A query record: seed 004's run capsule."""

    id: uuid.UUID
    created_at: datetime
    connection_id: uuid.UUID | None
    ontology_id: uuid.UUID | None
    dataset_version: str | None
    question: str | None
    mode: QueryMode
    plan: dict[str, Any] | None
    sql: str
    compiled_sql: str | None
    status: QueryStatus
    row_count: int
    truncated: bool
    result_summary: dict[str, Any] | None
    error_code: str | None
    error_message: str | None
    execution_ms: int
