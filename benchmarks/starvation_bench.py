"""Starvation: can one person's answers hold the server away from everybody else?

A real `dataagent serve` (its own process, uvloop, the real sandbox) and a scripted model
that follows a prompt injection (tests/e2e/attack.py). Mallory starts one answer whose single
model turn calls `run_python("time.sleep(20)")` eight times, and sends sixteen stateless chats
(`POST /api/agent/chat`) to a model that takes 20 s to answer. While all of that is going,
Bob asks a question whose one tool call is `run_python("print(6 * 7)")`, and `/api/health` is
polled. Reported: Bob's answer time (request to `message_complete`) and his run's own
duration, and the health latencies, each against the same measured on an idle server in the
same run (the ratio is the point; seconds depend on the machine). Also how Mallory's sixteen
stateless requests were answered (status counts). Writes JSON to
benchmarks/results/starvation.json.

    .venv/bin/python benchmarks/starvation_bench.py [--health-samples 10]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # for tests.e2e and tests.fakes

from tests.e2e.attack import AttackStack, Person, Play  # noqa: E402
from tests.fakes.openai_server import Step, tool  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results"
DONE = Step(text="Done.")
PLAYS: dict[str, Play] = {
    "sleepers": lambda turns, _: (
        Step(tool_calls=[tool("run_python", code="import time\ntime.sleep(20)") for _ in range(8)])
        if turns == 0
        else DONE
    ),
    "quick": lambda turns, _: (
        Step(tool_calls=[tool("run_python", code="print(6 * 7)")]) if turns == 0 else DONE
    ),
    "slow-model": lambda turns, _: Step(text="Late.", delay_s=20),
}


def bob_answers(bob: Person) -> dict[str, float]:
    """Bob's quick question: seconds to `message_complete`, and his run's own duration."""
    started = time.monotonic()
    answer = bob.ask("[quick] what is six times seven?")
    answer.wait_for("message_complete", timeout_s=300)
    total = time.monotonic() - started
    [result] = answer.tool_results()
    return {"answerS": round(total, 3), "runMs": float(result["durationMs"])}


def health_latencies(stack: AttackStack, samples: int) -> list[float]:
    """Seconds each `GET /api/health` took (sequential samples)."""
    timings = []
    for _ in range(samples):
        started = time.monotonic()
        response = stack.health(timeout_s=120)
        timings.append(round(time.monotonic() - started, 4))
        assert response.status_code == 200, response.text
        time.sleep(0.1)
    return timings


def measure(samples: int) -> dict[str, Any]:
    """Idle figures, then the same under Mallory's load."""
    with tempfile.TemporaryDirectory() as home, AttackStack.start(Path(home), PLAYS) as stack:
        mallory = stack.person("mallory@example.com")
        bob = stack.person("bob@example.com")
        bob_answers(bob)  # warm: the first answer of a server loads what later ones share
        idle = {"bob": bob_answers(bob), "healthS": health_latencies(stack, samples)}

        sleeping = mallory.ask("[sleepers] anything?")
        sleeping.wait_for("tool_call")
        streams = [mallory.stateless("[slow-model] tell me") for _ in range(16)]
        for stream in streams:
            stream.responded.wait(120)
        loaded = {"bob": bob_answers(bob), "healthS": health_latencies(stack, samples)}
        statuses = Counter(str(stream.status) for stream in streams)
        sleeping.cancel()
        for stream in streams:
            stream.close()
        sleeping.wait_end(120)
    return {"idle": idle, "loaded": loaded, "statelessStatuses": dict(statuses)}


def main() -> None:
    """Measure, print and write the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--health-samples", type=int, default=10)
    args = parser.parse_args()
    figures = measure(args.health_samples)
    idle, loaded = figures["idle"], figures["loaded"]
    health_idle = statistics.median(idle["healthS"])
    health_loaded = statistics.median(loaded["healthS"])
    figures["ratios"] = {
        "bobAnswer": round(loaded["bob"]["answerS"] / idle["bob"]["answerS"], 2),
        "healthMedian": round(health_loaded / health_idle, 2),
    }
    print(
        f"Bob's answer: idle {idle['bob']['answerS']:.2f} s, under load "
        f"{loaded['bob']['answerS']:.2f} s (run {loaded['bob']['runMs']:.0f} ms; "
        f"ratio {figures['ratios']['bobAnswer']})"
    )
    print(
        f"/api/health median: idle {health_idle * 1000:.0f} ms, under load "
        f"{health_loaded * 1000:.0f} ms (max {max(loaded['healthS']) * 1000:.0f} ms)"
    )
    print(f"Mallory's 16 stateless chats answered: {figures['statelessStatuses']}")
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "starvation.json").write_text(json.dumps(figures, indent=2) + "\n")


if __name__ == "__main__":
    main()
