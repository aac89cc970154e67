"""A query asking for ~800 MB of result leaves the server's memory within a stated bound.

Rows are fetched one at a time and stop at the caps; PostgreSQL cuts long values before it
sends them; SQLite's length and heap limits bound any value it builds; DuckDB queries run in
a child process with their own memory limit. Each dialect runs in a fresh Python process
whose peak resident set (VmHWM) is read before and after the query.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest
from tests.conftest import mysql_reader, postgres_reader

SCRIPT = Path(__file__).resolve().parents[2] / "fixtures" / "memory" / "peak_rss.py"
# The stated bound: the query may raise the server's peak by at most this much. Measured
# before the fix: +955 MB (SQLite), +1,820 MB (DuckDB), +1,634 MB (PostgreSQL).
BOUND_MB = 200


@pytest.fixture(params=["sqlite", "duckdb", "postgresql", "mysql"])
def target(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str, str]]:
    dialect = request.param
    if dialect == "sqlite":
        path = tmp_path / "m.sqlite"
        sqlite3.connect(path).close()
        yield dialect, str(path)
    elif dialect == "duckdb":
        path = tmp_path / "m.duckdb"
        duckdb.connect(str(path)).close()
        yield dialect, str(path)
    elif dialect == "postgresql":
        with postgres_reader(request.getfixturevalue("postgres_db")) as url:
            yield dialect, url
    else:
        with mysql_reader(request.getfixturevalue("mysql_db")) as url:
            yield dialect, url


def test_peak_memory_stays_within_the_bound(target: tuple[str, str]) -> None:
    dialect, where = target
    ran = subprocess.run(
        [sys.executable, str(SCRIPT), dialect, where],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "OPENBLAS_NUM_THREADS": "1"},
        check=False,
    )
    assert ran.returncode == 0, ran.stderr
    report = json.loads(ran.stdout.strip().splitlines()[-1])
    grew = report["peak_mb"] - report["base_mb"]
    assert grew <= BOUND_MB, f"{dialect}: +{grew} MB ({report})"
    if dialect == "duckdb":  # the child ran out of its own memory, not the server
        assert "memory" in report["outcome"].lower(), report
    elif dialect != "sqlite":  # the values came back, cut to the cell cap
        assert report["outcome"].startswith("8 rows"), report
