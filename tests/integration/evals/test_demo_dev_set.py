"""The demo dev set (`evals/demo_dev.jsonl`): well formed, and every gold query runs on the
demo retailer in SQLite and returns a value."""

from __future__ import annotations

import datetime
import json
import sqlite3
from collections import Counter
from pathlib import Path

import pytest

from dataagent.demo import DemoData
from dataagent.demo.loaders import write_sqlite
from dataagent.evals.runner import read_questions

DEV_SET = Path(__file__).resolve().parents[3] / "evals" / "demo_dev.jsonl"
KEYS = {"id", "question", "gold_sql", "kind", "reference_date", "alternatives", "answerable"}


@pytest.fixture(scope="module")
def questions() -> list[dict[str, object]]:
    return [json.loads(line) for line in DEV_SET.read_text().splitlines() if line.strip()]


@pytest.fixture(scope="module")
def demo_sqlite(demo_data: DemoData, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("dev_set") / "retail.sqlite"
    write_sqlite(demo_data, path)
    return path


def test_the_dev_set_is_well_formed(questions: list[dict[str, object]]) -> None:
    assert len(questions) >= 85
    ids = [q["id"] for q in questions]
    assert len(set(ids)) == len(ids)
    for item in questions:
        assert set(item) <= KEYS, item
        assert isinstance(item["question"], str) and item["question"].strip()
        datetime.date.fromisoformat(str(item["reference_date"]))
        if item.get("answerable", True):
            assert isinstance(item["gold_sql"], str), item
    assert len(read_questions(DEV_SET)) == len(questions)  # what `dataagent eval` reads
    kinds = Counter(str(q["kind"]) for q in questions)
    assert kinds["unanswerable"] >= 8
    assert len(kinds) >= 10


def test_every_gold_query_runs_and_returns_a_value(
    questions: list[dict[str, object]], demo_sqlite: Path
) -> None:
    with sqlite3.connect(demo_sqlite) as conn:
        for item in questions:
            golds = [item["gold_sql"], *item.get("alternatives", [])]  # type: ignore[list-item]
            for sql in golds:
                if sql is None:
                    assert item.get("answerable") is False, item["id"]
                    continue
                rows = conn.execute(str(sql)).fetchall()
                assert rows, (item["id"], sql)
                assert any(value is not None for row in rows for value in row), item["id"]
