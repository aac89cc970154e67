"""`dataagent eval` and `dataagent ask` in offline mode on the demo with no model configured:
the dev set's questions answered by the offline planner, costing no model call."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from dataagent.cli import app

DEV_SET = Path(__file__).resolve().parents[3] / "evals" / "demo_dev.jsonl"
# Total revenue, revenue by region, last quarter's revenue (a window on the reference date
# 2025-12-31: with today's date it would find no orders), and a question to abstain on.
PICKED = ("demo-001", "demo-040", "demo-070", "demo-115")
NO_MODEL = (
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "ANTHROPIC_API_KEY",
    "AZURE_OPENAI_API_KEY",
    "AZURE_OPENAI_ENDPOINT",
)


@pytest.fixture
def offline_env(demo_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("DATAAGENT_DATA_DIR", str(demo_home))
    monkeypatch.setenv("DATAAGENT_LOG_LEVEL", "WARNING")
    for name in NO_MODEL:
        monkeypatch.delenv(name, raising=False)
    return demo_home


# The --database test gives the admin a second ontology: name the demo's.
DEMO = ("--ontology", "Retail demo")


def picked(tmp_path: Path, ids: tuple[str, ...] = PICKED) -> Path:
    lines = [line for line in DEV_SET.read_text().splitlines() if json.loads(line)["id"] in ids]
    path = tmp_path / "picked.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_eval_offline_on_the_dev_set_costs_no_model_call(offline_env: Path, tmp_path: Path) -> None:
    report, page = tmp_path / "r.json", tmp_path / "r.md"
    args = ["eval", str(picked(tmp_path)), "--mode", "offline", *DEMO, "--json", str(report)]
    result = CliRunner().invoke(app, [*args, "--markdown", str(page), "--min-accuracy", "1"])
    assert result.exit_code == 0, result.output
    document = json.loads(report.read_text())
    outcomes = {q["id"]: q["outcome"] for q in document["questions"]}
    assert outcomes == dict.fromkeys(PICKED, "correct")
    assert {q["agentMode"] for q in document["questions"]} == {"offline"}
    abstained = next(q for q in document["questions"] if q["id"] == "demo-115")
    assert abstained["predictedSql"] is None
    summary = document["summary"]
    assert (summary["modelCalls"], summary["tokens"]["total"]) == (0, 0)
    assert summary["accuracy"] == 1.0
    assert document["referenceDate"] == "2025-12-31"
    assert "Execution accuracy **100.0%** (4 of 4)" in page.read_text()


def test_eval_offline_exits_non_zero_below_the_minimum(offline_env: Path, tmp_path: Path) -> None:
    # The gold of this copy is deliberately another number: the answer is scored wrong.
    wrong = {
        "id": "w-1",
        "question": "What was our total revenue?",
        "gold_sql": "SELECT 42",
        "kind": "metric",
        "reference_date": "2025-12-31",
    }
    path = tmp_path / "wrong.jsonl"
    path.write_text(json.dumps(wrong) + "\n")
    result = CliRunner().invoke(
        app, ["eval", str(path), "--mode", "offline", *DEMO, "--min-accuracy", "0.5"]
    )
    assert result.exit_code == 1, result.output
    assert "accuracy 0.0% is below --min-accuracy 50.0%" in result.output


def test_ask_offline_json_prints_the_rows(offline_env: Path, tmp_path: Path) -> None:
    charts = ["--charts-dir", str(tmp_path / "charts")]
    result = CliRunner().invoke(
        app, ["ask", "revenue by region", "--mode", "offline", *DEMO, "--json", *charts]
    )
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout.strip().splitlines()[-1])
    assert document["status"] == "complete"
    assert document["agentMode"] == "offline"
    regions = sorted(row[document["columns"].index("region")] for row in document["rows"])
    assert regions == ["Midwest", "South", "Southeast", "West"]
    assert document["rowCount"] == 4
    assert "region" in document["sql"]
    assert document["lineage"]["datasets"]
    for chart in document["charts"]:
        assert Path(chart).read_bytes().startswith(b"\x89PNG")
