"""Reports of answers (seed 003): a declarative document of typed blocks."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import Field

from dataagent.api.schemas import ApiModel
from dataagent.services.reports import Report


class MarkdownBlockPublic(ApiModel):
    """Narrative text as markdown: a client renders it with raw HTML shown as text."""

    type: Literal["markdown"]
    text: str


class TableBlockPublic(ApiModel):
    """A result table: `rows` holds at most 200 rows of `rowCount`."""

    type: Literal["table"]
    title: str
    columns: list[str]
    rows: list[list[Any]]
    row_count: int
    truncated: bool


class ChartBlockPublic(ApiModel):
    """A chart: its image's URL and, for a drawn chart, its Vega-Lite spec (values inline)."""

    type: Literal["chart"]
    chart_id: uuid.UUID
    title: str | None
    chart_type: str
    spec: dict[str, Any] | None
    image_url: str


class LineageJoinPublic(ApiModel):
    """A join: `from` → `to` on a condition."""

    from_: str = Field(alias="from")
    to: str
    on: str


class LineageBlockPublic(ApiModel):
    """Where the numbers come from."""

    type: Literal["lineage"]
    datasets: list[str]
    joins: list[LineageJoinPublic]
    filters: list[str]
    time_window: str | None
    grain: str
    row_count: int | None


class ItemsBlockPublic(ApiModel):
    """The assumptions the answer made, or its caveats."""

    type: Literal["assumptions", "caveats"]
    items: list[str]


class CheckPublic(ApiModel):
    """One check of the verification."""

    name: str
    passed: bool
    message: str


class VerificationBlockPublic(ApiModel):
    """The verifier's result (pipeline answers)."""

    type: Literal["verification"]
    passed: bool
    checks: list[CheckPublic]


class SqlBlockPublic(ApiModel):
    """A query the answer ran; `stepId` names a pipeline step's."""

    type: Literal["sql"]
    sql: str
    step_id: int | None


BlockPublic = Annotated[
    MarkdownBlockPublic
    | TableBlockPublic
    | ChartBlockPublic
    | LineageBlockPublic
    | ItemsBlockPublic
    | VerificationBlockPublic
    | SqlBlockPublic,
    Field(discriminator="type"),
]


class ReportPublic(ApiModel):
    """An answer as a report: its title, question, time, status and blocks in order."""

    title: str
    question: str
    created_at: datetime
    status: str
    blocks: list[BlockPublic]


def report_public(report: Report) -> ReportPublic:
    """The JSON form of a report (its chart images are at each block's `imageUrl`)."""
    return ReportPublic.model_validate(report, from_attributes=True)
