"""The ReAct answer end to end: real retrieval, real SQL on the demo retailer, real records;
only the chat model is scripted."""

from __future__ import annotations

import sqlite3
import uuid
from datetime import datetime
from typing import Any

import pytest
from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langgraph.graph import StateGraph
from sqlalchemy import select
from tests.fakes.scripted_model import Reply, ToolCall, call
from tests.integration.agent.conftest import Retail

from dataagent.agent.prompts import NO_ANSWER, NO_ANSWER_AFTER_QUERIES, STEP_LIMIT_NOTICE
from dataagent.agent.react import MALFORMED, loop_graph
from dataagent.errors import DataAgentError, ErrorCode
from dataagent.services import ontologies
from dataagent.store.models import Chart, DataChat, DataChatMessage, Ontology, QueryRecord

STATUS_SQL = "SELECT status, COUNT(*) AS n FROM orders GROUP BY status ORDER BY status"


def _tool_messages(messages: list[BaseMessage]) -> dict[str, str]:
    return {m.tool_call_id: str(m.content) for m in messages if isinstance(m, ToolMessage)}


def _system(messages: list[BaseMessage]) -> str:
    assert isinstance(messages[0], SystemMessage)
    return str(messages[0].content)


def _status_counts(retail: Retail) -> dict[str, int]:
    path = retail.world.context.settings.file_roots[0] / "retail.db"
    with sqlite3.connect(path) as db:
        return dict(db.execute("SELECT status, COUNT(*) FROM orders GROUP BY status").fetchall())


async def _records(retail: Retail, run_id: Any) -> list[QueryRecord]:
    async with retail.world.database.session() as session:
        rows = await session.scalars(
            select(QueryRecord).where(QueryRecord.run_id == run_id).order_by(QueryRecord.created_at)
        )
        return list(rows)


async def test_one_query_answer(retail: Retail) -> None:
    counts = _status_counts(retail)

    def final(messages: list[BaseMessage]) -> Reply:
        table = _tool_messages(messages)["c1"]
        completed = next(line for line in table.splitlines() if line.startswith("| completed"))
        return Reply(
            text=f"Completed orders: {completed.split('|')[2].strip()}.",
            prompt_tokens=150,
            completion_tokens=30,
        )

    question = "How many orders are there in each status?"
    asked = await retail.ask(
        question,
        [
            Reply(
                text="Let me count them.",
                tool_calls=[call("query_database", "c1", sql=STATUS_SQL)],
                prompt_tokens=100,
                completion_tokens=20,
            ),
            final,
        ],
    )

    assert asked.answer.content == f"Completed orders: {counts['completed']}."
    names = asked.events.names()
    # The first turn: streamed, traced, then its text is reported and the stream cleared.
    assert names[0] == "llm_call_start"
    first_end = names.index("llm_call_end")
    assert set(names[1:first_end]) == {"message_chunk"}
    assert names[first_end : first_end + 6] == [
        "llm_call_end",
        "token_update",
        "text",
        "clear_streaming",
        "tool_call",
        "tool_result",
    ]
    assert names[first_end + 6] == "llm_call_start"
    assert names[-2:] == ["llm_call_end", "token_update"]
    assert asked.events.of("text") == [{"content": "Let me count them."}]
    assert asked.events.of("tool_call") == [
        {"id": "c1", "name": "query_database", "args": {"sql": STATUS_SQL}}
    ]
    (result,) = asked.events.of("tool_result")
    assert result["id"] == "c1" and result["isError"] is False
    assert "| status | n |" in result["result"] and "(3 rows, " in result["result"]
    streamed = "".join(d["chunk"] for d in asked.events.of("message_chunk"))
    assert streamed == "Let me count them." + asked.answer.content

    # Tokens: per call, and summed over the answer.
    updates = asked.events.of("token_update")
    assert [u["tokensUsed"]["total"] for u in updates] == [120, 180]
    assert updates[-1]["totalTokensUsed"] == {"prompt": 250, "completion": 50, "total": 300}

    metadata = asked.answer.metadata
    assert metadata["tokensUsed"] == {"prompt": 250, "completion": 50, "total": 300}
    assert metadata["toolCalls"][0]["id"] == "c1"
    assert metadata["toolCalls"][0]["args"] == {"sql": STATUS_SQL}
    assert metadata["toolCalls"][0]["result"] == result["result"]
    assert metadata["datasetsUsed"] == ["orders"]
    assert metadata["charts"] == []
    assert metadata["agentMode"] == "react"
    assert datetime.fromisoformat(metadata["startedAt"]).tzinfo is not None
    assert isinstance(metadata["durationMs"], int)

    # The query is recorded, linked to the run, with the question.
    (record,) = await _records(retail, asked.run_id)
    assert (record.status, record.sql, record.question) == ("succeeded", STATUS_SQL, question)

    async with retail.world.database.session() as session:
        message = await session.get(DataChatMessage, asked.message_id)
        chat = await session.get(DataChat, retail.chat_id)
    assert message is not None and message.status == "complete"
    assert message.content == asked.answer.content
    assert chat is not None and chat.name == question  # named from its first question


async def test_sql_error_reaches_the_model_and_it_recovers(retail: Retail) -> None:
    def retry(messages: list[BaseMessage]) -> Reply:
        error = _tool_messages(messages)["bad"]
        assert error.startswith("Error (") and "revenue" in error
        return Reply(tool_calls=[call("query_database", "good", sql=STATUS_SQL)])

    asked = await retail.ask(
        "Revenue by status?",
        [
            Reply(tool_calls=[call("query_database", "bad", sql="SELECT revenue FROM orders")]),
            retry,
            Reply(text="Here are the counts."),
        ],
    )
    results = {r["id"]: r for r in asked.events.of("tool_result")}
    assert results["bad"]["isError"] is True
    assert results["good"]["isError"] is False
    assert asked.answer.content == "Here are the counts."
    records = await _records(retail, asked.run_id)
    assert [r.status for r in records] == ["failed", "succeeded"]


async def test_parallel_tool_calls_are_matched_by_id(retail: Retail) -> None:
    asked = await retail.ask(
        "How many stores and what is in customers?",
        [
            Reply(
                tool_calls=[
                    call("query_database", "q", sql="SELECT COUNT(*) AS stores FROM stores"),
                    call("get_dataset_details", "d", datasetNames=["customers", "nope"]),
                    call("get_sample_data", "s", datasetName="categories", limit=500),
                ]
            ),
            Reply(text="Done."),
        ],
    )
    calls = [c["id"] for c in asked.events.of("tool_call")]
    assert calls == ["q", "d", "s"]
    results = {r["id"]: r for r in asked.events.of("tool_result")}
    assert set(results) == {"q", "d", "s"}
    assert "| stores |" in results["q"]["result"]
    assert "name: customers" in results["d"]["result"]
    assert "Unknown datasets: nope" in results["d"]["result"]
    assert "| id | name | department |" in results["s"]["result"]
    # The model got each result under its own call id.
    sent = _tool_messages(asked.model.calls[1])
    assert sent["q"].startswith("| stores |")
    assert sent["d"].startswith("name: customers")
    assert sent["s"].startswith("| id | name | department |")
    assert set(asked.answer.metadata["datasetsUsed"]) == {"stores", "customers", "categories"}


async def test_step_limit_asks_for_an_answer_from_what_was_found(retail: Retail) -> None:
    retail.world.context.settings.agent_max_tool_rounds = 2

    def step(messages: list[BaseMessage]) -> Reply:
        last = messages[-1]
        if isinstance(last, HumanMessage) and last.content == STEP_LIMIT_NOTICE:
            return Reply(text="I could only list the datasets.")
        return Reply(tool_calls=[call("list_datasets")])

    asked = await retail.ask("Keep looking", [], default=step)
    assert asked.answer.content == "I could only list the datasets."
    assert asked.answer.metadata["stepLimitReached"] is True
    # Two rounds (agent, tools, agent, tools), a turn that wants a third; then the last word.
    assert len(asked.model.calls) == 4
    last_call = asked.model.calls[-1]
    assert not any(getattr(m, "tool_calls", None) for m in last_call[-2:])


async def test_step_limit_without_a_last_word_fails(retail: Retail) -> None:
    retail.world.context.settings.agent_max_tool_rounds = 1
    with pytest.raises(DataAgentError) as caught:
        await retail.ask("Loop", [], default=Reply(tool_calls=[call("list_datasets")]))
    assert caught.value.code == ErrorCode.LLM_ERROR
    assert "stopped after 1 tool round without an answer" in caught.value.message


async def test_malformed_tool_calls_are_told_then_bounded(retail: Retail) -> None:
    told: list[str] = []

    def bad(messages: list[BaseMessage]) -> Reply:
        if isinstance(messages[-1], ToolMessage):
            told.append(str(messages[-1].content))
        return Reply(tool_calls=[ToolCall("query_database", raw_args="{sql: SELECT 1}")])

    with pytest.raises(DataAgentError) as caught:
        await retail.ask("Count orders", [bad, bad, bad, Reply(text="never")])
    assert caught.value.code == ErrorCode.LLM_ERROR and caught.value.message == MALFORMED
    # The first two were answered with an error the model could read; the third ended it.
    assert len(told) == 2 and all("were not valid JSON" in text for text in told)


async def test_bad_arguments_and_unknown_tools_are_errors_the_model_reads(retail: Retail) -> None:
    def fixed(messages: list[BaseMessage]) -> Reply:
        sent = _tool_messages(messages)
        assert "not valid JSON" in sent["raw"]
        assert "invalid arguments for query_database" in sent["schema"] and "sql" in sent["schema"]
        assert "no tool named 'drop_tables'" in sent["unknown"]
        return Reply(
            tool_calls=[call("query_database", "ok", sql="SELECT COUNT(*) AS n FROM stores")]
        )

    asked = await retail.ask(
        "How many stores?",
        [
            Reply(
                tool_calls=[
                    ToolCall("query_database", id="raw", raw_args="{sql: SELECT 1}"),
                    call("query_database", "schema", query="SELECT 1"),
                    call("drop_tables", "unknown"),
                ]
            ),
            fixed,
            Reply(text="There are some stores."),
        ],
    )
    results = {r["id"]: r for r in asked.events.of("tool_result")}
    assert all(results[k]["isError"] for k in ("raw", "schema", "unknown"))
    assert results["ok"]["isError"] is False
    assert asked.answer.content == "There are some stores."


async def test_empty_final_text_gets_a_default_answer(retail: Retail) -> None:
    asked = await retail.ask("Anything?", [Reply(text="")])
    assert asked.answer.content == NO_ANSWER
    assert asked.events.of("message_chunk")[-1] == {"chunk": NO_ANSWER}

    asked = await retail.ask(
        "Count stores",
        [Reply(tool_calls=[call("query_database", sql="SELECT COUNT(*) FROM stores")]), Reply()],
    )
    assert asked.answer.content == NO_ANSWER_AFTER_QUERIES


async def test_list_datasets_when_search_finds_nothing(retail: Retail) -> None:
    # Embedded by another provider: the ontology cannot be searched until it is rebuilt.
    async with retail.world.database.session() as session:
        ontology = await session.get(Ontology, retail.ontology_id)
        assert ontology is not None
        ontology.embedding_provider = "another-provider"
        await session.commit()

    def listed(messages: list[BaseMessage]) -> Reply:
        return Reply(text=_tool_messages(messages)["l"].splitlines()[0])

    asked = await retail.ask(
        "Which tables are there?", [Reply(tool_calls=[call("list_datasets", "l")]), listed]
    )
    prompt = _system(asked.model.calls[0])
    assert "found nothing" in prompt and "`list_datasets`" in prompt
    assert "```yaml" not in prompt
    assert asked.answer.content == "6 datasets available:"
    listing = _tool_messages(asked.model.calls[1])["l"]
    assert "- **orders**: " in listing and "(source: main.orders)" in listing


async def test_prompt_holds_the_retrieved_datasets_and_their_joins_only(retail: Retail) -> None:
    ctx = retail.world.context
    ctx.settings.agent_top_datasets = 2
    question = "How many orders did each store take?"
    async with retail.world.database.session() as session:
        ontology = await session.get(Ontology, retail.ontology_id)
        assert ontology is not None
        found = await ontologies.search(ctx, session, ontology, question, k=2)
        datasets, relationships = await ontologies.graph(session, retail.owner_id, ontology.id)
    hits = {h.name for h in found.datasets}
    assert hits == {"orders", "order_items"}  # a joinable pair, not the whole schema

    asked = await retail.ask(question, [Reply(text="Some units.")])
    prompt = _system(asked.model.calls[0])
    for dataset in datasets:
        assert (f"### {dataset.name}\n" in prompt) == (dataset.name in hits)
        assert (dataset.yaml.strip() in prompt) == (dataset.name in hits)
    hints = prompt.split("## Relationships (Join Hints)")[1].split("## Database")[0]
    for r in relationships:
        among = {r.from_dataset, r.to_dataset} <= hits
        line = f"- {r.from_dataset}.{r.from_columns[0]} = {r.to_dataset}.{r.to_columns[0]} "
        assert (line in hints) == among, line
    assert "- order_items.order_id = orders.id (many-to-one;" in hints
    assert "SQLite" in prompt and "at most 500 rows" in prompt
    assert "`df1`" in prompt and "`df`" in prompt


async def test_chat_is_named_once_from_its_first_question(retail: Retail) -> None:
    long = "Which of our stores sold the most units of discounted products during the holidays?"
    await retail.ask(long, [Reply(text="Store 1.")])
    await retail.ask("And the least?", [Reply(text="Store 2.")])
    async with retail.world.database.session() as session:
        chat = await session.get(DataChat, retail.chat_id)
    assert chat is not None
    assert chat.name == "Which of our stores sold the most units of…"
    assert len(chat.name) <= 50


async def test_create_chart_is_a_tool_of_chat_answers(retail: Retail) -> None:
    """Issue 22, item 12: a chat answer can draw a chart; its `chart` event (with the
    Vega-Lite spec) is in the answer's events and the message's metadata keeps the chart."""
    rows = [{"region": "East", "n": 2}, {"region": "West", "n": 3}]
    arguments = {"chart_type": "bar", "title": "Stores", "data": rows, "x": "region", "y": ["n"]}
    asked = await retail.ask(
        "Chart stores by region",
        [Reply(tool_calls=[call("create_chart", "c", **arguments)]), Reply(text="Drawn.")],
    )
    names = asked.events.names()
    assert names.index("tool_call") < names.index("chart") < names.index("tool_result")
    (chart,) = asked.events.of("chart")
    assert chart["chartType"] == "bar" and chart["spec"]["mark"]["type"] == "bar"
    assert asked.answer.metadata["charts"] == [
        {"id": chart["id"], "url": chart["url"], "title": "Stores", "chartType": "bar"}
    ]
    (result,) = asked.events.of("tool_result")
    assert not result["isError"] and chart["url"] in result["result"]
    async with retail.world.database.session() as session:
        stored = await session.get(Chart, uuid.UUID(chart["id"]))
    assert stored is not None and stored.message_id == asked.message_id
    assert "create_chart" in {t["function"]["name"] for t in asked.model.tools_seen[0]}


async def test_the_loop_is_compiled_once_for_every_answer(
    retail: Retail, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 22, item 21: the graph is compiled once per process, not per answer."""
    graph = loop_graph()
    compiled: list[object] = []
    original = StateGraph.compile

    def counting(self: StateGraph[Any], *args: Any, **kwargs: Any) -> Any:
        compiled.append(self)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(StateGraph, "compile", counting)
    for question in ("One?", "Two?"):
        query = call("query_database", sql="SELECT COUNT(*) AS n FROM stores")
        asked = await retail.ask(question, [Reply(tool_calls=[query]), Reply(text="Done.")])
        assert asked.answer.content == "Done."
    assert compiled == [] and loop_graph() is graph
