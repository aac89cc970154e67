"""The command line, run as a real process."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

import dataagent
from dataagent import __version__
from dataagent.store.migrations import head_revision

# The code this test imported, so the command runs it too (not another installed copy).
SOURCE = str(Path(dataagent.__file__).resolve().parents[1])


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", ""),
        "PYTHONPATH": SOURCE,
        "DATAAGENT_DATA_DIR": str(tmp_path / "data"),
        "COLUMNS": "200",
        **extra,
    }


def _run(tmp_path: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    env = _env(tmp_path)
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


def _serve_start_up(tmp_path: Path) -> list[str]:
    """What `dataagent serve` logs until it is ready (then it is stopped with SIGTERM)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = _env(
        tmp_path,
        DATAAGENT_PORT=str(port),
        DATAAGENT_LOG_LEVEL="INFO",
        DATAAGENT_SANDBOX_POOL_SIZE="0",
    )
    process = subprocess.Popen(
        [sys.executable, "-m", "dataagent", "serve"],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert process.stdout is not None
    lines: list[str] = []
    deadline = time.monotonic() + 120
    try:
        while time.monotonic() < deadline and (line := process.stdout.readline()):
            lines.append(line.rstrip("\n"))
            if "Application startup complete" in line:
                break
    finally:
        process.send_signal(signal.SIGTERM)
        process.communicate(timeout=30)
    assert any("Application startup complete" in line for line in lines), lines
    return lines


def test_serve_start_up_log_names_the_migrations_and_nothing_of_alembic(tmp_path: Path) -> None:
    first = _serve_start_up(tmp_path)
    assert not [line for line in first if "alembic" in line.lower()], first
    migrated = [line for line in first if "Migrated the app database" in line]
    assert len(migrated) == 1, first
    assert migrated[0].endswith(f"now at revision {head_revision()}")
    assert "applied 0001, " in migrated[0]

    again = _serve_start_up(tmp_path)  # nothing left to migrate: no line about it
    assert not [line for line in again if "alembic" in line.lower() or "Migrat" in line], again
