"""`dataagent openapi [-o FILE]`: the document without a server, touching nothing else."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import dataagent
from dataagent.api.app import create_app, openapi_document
from dataagent.config import Settings

# The code this test imported, so the command runs it too (not another installed copy).
SOURCE = str(Path(dataagent.__file__).resolve().parents[1])


def _run(cwd: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    # No DATAAGENT_DATA_DIR: the default `./data` is inside `cwd`, where the test can see it.
    return subprocess.run(
        [sys.executable, "-m", "dataagent", "openapi", *args],
        cwd=cwd,
        env={"PATH": os.environ.get("PATH", ""), "PYTHONPATH": SOURCE, **env},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _files(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


def test_it_prints_the_document_and_creates_nothing(tmp_path: Path) -> None:
    result = _run(tmp_path)
    assert result.returncode == 0, result.stderr
    document = json.loads(result.stdout)
    assert document["info"]["title"] == "Data Agent"
    assert "/api/ontologies/{ontology_id}/suggestions" in document["paths"]
    assert document["paths"]["/api/health"]["get"]["operationId"] == "health"
    assert _files(tmp_path) == []  # no ./data, no secret key, no SQLite file


def test_it_writes_a_file_with_o(tmp_path: Path) -> None:
    data_dir = tmp_path / "elsewhere"
    result = _run(tmp_path, "-o", "openapi.json", DATAAGENT_DATA_DIR=str(data_dir))
    assert result.returncode == 0, result.stderr
    assert result.stdout == ""
    written = (tmp_path / "openapi.json").read_text(encoding="utf-8")
    assert written.endswith("}\n")
    assert json.loads(written)["paths"]
    assert _files(tmp_path) == ["openapi.json"]
    long = _run(tmp_path, "--output", "again.json")
    assert long.returncode == 0 and (tmp_path / "again.json").read_text() == written


def test_an_unreachable_database_setting_does_not_matter(tmp_path: Path) -> None:
    # The document needs no database: a URL nobody answers at is never dialled.
    result = _run(tmp_path, DATAAGENT_DATABASE_URL="postgresql://nobody@127.0.0.1:9/nothing")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["paths"]


async def test_the_document_is_the_served_apps(tmp_path: Path) -> None:
    settings = Settings(
        data_dir=tmp_path / "data",
        database_url=f"sqlite:///{tmp_path / 'app.db'}",
        secret_key="test-secret-key-that-is-long-enough-for-hs256",
        _env_file=None,  # type: ignore[call-arg]
    )
    app = create_app(settings)
    try:
        assert openapi_document() == app.openapi()
    finally:
        await app.state.context.aclose()


def test_each_schema_has_one_plain_name() -> None:
    """Two models of one name make FastAPI qualify both with their module path."""
    names = list(openapi_document()["components"]["schemas"])
    assert [n for n in names if "dataagent__" in n] == []
    assert {"RunPublic", "QueryRecordPublic"} <= set(names)
    run = openapi_document()["paths"]["/api/runs/{run_id}"]["get"]["responses"]["200"]
    schema = run["content"]["application/json"]["schema"]["$ref"]
    assert schema == "#/components/schemas/Envelope_QueryRecordPublic_"
