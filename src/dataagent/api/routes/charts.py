"""Chart images and their descriptions under /api/charts, for their owner only.

The image route accepts the session cookie as well as a bearer token: a browser's
`<img src>` sends the cookie, never an Authorization header.
"""

from __future__ import annotations

import uuid

from fastapi import APIRouter, Response

from dataagent.api.deps import DataAgentReader, SessionDep
from dataagent.api.schemas import ERROR_RESPONSES, Envelope
from dataagent.api.schemas.charts import ChartPublic, chart_public
from dataagent.services import charts

router = APIRouter(prefix="/api/charts", tags=["charts"], responses=ERROR_RESPONSES)


# A chart never changes once made; only its owner may see it, so only their browser keeps it.
IMAGE_HEADERS = {"Cache-Control": "private, max-age=86400", "X-Content-Type-Options": "nosniff"}


# Declared before `/{chart_id}` so that `<id>.png` is not read as an id.
@router.get(
    "/{chart_id}.png",
    operation_id="getChartImage",
    response_class=Response,
    responses={200: {"content": {"image/png": {}}, "description": "The chart's image."}},
)
async def get_chart_image(
    user: DataAgentReader, session: SessionDep, chart_id: uuid.UUID
) -> Response:
    """The chart's image bytes (PNG, or the type run_python drew)."""
    chart = await charts.get_chart(session, user.id, chart_id)
    return Response(content=chart.content, media_type=chart.media_type, headers=IMAGE_HEADERS)


@router.get("/{chart_id}", operation_id="getChart")
async def get_chart(
    user: DataAgentReader, session: SessionDep, chart_id: uuid.UUID
) -> Envelope[ChartPublic]:
    """A chart's title, image URL, media type, Vega-Lite spec and message."""
    chart = await charts.get_chart(session, user.id, chart_id)
    return Envelope(data=chart_public(chart))
