"""The command line, run as a real process."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from dataagent import __version__


def _run(tmp_path: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {
        "PATH": os.environ.get("PATH", ""),
        "DATAAGENT_DATA_DIR": str(tmp_path / "data"),
        "COLUMNS": "200",
    }
    return subprocess.run(
        [sys.executable, "-m", "dataagent", *args],
        cwd=tmp_path,
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_version(tmp_path: Path) -> None:
    result = _run(tmp_path, "version")
    assert result.returncode == 0
    assert __version__ in result.stdout


def test_db_upgrade_and_current(tmp_path: Path) -> None:
    upgraded = _run(tmp_path, "db", "upgrade")
    assert upgraded.returncode == 0, upgraded.stderr
    current = _run(tmp_path, "db", "current")
    assert current.stdout.strip() not in ("", "empty")


def test_users_create_from_stdin(tmp_path: Path) -> None:
    created = _run(
        tmp_path,
        "users",
        "create",
        "--email",
        "ana@example.com",
        "--role",
        "contributor",
        "--password-stdin",
        stdin="a-long-password\n",
    )
    assert created.returncode == 0, created.stderr
    assert "ana@example.com" in created.stdout
    again = _run(
        tmp_path,
        "users",
        "create",
        "--email",
        "ana@example.com",
        "--password-stdin",
        stdin="a-long-password\n",
    )
    assert again.returncode == 1
    assert "already exists" in again.stderr


@pytest.mark.parametrize(
    ("args", "stdin", "message"),
    [
        (["--email", "b@example.com"], "", "--password-stdin"),
        (["--email", "b@example.com", "--password-stdin"], "short\n", "at least 8"),
        (
            ["--email", "b@example.com", "--role", "root", "--password-stdin"],
            "long-enough\n",
            "role",
        ),
    ],
)
def test_users_create_refusals(tmp_path: Path, args: list[str], stdin: str, message: str) -> None:
    result = _run(tmp_path, "users", "create", *args, stdin=stdin)
    assert result.returncode != 0
    assert message in result.stderr


def test_ontology_backfill_with_nothing_to_do(tmp_path: Path) -> None:
    result = _run(tmp_path, "ontology", "backfill")
    assert result.returncode == 0, result.stderr
    assert "re-embedded 0 ontologies" in result.stdout
