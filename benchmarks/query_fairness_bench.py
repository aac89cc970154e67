"""Query fairness: does one user's pile of slow queries hold up another user's trivial one?

Two contributors on one in-process server. Ana fires --heavy slow SQLite queries (a
recursive CTE that runs until the time limit); while they run or wait, Bob's `SELECT 1`
is timed and compared with its latency on an idle server (goal: the ratio stays small,
not the tens of seconds a shared, unfair queue gives). Writes JSON to
benchmarks/results/query_fairness.json.

    .venv/bin/python benchmarks/query_fairness_bench.py [--heavy 8] [--timeout 5] [--runs 20]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sqlite3
import statistics
import tempfile
import time
import uuid
from collections import Counter
from pathlib import Path

import httpx

from dataagent.api.app import create_app
from dataagent.config import Settings
from dataagent.services.context import AppContext
from dataagent.services.users import create_user, sign_in
from dataagent.store.migrations import upgrade

SLOW_SQL = (
    "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000000000) "
    "SELECT count(*) FROM n"
)
RESULTS = Path(__file__).resolve().parent / "results"


async def signed_in_client(
    ctx: AppContext, app: object, email: str
) -> tuple[uuid.UUID, httpx.AsyncClient]:
    """A contributor's id and API client, created and signed in through the services."""
    password = "fairness-bench-password"
    async with ctx.database.session() as session:
        await create_user(session, email, password, "contributor")
        signed = await sign_in(ctx, session, email, password, "127.0.0.1")
    return signed.user.id, httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app),  # type: ignore[arg-type]
        base_url="http://bench",
        headers={"Authorization": f"Bearer {signed.token}"},
        timeout=600,
    )


async def timed_queries(client: httpx.AsyncClient, connection_id: str, runs: int) -> list[float]:
    """Latencies of `runs` sequential `SELECT 1` queries."""
    timings = []
    for _ in range(runs):
        started = time.perf_counter()
        response = await client.post(
            "/api/query", json={"connectionId": connection_id, "sql": "SELECT 1"}
        )
        timings.append(time.perf_counter() - started)
        assert response.status_code == 200, response.text
    return timings


async def main(heavy: int, query_timeout_s: float, runs: int) -> dict[str, object]:
    """Measure everything in one run and return the figures."""
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        app_url = f"sqlite:///{root / 'app.db'}"
        upgrade(app_url)
        database = root / "q.db"
        with sqlite3.connect(database) as db:
            db.execute("CREATE TABLE t (a INTEGER)")
        settings = Settings(
            data_dir=root / "data",
            database_url=app_url,
            file_roots=[root],
            query_timeout_s=query_timeout_s,
            _env_file=None,
        )
        app = create_app(settings)
        ctx: AppContext = app.state.context
        try:
            ana_user, ana = await signed_in_client(ctx, app, "ana@bench.example")
            _, bob = await signed_in_client(ctx, app, "bob@bench.example")
            connections = []
            for client in (ana, bob):
                body = {"name": "bench", "dialect": "sqlite", "database": str(database)}
                connections.append((await client.post("/api/connections", json=body)).json())
            ana_id, bob_id = (created["data"]["id"] for created in connections)

            await timed_queries(bob, bob_id, 2)  # first queries open the engine
            idle = await timed_queries(bob, bob_id, runs)

            async def slow() -> int:
                body = {"connectionId": ana_id, "sql": SLOW_SQL}
                return (await ana.post("/api/query", json=body)).status_code

            started = time.perf_counter()
            pile = [asyncio.create_task(slow()) for _ in range(heavy)]
            # Poll until ana's pile fills her share of the pool (the pool has no event for it).
            while ctx.query_pool.running(ana_user) < settings.query_max_per_user:  # noqa: ASYNC110
                await asyncio.sleep(0.01)
            busy = await timed_queries(bob, bob_id, runs)
            busy_window = time.perf_counter() - started
            outcomes = Counter(await asyncio.gather(*pile))
            await ana.aclose()
            await bob.aclose()
        finally:
            await ctx.aclose()
    idle_median, busy_median = statistics.median(idle), statistics.median(busy)
    return {
        "heavy_queries": heavy,
        "query_timeout_s": query_timeout_s,
        "per_user_limit": settings.query_max_per_user,
        "heavy_outcomes": {str(code): count for code, count in sorted(outcomes.items())},
        "idle_median_ms": round(idle_median * 1000, 1),
        "busy_median_ms": round(busy_median * 1000, 1),
        "busy_max_ms": round(max(busy) * 1000, 1),
        "busy_over_idle": round(busy_median / idle_median, 2),
        "measured_within_s_of_pile": round(busy_window, 2),
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--heavy", type=int, default=8, help="Slow queries the first user fires.")
    parser.add_argument("--timeout", type=float, default=5.0, help="query_timeout_s, seconds.")
    parser.add_argument("--runs", type=int, default=20, help="Timed queries per measurement.")
    arguments = parser.parse_args()
    figures = asyncio.run(main(arguments.heavy, arguments.timeout, arguments.runs))
    width = max(len(key) for key in figures)
    print(f"{'measure'.ljust(width)}  value")
    for key, value in figures.items():
        print(f"{key.ljust(width)}  {value}")
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "query_fairness.json").write_text(json.dumps(figures, indent=2) + "\n")
