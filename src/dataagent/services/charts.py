"""Charts of answers: draw a chart request and keep it, keep an image drawn elsewhere, read one.

Images are kept in the app database (the `charts` table) and served, to their owner only,
at `/api/charts/{id}.png` (whatever their media type, the path ends in `.png`: it is the
one name the answer's markdown links to).
"""

from __future__ import annotations

import asyncio
import uuid
from datetime import timedelta
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from dataagent.charts import ChartLimits, ChartRequest, json_chars, vega_lite
from dataagent.charts.render import render_png
from dataagent.config import Settings
from dataagent.errors import DataAgentError, ErrorCode
from dataagent.services.context import AppContext
from dataagent.store import charts as store
from dataagent.store.models import Chart
from dataagent.store.types import utcnow

MAX_IMAGE_BYTES = 10 * 1024 * 1024
# How long an answer waits for one chart to be drawn (the largest allowed take about 2 s).
RENDER_TIMEOUT_S = 60.0
MAX_TITLE_CHARS = 255
# The image types kept, by the bytes each starts with. No SVG: served from our own origin it
# could carry script.
_SIGNATURES: dict[str, tuple[bytes, ...]] = {
    "image/png": (b"\x89PNG\r\n\x1a\n",),
    "image/jpeg": (b"\xff\xd8\xff",),
    "image/gif": (b"GIF87a", b"GIF89a"),
    "image/webp": (b"RIFF",),
}


def chart_url(chart_id: uuid.UUID) -> str:
    """Where the chart's image is served: `/api/charts/{id}.png`."""
    return f"/api/charts/{chart_id}.png"


def chart_event(chart: Chart, chart_type: str | None = None) -> dict[str, Any]:
    """The `chart` event's payload: {id, url, title, chartType, spec}.

    `chartType` is the request's type for a drawn chart request, "image" for an image
    drawn elsewhere (run_python's plots).
    """
    return {
        "id": str(chart.id),
        "url": chart_url(chart.id),
        "title": chart.title,
        "chartType": chart_type or "image",
        "spec": chart.spec,
    }


async def save_image(
    session: AsyncSession,
    owner_id: uuid.UUID,
    message_id: uuid.UUID | None,
    content: bytes,
    title: str | None,
    media_type: str = "image/png",
    spec: dict[str, Any] | None = None,
) -> Chart:
    """Keep an image (PNG, JPEG, GIF or WebP up to 10 MB) of a message (flushed, not committed).

    VALIDATION_ERROR for another media type, bytes that are not that type, or a bigger image.
    """
    kind = media_type.split(";", 1)[0].strip().lower()
    signatures = _SIGNATURES.get(kind)
    if signatures is None:
        kept = ", ".join(_SIGNATURES)
        raise DataAgentError(
            ErrorCode.VALIDATION_ERROR,
            f"A chart must be an image ({kept}), not {media_type or 'an unnamed type'}.",
        )
    if not content.startswith(signatures) or (kind == "image/webp" and content[8:12] != b"WEBP"):
        raise DataAgentError(
            ErrorCode.VALIDATION_ERROR, f"The bytes are not an image of type {kind}."
        )
    if len(content) > MAX_IMAGE_BYTES:
        raise DataAgentError(
            ErrorCode.PAYLOAD_TOO_LARGE,
            f"The image is {len(content):,} bytes; images are kept up to {MAX_IMAGE_BYTES:,}.",
        )
    if title is not None and len(title) > MAX_TITLE_CHARS:
        title = title[: MAX_TITLE_CHARS - 1] + "…"
    return await store.add_chart(
        session, owner_id, message_id, content, title=title, media_type=kind, spec=spec
    )


def chart_limits(settings: Settings) -> ChartLimits:
    """The limits the settings name (`chart_*`)."""
    return ChartLimits(
        argument_chars=settings.chart_max_argument_chars,
        rows=settings.chart_max_rows,
        columns=settings.chart_max_columns,
        text_chars=settings.chart_max_text_chars,
        spec_chars=settings.chart_max_spec_chars,
    )


async def create_chart(
    ctx: AppContext, owner_id: uuid.UUID, message_id: uuid.UUID | None, request: ChartRequest
) -> Chart:
    """Draw a chart request (its Vega-Lite spec, and the PNG drawn from that spec) and keep
    it, committed in its own session.

    VALIDATION_ERROR, before anything is drawn, when the spec would be over
    `chart_max_spec_chars`; INTERNAL_ERROR when drawing takes over `RENDER_TIMEOUT_S`. The spec and
    the drawing are made in a worker thread, so the event loop keeps serving while it does.
    """
    limits = chart_limits(ctx.settings)
    try:
        png, spec = await asyncio.wait_for(
            asyncio.to_thread(_draw, request, limits.spec_chars), RENDER_TIMEOUT_S
        )
    except TimeoutError:
        raise DataAgentError(
            ErrorCode.INTERNAL_ERROR,
            f"The chart was not drawn within {RENDER_TIMEOUT_S:.0f} seconds.",
        ) from None
    async with ctx.database.session() as session:
        chart = await save_image(session, owner_id, message_id, png, request.title, spec=spec)
        await session.commit()
    return chart


def _draw(request: ChartRequest, spec_chars: int) -> tuple[bytes, dict[str, Any]]:
    spec = vega_lite(request)
    if json_chars(spec, spec_chars) > spec_chars:
        values = len(spec["data"]["values"])
        raise DataAgentError(
            ErrorCode.VALIDATION_ERROR,
            f"The chart would hold {values:,} values, over {spec_chars:,} characters: "
            "aggregate the rows first, or use fewer series or shorter labels.",
        )
    return render_png(spec), spec


async def get_chart(session: AsyncSession, owner_id: uuid.UUID, chart_id: uuid.UUID) -> Chart:
    """The caller's chart, or NOT_FOUND (also when it is someone else's)."""
    return await store.get_chart(session, owner_id, chart_id)


async def charts_of_message(
    session: AsyncSession, owner_id: uuid.UUID, message_id: uuid.UUID
) -> list[Chart]:
    """The caller's charts of one message, oldest first."""
    return await store.charts_of_message(session, owner_id, message_id)


async def delete_expired(session: AsyncSession, retention_hours: float) -> int:
    """Delete the charts of no message (a stateless chat keeps none) older than the retention,
    and commit; how many. Called by the periodic sweep (`runs.reaper`)."""
    cutoff = utcnow() - timedelta(hours=retention_hours)
    deleted = await store.delete_unattached(session, cutoff)
    await session.commit()
    return deleted
