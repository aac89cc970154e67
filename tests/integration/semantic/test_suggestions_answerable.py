"""Every suggested question is one the offline planner answers, and its plan runs: on the
demo retailer's curated model, on a model generated from the demo database, and on models
generated from Spider's SQLite databases (the files only, not their questions)."""

from __future__ import annotations

import contextlib
import datetime as dt
import sqlite3
from pathlib import Path

import pytest
from tests.conftest import LOCAL, SPIDER_SQLITE

from dataagent.agent.offline import plan_question
from dataagent.demo import DemoData, write_sqlite
from dataagent.demo.semantic_model import curated_model_yaml
from dataagent.semantic.compiler import compile_plan
from dataagent.semantic.generation import generate_semantic_model
from dataagent.semantic.model import SemanticModel
from dataagent.semantic.suggestions import suggest_questions
from dataagent.semantic.yaml_io import load_yaml
from dataagent.sources.engines import ConnectionSpec
from dataagent.sources.introspection import introspect

TODAY = dt.date(2025, 12, 31)
LIMIT = 8  # the most the API offers


def answer_every_suggestion(model: SemanticModel, database: Path) -> None:
    suggestions = suggest_questions(model, LIMIT)
    assert suggestions
    with contextlib.closing(sqlite3.connect(f"file:{database}?mode=ro", uri=True)) as db:
        for suggestion in suggestions:
            result = plan_question(suggestion.prompt, model, today=TODAY)
            assert result.answered, (suggestion.prompt, result)
            assert result.plan is not None
            sql = compile_plan(result.plan, model, "sqlite", today=TODAY).sql
            db.execute(sql).fetchall()


@pytest.fixture(scope="module")
def demo_sqlite(demo_data: DemoData, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("suggestions") / "retail.sqlite"
    write_sqlite(demo_data, path)
    return path


def test_the_demo_model(demo_sqlite: Path) -> None:
    answer_every_suggestion(load_yaml(curated_model_yaml()), demo_sqlite)


def test_a_model_generated_from_the_demo_database(demo_sqlite: Path) -> None:
    spec = ConnectionSpec(dialect="sqlite", database=str(demo_sqlite))
    answer_every_suggestion(generate_semantic_model(introspect(spec, LOCAL), "demo"), demo_sqlite)


def spider_databases() -> list[object]:
    found = sorted(SPIDER_SQLITE.glob("*.sqlite")) if SPIDER_SQLITE.is_dir() else []
    return found or [pytest.param(SPIDER_SQLITE / "absent.sqlite", id="evaldata-absent")]


@pytest.mark.usefixtures("evaldata")
@pytest.mark.parametrize("path", spider_databases(), ids=lambda p: getattr(p, "stem", "?"))
def test_models_generated_from_spider_databases(path: Path) -> None:
    spec = ConnectionSpec(dialect="sqlite", database=str(path))
    answer_every_suggestion(generate_semantic_model(introspect(spec, LOCAL), path.stem), path)
