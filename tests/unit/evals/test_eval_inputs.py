"""What `dataagent eval` reads: question files, the query behind an answer's result, the
summary's figures, and the defog gold expansion of scripts/evaldata_questions.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from scripts.evaldata_questions import defog_golds, expand_columns, split_statements

from dataagent.errors import DataAgentError
from dataagent.evals.runner import answer_query, percentile, read_questions


def write(tmp_path: Path, *lines: object) -> Path:
    path = tmp_path / "q.jsonl"
    path.write_text("\n".join(json.dumps(x) if not isinstance(x, str) else x for x in lines))
    return path


def test_a_question_file_is_read_and_bad_lines_are_named(tmp_path: Path) -> None:
    ok = write(
        tmp_path,
        {"id": "a", "question": "q?", "gold_sql": "SELECT 1", "reference_date": "2025-12-31"},
        "",
        {"id": "b", "question": "r?", "gold_sql": None, "answerable": False},
    )
    questions = read_questions(ok)
    assert [q.id for q in questions] == ["a", "b"]
    assert questions[0].golds == ["SELECT 1"]
    assert questions[1].golds == []
    cases = {
        "line 2: id: Field required": ({"question": "q?", "gold_sql": "x"},),
        "line 1: Expecting value": ("not json",),
        "line 1: an answerable question needs gold_sql": ({"id": "a", "question": "q"},),
        "repeated ids a": (
            {"id": "a", "question": "q", "gold_sql": "x"},
            {"id": "a", "question": "q", "gold_sql": "x"},
        ),
        "line 1: surprise: Extra inputs are not permitted": (
            {"id": "a", "question": "q", "gold_sql": "x", "surprise": 1},
        ),
    }
    for sentence, lines in cases.items():
        body = (
            lines
            if "line 2" not in sentence
            else ({"id": "z", "question": "q", "gold_sql": "x"}, *lines)
        )
        with pytest.raises(DataAgentError) as raised:
            read_questions(write(tmp_path, *body))
        assert sentence in raised.value.message


def test_the_answer_query_is_the_last_successful_step_or_query_database_call() -> None:
    pipeline = {
        "stepResults": [
            {"stepId": 1, "sqlResult": {"sql": "SELECT 1", "columns": ["a"], "rows": [[1]]}},
            {"stepId": 2, "sqlResult": {"sql": "SELECT 2", "columns": ["b"], "rows": [[2]]}},
            {"stepId": 3, "sqlResult": {"sql": "SELECT broken"}, "error": "no such column"},
            {"stepId": 4, "pythonResult": {"code": "print(1)"}},
        ]
    }
    found = answer_query(pipeline)
    assert found.sql == "SELECT 2"
    assert found.preview is not None and found.preview.rows == [[2]]
    truncated = {"stepResults": [{"sqlResult": {"sql": "SELECT 3", "truncated": True}}]}
    assert answer_query(truncated).preview is None
    react = {
        "toolCalls": [
            {"name": "query_database", "args": {"sql": "SELECT 1"}, "isError": False},
            {"name": "query_database", "args": {"sql": "SELECT oops"}, "isError": True},
            {"name": "get_sample_data", "args": {"dataset": "orders"}, "isError": False},
        ]
    }
    assert answer_query(react).sql == "SELECT 1"
    failed = {"toolCalls": [{"name": "query_database", "args": {"sql": "x"}, "isError": True}]}
    assert (answer_query(failed).sql, answer_query(failed).failed) == (None, True)
    assert (answer_query({}).sql, answer_query({}).failed) == (None, False)


def test_percentiles() -> None:
    assert percentile([], 0.5) == 0.0
    assert percentile([7.0], 0.9) == 7.0
    values = [float(v) for v in range(1, 101)]
    assert percentile(values, 0.5) == pytest.approx(50.5, abs=0.5)
    assert percentile(values, 0.9) == pytest.approx(90.1, abs=0.5)


def test_defog_golds_expand_statements_and_column_lists() -> None:
    assert split_statements("SELECT 'a;b' FROM t; SELECT 2;") == ["SELECT 'a;b' FROM t", "SELECT 2"]
    assert expand_columns("SELECT {a.x, a.y}, SUM(z) FROM a GROUP BY {}") == [
        "SELECT a.x, SUM(z) FROM a GROUP BY a.x",
        "SELECT a.y, SUM(z) FROM a GROUP BY a.y",
        "SELECT a.x, a.y, SUM(z) FROM a GROUP BY a.x, a.y",
    ]
    assert expand_columns("SELECT x FROM t") == ["SELECT x FROM t"]
    golds = defog_golds("SELECT {a, b} FROM t;SELECT a FROM t;")
    assert golds == ["SELECT a FROM t", "SELECT b FROM t", "SELECT a, b FROM t"]
