"""`dataagent eval QUESTIONS.jsonl` and `dataagent ask`, in process (CliRunner), on the demo
set up as `dataagent demo` does, with the scripted OpenAI-compatible server as the model."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import SPIDER_SQLITE
from tests.fakes.openai_server import FakeOpenAIServer, Step, question_and_tool_results, tool
from typer.testing import CliRunner

from dataagent.cli import app
from dataagent.config import Settings

# Questions over the demo with gold SQL in SQLite (the dev set's form); the scripted model
# answers the first right, the second wrong, and does not query for the third.
QUESTIONS = [
    {
        "id": "t-1",
        "question": "How many orders were cancelled?",
        "gold_sql": "SELECT COUNT(*) FROM orders WHERE status = 'cancelled'",
        "kind": "filter",
        "reference_date": "2025-12-31",
    },
    {
        "id": "t-2",
        "question": "How many orders by channel?",
        "gold_sql": "SELECT channel, COUNT(*) FROM orders GROUP BY channel",
        "kind": "dimension",
        "reference_date": "2025-12-31",
    },
    {
        "id": "t-3",
        "question": "What is the weather in Houston?",
        "gold_sql": None,
        "kind": "unanswerable",
        "answerable": False,
        "reference_date": "2025-12-31",
    },
]
# What the scripted model runs for each question (DuckDB, the demo's own database).
MODEL_SQL = {
    "How many orders were cancelled?": "SELECT COUNT(*) AS n FROM orders "
    "WHERE status = 'cancelled'",
    "How many orders by channel?": "SELECT channel, COUNT(*) AS n FROM orders "
    "WHERE status = 'completed' GROUP BY channel",
}


# The --database test gives the admin a second ontology: name the demo's.
DEMO = ("--ontology", "Retail demo")


def analyst(queries: dict[str, str]) -> Callable[[dict[str, Any]], Step]:
    """A scripted model: one query for a question it knows, then a sentence; a sentence
    alone otherwise."""

    def answer(body: dict[str, Any]) -> Step:
        question, results = question_and_tool_results(body)
        sql = queries.get(question)
        if sql is not None and not results:
            return Step(tool_calls=[tool("query_database", sql=sql)])
        return Step(text="Here is what I found." if sql else "The data holds no weather.")

    return answer


@pytest.fixture
def model_env(demo_home: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAIServer]:
    """The CLI's environment: the seeded data directory and the scripted model server."""
    with FakeOpenAIServer(default=analyst(MODEL_SQL)) as server:
        monkeypatch.setenv("DATAAGENT_DATA_DIR", str(demo_home))
        monkeypatch.setenv("OPENAI_BASE_URL", server.url)
        monkeypatch.setenv("OPENAI_API_KEY", "test-key")
        monkeypatch.setenv("DATAAGENT_LOG_LEVEL", "WARNING")
        yield server


def write_questions(path: Path, questions: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(q) + "\n" for q in questions), encoding="utf-8")
    return path


def test_eval_scores_a_react_run_and_counts_model_calls_and_tokens(
    model_env: FakeOpenAIServer, tmp_path: Path
) -> None:
    questions = write_questions(tmp_path / "q.jsonl", QUESTIONS)
    report, page = tmp_path / "report.json", tmp_path / "report.md"
    result = CliRunner().invoke(
        app,
        [
            "eval",
            str(questions),
            "--mode",
            "react",
            *DEMO,
            "--json",
            str(report),
            "--markdown",
            str(page),
            "--min-accuracy",
            "0.5",
        ],
    )
    assert result.exit_code == 0, result.output
    document = json.loads(report.read_text())
    by_id = {q["id"]: q for q in document["questions"]}
    assert {k: v["outcome"] for k, v in by_id.items()} == {
        "t-1": "correct",
        "t-2": "wrong",
        "t-3": "correct",
    }
    assert by_id["t-1"]["predictedSql"] == MODEL_SQL["How many orders were cancelled?"]
    assert by_id["t-3"]["predictedSql"] is None
    summary = document["summary"]
    assert (summary["questions"], summary["correct"], summary["wrong"]) == (3, 2, 1)
    # Every request the server answered is one model call, with its scripted usage.
    calls = len(model_env.requests)
    assert calls == 5  # two for each question it queries for, one for the third
    assert summary["modelCalls"] == calls
    assert summary["tokens"] == {"prompt": 11 * calls, "completion": 7 * calls, "total": 18 * calls}
    assert [q["modelCalls"] for q in document["questions"]] == [2, 2, 1]
    assert summary["latencyMs"]["p50"] > 0
    assert document["referenceDate"] == "2025-12-31"
    assert [k["label"] for k in document["byKind"]] == ["filter", "dimension", "unanswerable"]
    text = page.read_text()
    assert "Execution accuracy **66.7%**" in text
    assert "| t-2 | wrong |" in text
    assert "execution accuracy 66.7%" in result.stdout


def test_eval_exits_non_zero_below_the_minimum_accuracy(
    model_env: FakeOpenAIServer, tmp_path: Path
) -> None:
    questions = write_questions(tmp_path / "q.jsonl", QUESTIONS[1:2])
    result = CliRunner().invoke(
        app, ["eval", str(questions), "--mode", "react", *DEMO, "--min-accuracy", "0.5"]
    )
    assert result.exit_code == 1, result.output
    assert "below --min-accuracy" in result.output


def test_eval_faults_is_still_a_subcommand_and_bad_input_is_refused(
    model_env: FakeOpenAIServer, tmp_path: Path
) -> None:
    runner = CliRunner()
    listed = runner.invoke(app, ["eval", "--help"])
    assert listed.exit_code == 0
    assert "faults" in listed.output and "run" in listed.output
    bad = write_questions(tmp_path / "bad.jsonl", [{"id": "x", "question": "q?"}])
    refused = runner.invoke(app, ["eval", str(bad)])
    assert refused.exit_code == 2
    assert "needs gold_sql" in refused.output
    mode = runner.invoke(app, ["eval", str(bad), "--mode", "psychic"])
    assert mode.exit_code == 2
    assert "--mode must be one of" in mode.output
    nobody = write_questions(tmp_path / "q.jsonl", QUESTIONS[:1])
    unknown = runner.invoke(app, ["eval", str(nobody), "--user", "nobody@example.com"])
    assert unknown.exit_code == 1
    assert "No user has the email 'nobody@example.com'" in unknown.output
    absent = runner.invoke(app, ["eval", str(nobody), "--ontology", "No such"])
    assert absent.exit_code == 1
    assert "reaches no ontology named 'No such'" in absent.output
    assert model_env.requests == []


def test_ask_json_prints_the_rows(model_env: FakeOpenAIServer, tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app,
        [
            "ask",
            "How many orders by channel?",
            "--mode",
            "react",
            *DEMO,
            "--json",
            "--charts-dir",
            str(tmp_path / "charts"),
        ],
    )
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout.strip().splitlines()[-1])
    assert document["status"] == "complete"
    assert document["sql"] == MODEL_SQL["How many orders by channel?"]
    assert document["columns"] == ["channel", "n"]
    assert sorted(row[0] for row in document["rows"]) == ["in_store", "online", "phone"]
    assert document["rowCount"] == 3
    assert document["ontology"]["name"] == "Retail demo"
    assert document["content"] == "Here is what I found."


def test_ask_shows_the_answer_in_the_terminal(model_env: FakeOpenAIServer) -> None:
    result = CliRunner().invoke(
        app, ["ask", "How many orders were cancelled?", "--mode", "react", *DEMO]
    )
    assert result.exit_code == 0, result.output
    assert "Here is what I found." in result.stdout
    assert "status = 'cancelled'" in result.stdout  # the SQL
    assert "1 rows" in result.stdout  # the table


def test_eval_on_a_database_file_makes_its_ontology_once(
    model_env: FakeOpenAIServer, demo_home: Path, tmp_path: Path
) -> None:
    from dataagent.demo import generate
    from dataagent.demo.loaders import write_sqlite

    database = tmp_path / "files" / "shop.sqlite"
    write_sqlite(generate(), database)
    questions = write_questions(tmp_path / "q.jsonl", QUESTIONS[:1])
    runner = CliRunner()
    for _ in range(2):
        args = ["eval", str(questions), "--database", str(database), "--mode", "react"]
        result = runner.invoke(app, [*args, "--json", str(tmp_path / "r.json")])
        assert result.exit_code == 0, result.output
        document = json.loads((tmp_path / "r.json").read_text())
        assert document["ontology"] == "eval shop"
        # Gold and answer both run on the file itself.
        assert document["questions"][0]["outcome"] == "correct"
    names = asyncio.run(_ontology_names(demo_home))
    assert names.count("eval shop") == 1


async def _ontology_names(data: Path) -> list[str]:
    from sqlalchemy import select

    from dataagent.services.context import AppContext
    from dataagent.store.models import Ontology

    ctx = AppContext.from_settings(Settings(data_dir=data))
    try:
        async with ctx.database.session() as session:
            return list(await session.scalars(select(Ontology.name)))
    finally:
        await ctx.aclose()


def test_spider_questions_converted_at_run_time_are_scored_on_their_database(
    model_env: FakeOpenAIServer, evaldata: Path, tmp_path: Path
) -> None:
    from scripts.evaldata_questions import main as convert

    convert(
        ["spider", "--db", "concert_singer", "--evaldata", str(evaldata), "--out", str(tmp_path)]
    )
    converted = tmp_path / "spider_concert_singer.jsonl"
    items = [json.loads(line) for line in converted.read_text().splitlines()]
    assert len(items) == 45
    assert {i["db"] for i in items} == {str(SPIDER_SQLITE / "concert_singer.sqlite")}
    # A model that writes each question's gold SQL: every answer is correct.
    model_env.default = analyst({i["question"]: i["gold_sql"] for i in items[:4]})
    few = write_questions(tmp_path / "few.jsonl", items[:4])
    args = ["eval", str(few), "--database", items[0]["db"], "--mode", "react"]
    result = CliRunner().invoke(app, [*args, "--json", str(tmp_path / "r.json")])
    assert result.exit_code == 0, result.output
    document = json.loads((tmp_path / "r.json").read_text())
    assert [q["outcome"] for q in document["questions"]] == ["correct"] * 4
    assert document["ontology"] == "eval concert_singer"
