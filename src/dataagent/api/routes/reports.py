"""Reports of answers (seed 003): JSON for the page's modal, or one HTML file to download."""

from __future__ import annotations

import uuid
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Response

from dataagent.api.deps import DataAgentReader, SessionDep
from dataagent.api.schemas import ERROR_RESPONSES, Envelope, ErrorBody
from dataagent.api.schemas.reports import ReportPublic, report_public
from dataagent.services import report_html, reports

router = APIRouter(prefix="/api/data-agent", tags=["data-agent"], responses=ERROR_RESPONSES)

REPORT_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {
        "description": "The report: JSON, or with `format=html` one self-contained HTML file "
        "(an attachment).",
        "content": {"text/html": {"schema": {"type": "string"}}},
    },
    409: {
        "description": "CONFLICT: the message is a question, or an answer that is not complete.",
        "model": ErrorBody,
    },
}


@router.get(
    "/chats/{chat_id}/messages/{message_id}/report",
    operation_id="getMessageReport",
    # The JSON form's model; the HTML form is a Response, passed through as it is.
    response_model=Envelope[ReportPublic],
    responses=REPORT_RESPONSES,
)
async def get_message_report(
    user: DataAgentReader,
    session: SessionDep,
    chat_id: uuid.UUID,
    message_id: uuid.UUID,
    format: Annotated[Literal["json", "html"], Query()] = "json",
) -> Envelope[ReportPublic] | Response:
    """A complete answer as a report: narrative, tables, charts, lineage, assumptions,
    caveats, verification and SQL as blocks; or (`format=html`) as one HTML file."""
    report = await reports.get_report(session, user.id, chat_id, message_id)
    if format == "json":
        return Envelope(data=report_public(report))
    return Response(
        content=report_html.render_html(report),
        media_type="text/html; charset=utf-8",
        headers={
            "Content-Disposition": f'attachment; filename="{report_html.report_filename(report)}"',
            "Content-Security-Policy": report_html.CONTENT_SECURITY_POLICY,
            "Cache-Control": "private, no-store",
        },
    )
