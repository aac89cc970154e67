"""Sandbox benchmark: the warm pool against a cold `python -c` per run (the seeds' approach).

Runs the same pandas + matplotlib snippet (one chart saved as PNG) both ways, reports
the median latency of each and their ratio (goal: warm >= 10x faster), the throughput
of the warm pool with two concurrent callers (two people), and how long one person's
quick run takes while another person has eight sleeping runs queued (fair shares).
Writes JSON to benchmarks/results/sandbox.json.
Usage: .venv/bin/python benchmarks/sandbox_bench.py
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from dataagent.sandbox import LocalSandbox

SNIPPET = """
import pandas as pd
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
df = pd.DataFrame({"month": range(1, 13), "revenue": [x * 1.5 for x in range(12)]})
df.plot(x="month", y="revenue")
plt.savefig("chart.png")
print(df["revenue"].sum())
"""
RESULTS = Path(__file__).resolve().parent / "results"


def cold_run(workdir: str) -> float:
    """One `python -c` subprocess: interpreter start, imports, one chart."""
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", SNIPPET], cwd=workdir, check=True, capture_output=True)
    return time.perf_counter() - started


async def warm_runs(sandbox: LocalSandbox, count: int) -> list[float]:
    """Sequential executions through the warm pool."""
    timings = []
    for _ in range(count):
        started = time.perf_counter()
        result = await sandbox.execute(SNIPPET)
        timings.append(time.perf_counter() - started)
        assert result.ok and result.charts, result.stderr
    return timings


async def throughput(sandbox: LocalSandbox, callers: int, per_caller: int) -> float:
    """Executions per second with `callers` concurrent callers."""

    async def caller(person: str) -> None:
        for _ in range(per_caller):
            assert (await sandbox.execute(SNIPPET, owner=person)).ok

    started = time.perf_counter()
    await asyncio.gather(*(caller(f"person {n}") for n in range(callers)))
    return callers * per_caller / (time.perf_counter() - started)


async def quick_run_beside_a_burst(sandbox: LocalSandbox, burst: int) -> float:
    """Seconds one person's quick run takes while another has `burst` sleeping runs queued."""
    sleeping = [
        asyncio.create_task(sandbox.execute("import time\ntime.sleep(20)", owner="busy"))
        for _ in range(burst)
    ]
    await asyncio.sleep(0)  # each task takes its place in line; the first one a slot
    assert sandbox.slots.running("busy") == 1 and sandbox.slots.waiting("busy") == burst - 1
    started = time.perf_counter()
    result = await sandbox.execute("print(40 + 2)", owner="quick")
    elapsed = time.perf_counter() - started
    assert result.stdout == "42\n", result
    for task in sleeping:
        task.cancel()
    await asyncio.gather(*sleeping, return_exceptions=True)
    return elapsed


async def main(runs: int) -> dict[str, float]:
    """Measure everything in one run and return the figures."""
    with tempfile.TemporaryDirectory() as workdir:
        cold_run(workdir)  # fill the OS page cache so cold runs are not disk-bound
        cold = [cold_run(workdir) for _ in range(runs)]
    async with LocalSandbox(pool_size=2, max_concurrency=2) as sandbox:
        await warm_runs(sandbox, 2)  # first runs after start-up
        warm = await warm_runs(sandbox, runs)
        concurrent = await throughput(sandbox, callers=2, per_caller=runs)
        beside_burst = await quick_run_beside_a_burst(sandbox, burst=8)
    cold_median, warm_median = statistics.median(cold), statistics.median(warm)
    return {
        "runs": runs,
        "cold_median_ms": round(cold_median * 1000, 1),
        "warm_median_ms": round(warm_median * 1000, 1),
        "speedup": round(cold_median / warm_median, 1),
        "cold_throughput_per_s": round(1 / cold_median, 2),
        "warm_throughput_2_callers_per_s": round(concurrent, 2),
        "quick_run_beside_8_sleeping_runs_ms": round(beside_burst * 1000, 1),
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10, help="Runs per measurement.")
    figures = asyncio.run(main(parser.parse_args().runs))
    width = max(len(key) for key in figures)
    print(f"{'measure'.ljust(width)}  value")
    for key, value in figures.items():
        print(f"{key.ljust(width)}  {value}")
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "sandbox.json").write_text(json.dumps(figures, indent=2) + "\n")
