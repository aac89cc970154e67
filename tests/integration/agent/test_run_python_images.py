"""Images run_python draws become charts of the answer, linked, never inlined as base64.

Needs the chart service (services/charts.py, helper D's branch): conftest.py leaves this
file out (`collect_ignore`) until that is merged.
"""

from __future__ import annotations

import re
import uuid

import pytest
from langchain_core.messages import BaseMessage, ToolMessage
from tests.fakes.scripted_model import Reply, call
from tests.integration.agent.conftest import Retail
from tests.integration.sandbox.conftest import require_bwrap

from dataagent.store.models import Chart

pytestmark = pytest.mark.sandbox

CODE = """
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
plt.bar(df["region"], df["n"])
plt.title("Stores by region")
plt.savefig("stores_by_region.png")
print("drawn")
"""


async def test_drawn_images_are_kept_as_charts(retail: Retail) -> None:
    require_bwrap()
    seen: list[str] = []

    def answer(messages: list[BaseMessage]) -> Reply:
        assert isinstance(messages[-1], ToolMessage)
        seen.append(str(messages[-1].content))
        return Reply(text="See the chart.")

    sql = "SELECT region, COUNT(*) AS n FROM stores GROUP BY region"
    asked = await retail.ask(
        "Chart stores by region",
        [
            Reply(tool_calls=[call("query_database", "q", sql=sql)]),
            Reply(tool_calls=[call("run_python", "p", code=CODE)]),
            answer,
        ],
    )
    (output,) = seen
    assert "base64" not in output
    match = re.search(r"!\[chart\]\((/api/charts/([0-9a-f-]+)\.png)\)", output)
    assert match is not None, output
    url, chart_id = match.group(1), match.group(2)
    (event,) = asked.events.of("chart")
    assert (event["id"], event["url"], event["title"]) == (chart_id, url, "stores by region")
    assert asked.answer.metadata["charts"] == [
        {"id": chart_id, "url": url, "title": "stores by region", "chartType": "image"}
    ]
    async with retail.world.database.session() as session:
        chart = await session.get(Chart, uuid.UUID(chart_id))
    assert chart is not None and chart.message_id == asked.message_id
