"""Fault injection (`evals/faults/`): the verifier flags at least 90% of the faulty queries
and no gold one, over the demo retailer and five Spider databases, through the guarded
executor. `dataagent eval faults` prints the same figures."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from sqlalchemy import func, select
from tests.conftest import LOCAL, SPIDER_SQLITE
from tests.integration.agent.conftest import retail_ontology
from tests.integration.api.conftest import (  # noqa: F401 - fixtures used by these tests
    World,
    database_url,
    settings,
    world,
)
from typer.testing import CliRunner

from dataagent.cli import _faults_on_ontology, app
from dataagent.demo import DemoData
from dataagent.demo.loaders import write_duckdb, write_sqlite
from dataagent.evals import faults
from dataagent.semantic.generation import generate_semantic_model
from dataagent.semantic.yaml_io import dump_yaml
from dataagent.sources.engines import ConnectionSpec
from dataagent.sources.introspection import introspect
from dataagent.store.models import QueryRecord

FAULTS = Path(__file__).resolve().parents[3] / "evals" / "faults"
SPIDER = ["chinook_1", "concert_singer", "world_1", "orchestra", "tvshow"]


def with_null_genres(tmp_path: Path) -> Path:
    """chinook_1 with some tracks of no genre: NULL-key loss changes answers here."""
    path = tmp_path / "chinook_1.sqlite"
    shutil.copy(SPIDER_SQLITE / "chinook_1.sqlite", path)
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE Track SET GenreId = NULL WHERE TrackId % 7 = 0")
    return path


@pytest.fixture
def databases(demo_data: DemoData, evaldata: Path, tmp_path: Path) -> dict[str, Path]:
    """Each faults file's database: the demo as SQLite, the Spider files (one copy changed)."""
    retail = tmp_path / "retail.sqlite"
    write_sqlite(demo_data, retail)
    found = {"retail": retail, "spider_chinook_1": with_null_genres(tmp_path)}
    for name in SPIDER[1:]:
        found[f"spider_{name}"] = SPIDER_SQLITE / f"{name}.sqlite"
    return found


async def evaluate(name: str, path: Path) -> list[faults.CaseResult]:
    spec = ConnectionSpec(dialect="sqlite", database=str(path))
    model = generate_semantic_model(introspect(spec, LOCAL), name)
    cases = faults.read_cases(FAULTS / f"{name}.jsonl")
    return await faults.evaluate(cases, model, faults.database_runner(spec))


async def test_the_verifier_flags_the_faults_and_no_gold_query(
    databases: dict[str, Path],
) -> None:
    assert sorted(p.stem for p in FAULTS.glob("*.jsonl")) == sorted(databases)
    results: list[faults.CaseResult] = []
    for name, path in databases.items():
        results += await evaluate(name, path)
    golds = {r.case.gold_sql for r in results}
    assert len(golds) >= 40
    assert {r.case.kind for r in results} == set(faults.KINDS)
    gold_flagged = [(r.case.question, r.gold_flags, r.messages) for r in results if r.gold_flags]
    assert gold_flagged == []
    table = {row.kind: row for row in faults.summarise(results)}
    total = table["all"]
    assert total.cases == len(results)
    assert total.faulty_flagged >= 0.9 * total.cases
    for kind in faults.KINDS:
        row = table[kind]
        assert row.faulty_flagged >= 0.8 * row.cases, row
    print("\n".join(json.dumps(row.to_json()) for row in table.values()))


async def test_null_key_loss_changes_the_answer_on_the_changed_copy(
    databases: dict[str, Path],
) -> None:
    spec = ConnectionSpec(dialect="sqlite", database=str(databases["spider_chinook_1"]))
    run = faults.database_runner(spec)
    cases = [
        c
        for c in faults.read_cases(FAULTS / "spider_chinook_1.jsonl")
        if c.kind == "null_key_loss" and "GenreId" in c.faulty_sql
    ]
    assert len(cases) >= 2
    for case in cases:
        gold, faulty = await run(case.gold_sql), await run(case.faulty_sql)
        assert not isinstance(gold, str) and not isinstance(faulty, str)
        assert gold.rows != faulty.rows, case.question


def test_the_command_on_a_database_file(databases: dict[str, Path]) -> None:
    runner = CliRunner()
    path = databases["spider_orchestra"]
    result = runner.invoke(
        app,
        [
            "eval",
            "faults",
            str(FAULTS / "spider_orchestra.jsonl"),
            "--database",
            str(path),
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    cases, summary = lines[:-1], lines[-1]
    assert [set(c) for c in cases] == [{"kind", "question", "gold_flags", "faulty_flags"}] * len(
        cases
    )
    assert all(c["gold_flags"] == [] and c["faulty_flags"] for c in cases)
    assert summary["byKind"][-1] == {
        "kind": "all",
        "cases": len(cases),
        "faultyFlagged": len(cases),
        "flaggedByItsCheck": len(cases),
        "goldFlagged": 0,
    }
    table = runner.invoke(
        app, ["eval", "faults", str(FAULTS / "spider_orchestra.jsonl"), "--database", str(path)]
    )
    assert table.exit_code == 0 and "faulty flagged" in table.stdout


def test_the_command_with_a_model_file(databases: dict[str, Path], tmp_path: Path) -> None:
    path = databases["spider_tvshow"]
    model = generate_semantic_model(
        introspect(ConnectionSpec(dialect="sqlite", database=str(path)), LOCAL), "tvshow"
    )
    # Without its relationships the model cannot tell a wrong join key from a right one.
    bare = tmp_path / "tvshow.yaml"
    bare.write_text(dump_yaml(model.model_copy(update={"relationships": []})))
    args = ["eval", "faults", str(FAULTS / "spider_tvshow.jsonl"), "--database", str(path)]
    result = CliRunner().invoke(app, [*args, "--model", str(bare), "--json"])
    assert result.exit_code == 0, result.output
    cases = [json.loads(line) for line in result.stdout.splitlines()[:-1]]
    missed = {c["kind"] for c in cases if not c["faulty_flags"]}
    assert "null_key_loss" in missed  # no relationship, no foreign key to lose rows over


def test_the_command_needs_one_source(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["eval", "faults", str(FAULTS / "retail.jsonl")])
    assert result.exit_code == 2
    bad = tmp_path / "bad.jsonl"
    bad.write_text(
        '{"question": "q", "gold_sql": "SELECT 1", "faulty_sql": "SELECT 2", "kind": "typo"}\n'
    )
    result = CliRunner().invoke(
        app, ["eval", "faults", str(bad), "--database", str(tmp_path / "x.sqlite")]
    )
    assert result.exit_code == 1
    assert "bad.jsonl line 1" in result.stderr


async def test_on_an_ontology_through_the_recorded_executor(
    world: World,  # noqa: F811
    demo_data: DemoData,
    tmp_path: Path,
) -> None:
    ctx = world.context
    await retail_ontology(world, demo_data, tmp_path / "retail.db", name="Faults")
    cases = faults.read_cases(FAULTS / "retail.jsonl")[:4]
    results = await _faults_on_ontology(ctx.settings, cases, "Faults")
    assert [bool(r.faulty_flags) for r in results] == [True] * 4
    assert all(r.gold_flags == [] for r in results)
    async with world.database.session() as session:
        recorded = await session.scalar(
            select(func.count())
            .select_from(QueryRecord)
            .where(QueryRecord.question == "eval faults")
        )
    assert recorded == 8  # every gold and faulty query ran, and was recorded


@pytest.mark.slow
async def test_the_retail_cases_on_the_demos_duckdb_file(
    demo_data: DemoData, tmp_path: Path
) -> None:
    path = tmp_path / "retail.duckdb"
    write_duckdb(demo_data, path)
    spec = ConnectionSpec(dialect="duckdb", database=str(path))
    model = generate_semantic_model(introspect(spec, LOCAL), "retail")
    cases = faults.read_cases(FAULTS / "retail.jsonl")
    results = await faults.evaluate(cases, model, faults.database_runner(spec))
    assert [r.case.question for r in results if r.gold_flags] == []
    assert all(r.faulty_flags for r in results)
