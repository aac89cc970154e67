"""run_python in the real sandbox: earlier query results arrive as df1, df2, ... and df."""

from __future__ import annotations

import pytest
from langchain_core.messages import BaseMessage, ToolMessage
from tests.fakes.scripted_model import Reply, call
from tests.integration.agent.conftest import Retail
from tests.integration.sandbox.conftest import require_bwrap

pytestmark = pytest.mark.sandbox

CODE = """
print(df1.shape, df2.shape, df.equals(df2))
print("stores:", int(df1["n"].iloc[0]))
print("by region:", df.sort_values("region")["region"].tolist())
"""


def _last_tool(messages: list[BaseMessage]) -> str:
    assert isinstance(messages[-1], ToolMessage)
    return str(messages[-1].content)


async def test_query_results_are_dataframes_in_python(retail: Retail) -> None:
    require_bwrap()
    seen: list[str] = []

    def answer(messages: list[BaseMessage]) -> Reply:
        seen.append(_last_tool(messages))
        return Reply(text="Analysed.")

    asked = await retail.ask(
        "How are stores spread over regions?",
        [
            Reply(
                tool_calls=[
                    call("query_database", "a", sql="SELECT COUNT(*) AS n FROM stores"),
                ]
            ),
            Reply(
                tool_calls=[
                    call(
                        "query_database",
                        "b",
                        sql="SELECT region, COUNT(*) AS n FROM stores GROUP BY region",
                    )
                ]
            ),
            Reply(tool_calls=[call("run_python", "p", code=CODE)]),
            answer,
        ],
    )
    (output,) = seen
    assert output.startswith("**Output:**\n```\n(1, 1) (4, 2) True\nstores: 10\n")
    assert "by region: ['Midwest', 'South', 'Southeast', 'West']" in output
    assert "(Executed in " in output and "**Errors:**" not in output
    result = next(r for r in asked.events.of("tool_result") if r["id"] == "p")
    assert result["isError"] is False and result["result"] == output


async def test_python_errors_are_returned_to_the_model(retail: Retail) -> None:
    require_bwrap()
    seen: list[str] = []

    def answer(messages: list[BaseMessage]) -> Reply:
        seen.append(_last_tool(messages))
        return Reply(text="It failed.")

    asked = await retail.ask(
        "Break it",
        [Reply(tool_calls=[call("run_python", "p", code="print('before')\nprint(df)")]), answer],
    )
    (output,) = seen
    assert "**Output:**\n```\nbefore\n```" in output
    assert "**Errors:**" in output and "NameError" in output
    (result,) = asked.events.of("tool_result")
    assert result["isError"] is True
