"""Charts of answers (the chart tool's images and those run_python drew)."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from dataagent.api.schemas import ApiModel
from dataagent.services.charts import chart_url
from dataagent.store.models import Chart


class ChartPublic(ApiModel):
    """A chart: its image's URL, and its Vega-Lite spec when it has one."""

    id: uuid.UUID
    title: str | None
    url: str
    media_type: str
    spec: dict[str, Any] | None
    message_id: uuid.UUID | None
    created_at: datetime


def chart_public(chart: Chart) -> ChartPublic:
    """The public view of a chart (without its bytes: those are at `url`)."""
    return ChartPublic(
        id=chart.id,
        title=chart.title,
        url=chart_url(chart.id),
        media_type=chart.media_type,
        spec=chart.spec,
        message_id=chart.message_id,
        created_at=chart.created_at,
    )
