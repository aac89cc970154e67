"""The server in its own process: the non-LLM overhead of a one-step answer, and answers per
second against `DATAAGENT_RUN_MAX_CONCURRENCY` (DESIGN "Performance budgets").

`python -m dataagent serve` runs as a separate process on a migrated app database seeded
with contributors, each with a ready ontology of the demo retailer; the model is the scripted
OpenAI-compatible server (`tests/fakes/openai_server.py`: LangChain, the OpenAI SDK and HTTP
for real). Every answer is agent_bench's one-step question: one `query_database` call with
real SQL, then the answer (two model calls). Clients ask as a person does (create a chat,
send the question, `POST .../stream`, read the SSE frames to `message_complete`).

1. Overhead: the model answers at once; --answers answers one after another (after three
   warm-up answers). Per answer: the wall time from the stream POST to `message_complete`,
   the model's time (the sum of its calls' `llm_call_end.durationMs`), and the overhead,
   wall minus model: p50 and p95. With --compare-with, a second server runs another
   checkout's code beside it (its own app database) and the two take turns answer by
   answer, so both see the same machine: the before/after comparison.
2. Concurrency curve: for each of --levels, a server with DATAAGENT_RUN_MAX_CONCURRENCY at
   that level; the model takes --latency seconds a call; --askers people each stream one
   answer, all at once. Answers a second (answered / wall time of the burst), the median
   wait (stream POST -> `message_complete`), p95 wait, median first event, errors.

    .venv/bin/python benchmarks/server_bench.py [--answers 30] [--skip-curve]
        [--levels 2,4,8,16,32] [--askers 100] [--latency 1.0] [--skip-overhead]
        [--compare-with DIR] [--server-source DIR] [--label NAME]
        [--database-url postgresql://...]

`--compare-with` and `--server-source` name another checkout's `src` (e.g. `git archive
<base> src | tar -x -C /tmp/base`); the seeding (so the migrations) and the client stay this
checkout's, so that code must share this checkout's database migrations.
`--server-source` runs every part on that code instead of this checkout's.
The machine's load average is recorded with every figure (other work shares the CPUs).
Prints a summary and writes benchmarks/results/server_<label>.json. Figures, not tests.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import signal
import sys
import tempfile
import time
from collections import Counter
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # for tests.fakes
sys.path.insert(0, str(HERE))  # agent_bench: the one-step answer and its client

from tests.fakes.openai_server import FakeOpenAIServer  # noqa: E402

import agent_bench as bench  # noqa: E402
from agent_bench import Account, Streamed  # noqa: E402
from dataagent.config import Settings  # noqa: E402
from dataagent.demo import generate, write_sqlite  # noqa: E402
from dataagent.runs.system import RunSystem  # noqa: E402

WARM_UP_ANSWERS = 3


def load() -> list[float]:
    """The machine's 1, 5 and 15 minute load averages."""
    return [round(value, 2) for value in os.getloadavg()]


def p(values: Sequence[float], q: float) -> float:
    """The q-quantile in milliseconds of values in milliseconds, rounded."""
    return round(bench.percentile(values, q), 1) if values else 0.0


@contextlib.asynccontextmanager
async def server(
    settings: Settings,
    url: str,
    fake: FakeOpenAIServer,
    concurrency: int,
    scratch: Path,
    source: Path | None,
    name: str,
) -> AsyncIterator[str]:
    """`python -m dataagent serve` as its own process (no warm sandbox: no answer here runs
    Python), up and answering; its base URL. The log is kept in `scratch`."""
    port = bench.free_port()
    env = bench.server_env(settings, url, fake, concurrency)
    env["DATAAGENT_SANDBOX_POOL_SIZE"] = "0"
    if source is not None:
        env["PYTHONPATH"] = str(source)
    with (scratch / f"{name}.log").open("wb") as log:
        process = await asyncio.create_subprocess_exec(
            *[sys.executable, "-m", "dataagent", "serve", "--host", "127.0.0.1"],
            *["--port", str(port)],
            env=env,
            cwd=scratch,  # no .env of the repository's
            stdout=log,
            stderr=asyncio.subprocess.STDOUT,
        )
    try:
        base_url = f"http://127.0.0.1:{port}"
        await bench.wait_until_up(base_url, process)
        yield base_url
    finally:
        with contextlib.suppress(ProcessLookupError):  # it may have exited (see its log)
            process.send_signal(signal.SIGTERM)
        try:
            await asyncio.wait_for(process.wait(), 30)
        except TimeoutError:
            process.kill()
            await process.wait()


def client(base_url: str) -> httpx.AsyncClient:
    """A client for many streams at once (idle connections dropped before the server's
    keep-alive closes them under a request)."""
    limits = httpx.Limits(max_connections=None, max_keepalive_connections=None, keepalive_expiry=1)
    return httpx.AsyncClient(
        base_url=base_url, timeout=httpx.Timeout(600, connect=60), limits=limits
    )


def model_ms(answer: Streamed) -> float:
    """The model's time in an answer: its calls' `llm_call_end.durationMs`, summed."""
    return float(sum(end.get("durationMs", 0) for end in answer.of("llm_call_end")))


@dataclass(frozen=True)
class Side:
    """A server to measure: its code (None: this checkout's), app database and one account."""

    name: str
    source: Path | None
    settings: Settings
    url: str
    account: Account


def summarise(done: list[Streamed]) -> dict[str, Any]:
    """Wall, model and overhead times of answers in sequence."""
    problems = [problem for answer in done for problem in answer.problems()]
    assert not problems, problems[:5]
    wall = [(answer.complete_s or 0.0) * 1000 for answer in done]
    model = [model_ms(answer) for answer in done]
    own = [w - m for w, m in zip(wall, model, strict=True)]
    first = [(answer.first_event_s or 0.0) * 1000 for answer in done]
    return {
        "answers": len(done),
        "wall_ms": {"p50": p(wall, 0.5), "p95": p(wall, 0.95)},
        "model_ms": {"p50": p(model, 0.5), "p95": p(model, 0.95)},
        "overhead_ms": {"p50": p(own, 0.5), "p95": p(own, 0.95), "max": round(max(own), 1)},
        "first_event_ms": {"p50": p(first, 0.5), "p95": p(first, 0.95)},
    }


async def overhead(sides: list[Side], answers: int, scratch: Path) -> dict[str, Any]:
    """Part 1: one-step answers one after another, the model answering at once. With two
    sides (before and after), both servers run side by side and take turns, answer by
    answer, so a machine whose load changes weighs on both alike."""
    with FakeOpenAIServer(default=bench.two_turns(0.0)) as fake:
        async with contextlib.AsyncExitStack() as stack:
            clients = []
            for side in sides:
                base_url = await stack.enter_async_context(
                    server(
                        side.settings,
                        side.url,
                        fake,
                        side.settings.run_max_concurrency,
                        scratch,
                        side.source,
                        f"overhead_{len(clients)}",
                    )
                )
                clients.append(await stack.enter_async_context(client(base_url)))
            for side, http in zip(sides, clients, strict=True):
                for _ in range(WARM_UP_ANSWERS):  # the first loads the embedding model
                    warm = await bench.answer_once(http, side.account)
                    assert not warm.problems(), warm.problems()
            load_before = load()
            done: list[list[Streamed]] = [[] for _ in sides]
            for _ in range(answers):
                for side, http, answered in zip(sides, clients, done, strict=True):
                    chat_id, message_id = await bench.ask(http, side.account)
                    stream = bench.stream_answer(http, side.account, chat_id, message_id)
                    answered.append(await stream)
            load_after = load()
    return {
        "sides": {side.name: summarise(d) for side, d in zip(sides, done, strict=True)},
        "load_before": load_before,
        "load_after": load_after,
    }


async def level(
    settings: Settings,
    url: str,
    accounts: list[Account],
    concurrency: int,
    latency_s: float,
    scratch: Path,
    source: Path | None,
) -> dict[str, Any]:
    """Part 2, one point: everyone asks at once of a server running `concurrency` runs."""
    with FakeOpenAIServer(default=bench.two_turns(latency_s)) as fake:
        name = f"concurrency_{concurrency}"
        async with (
            server(settings, url, fake, concurrency, scratch, source, name) as base_url,
            client(base_url) as http,
        ):
            warm = await bench.answer_once(http, accounts[0])
            assert not warm.problems(), warm.problems()
            users = accounts[1:]
            asked = await asyncio.gather(*(bench.ask(http, account) for account in users))
            load_before = load()
            began = time.perf_counter()
            done = await asyncio.gather(
                *(
                    bench.stream_answer(http, account, chat_id, message_id)
                    for account, (chat_id, message_id) in zip(users, asked, strict=True)
                )
            )
            wall_s = time.perf_counter() - began
            load_after = load()
    ok = [answer for answer in done if not answer.problems()]
    waits = [(answer.complete_s or 0.0) * 1000 for answer in ok]
    first = [(answer.first_event_s or 0.0) * 1000 for answer in ok]
    kinds = Counter(problem for answer in done for problem in answer.problems())
    return {
        "run_max_concurrency": concurrency,
        "askers": len(users),
        "errors": len(done) - len(ok),
        "error_kinds": dict(kinds.most_common(5)),
        "wall_s": round(wall_s, 2),
        "answers_per_s": round(len(ok) / wall_s, 2),
        "wait_ms": {"p50": p(waits, 0.5), "p95": p(waits, 0.95)},
        "first_event_ms": {"p50": p(first, 0.5)},
        "load_before": load_before,
        "load_after": load_after,
    }


async def other_side(source: Path, url: str, scratch: Path, retail: Path) -> Side:
    """The server of --compare-with: its own app database and account."""
    settings = Settings(
        data_dir=scratch / "other",
        database_url=url,
        secret_key=bench.SECRET,
        file_roots=[scratch],
        _env_file=None,
    )
    async with RunSystem.in_process(settings) as system:
        (account,) = await bench.seed_accounts(system.app, 1, retail, "other")
    return Side(str(source), source, settings, url, account)


async def main(arguments: argparse.Namespace) -> dict[str, Any]:
    """Seed once, then measure each part against its own server process."""
    levels = [int(value) for value in arguments.levels.split(",")] if arguments.levels else []
    source: Path | None = arguments.server_source
    figures: dict[str, Any] = {
        "label": arguments.label,
        "server_source": str(source) if source else "this checkout",
        "machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0]},
        "load_at_start": load(),
        "app_database": "postgresql" if arguments.database_url else "sqlite",
    }
    with tempfile.TemporaryDirectory() as scratch_dir:
        scratch = Path(scratch_dir)
        retail = scratch / "retail.db"
        await asyncio.to_thread(write_sqlite, generate(), retail)
        with contextlib.ExitStack() as databases:
            url = databases.enter_context(
                bench.app_database(arguments.database_url, scratch, "server")
            )
            settings = Settings(
                data_dir=scratch / "server",
                database_url=url,
                secret_key=bench.SECRET,
                file_roots=[scratch],
                _env_file=None,
            )
            people = 1 + (arguments.askers if levels and not arguments.skip_curve else 0)
            seeding = time.perf_counter()
            async with RunSystem.in_process(settings) as system:  # builds are runs
                accounts = await bench.seed_accounts(system.app, people, retail, "srv")
            figures["seeding_s"] = round(time.perf_counter() - seeding, 1)
            if not arguments.skip_overhead:
                name = str(source) if source else "this checkout"
                sides = [Side(name, source, settings, url, accounts[0])]
                if arguments.compare_with:
                    other = databases.enter_context(
                        bench.app_database(arguments.database_url, scratch, "other")
                    )
                    sides.insert(
                        0, await other_side(arguments.compare_with, other, scratch, retail)
                    )
                figures["overhead"] = await overhead(sides, arguments.answers, scratch)
            if levels and not arguments.skip_curve:
                figures["latency_s"] = arguments.latency
                figures["curve"] = [
                    await level(settings, url, accounts, c, arguments.latency, scratch, source)
                    for c in levels
                ]
    figures["load_at_end"] = load()
    return figures


def report(figures: dict[str, Any]) -> str:
    """The figures as a short text."""
    lines = [
        f"server: {figures['server_source']}  ({figures['label']}; "
        f"{figures['machine']['cpus']} CPUs, {figures['app_database']} app database)",
        f"load average at start {figures['load_at_start']}, at end {figures['load_at_end']}",
    ]
    if "overhead" in figures:
        o = figures["overhead"]
        lines.append("1. One-step answer, the model answering at once (answers in sequence)")
        for name, side in o["sides"].items():
            lines += [
                f"   server {name}: {side['answers']} answers",
                f"     wall (stream POST -> message_complete)  p50 {side['wall_ms']['p50']} ms  "
                f"p95 {side['wall_ms']['p95']} ms",
                f"     model (llm_call_end.durationMs, summed) p50 {side['model_ms']['p50']} ms  "
                f"p95 {side['model_ms']['p95']} ms",
                f"     non-LLM overhead (wall - model)         p50 {side['overhead_ms']['p50']} "
                f"ms  p95 {side['overhead_ms']['p95']} ms  (budget p50 <= 100 ms)",
                f"     first event                             p50 "
                f"{side['first_event_ms']['p50']} ms",
            ]
        lines.append(f"   load average before/after {o['load_before']} / {o['load_after']}")
    if "curve" in figures:
        lines.append(
            f"2. Everyone at once, model {figures['latency_s']} s a call (2 calls an answer)"
        )
        lines.append(
            "   concurrency  askers  errors  answers/s  wait p50 (s)  wait p95 (s)  "
            "first event p50 (s)  load before -> after"
        )
        for point in figures["curve"]:
            lines.append(
                f"   {point['run_max_concurrency']:>11}  {point['askers']:>6}  "
                f"{point['errors']:>6}  {point['answers_per_s']:>9}  "
                f"{point['wait_ms']['p50'] / 1000:>12.1f}  "
                f"{point['wait_ms']['p95'] / 1000:>12.1f}  "
                f"{point['first_event_ms']['p50'] / 1000:>19.1f}  "
                f"{point['load_before'][0]} -> {point['load_after'][0]}"
            )
    return "\n".join(lines)


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--answers", type=int, default=30, help="answers in part 1")
    parser.add_argument("--levels", default="2,4,8,16,32", help="run concurrencies in part 2")
    parser.add_argument("--askers", type=int, default=100, help="people asking at once")
    parser.add_argument("--latency", type=float, default=1.0, help="model seconds a call")
    parser.add_argument("--skip-overhead", action="store_true")
    parser.add_argument("--skip-curve", action="store_true")
    parser.add_argument(
        "--server-source", type=lambda text: Path(text).resolve(), help="another checkout's src"
    )
    parser.add_argument(
        "--compare-with",
        type=lambda text: Path(text).resolve(),
        help="part 1 also runs a server of another checkout's src, taking turns with this one",
    )
    parser.add_argument("--label", default="now", help="names the results file")
    parser.add_argument("--database-url", help="a PostgreSQL server for the app database")
    return parser.parse_args()


if __name__ == "__main__":
    options = arguments()
    found = asyncio.run(main(options))
    print(report(found))
    bench.RESULTS.mkdir(exist_ok=True)
    out = bench.RESULTS / f"server_{options.label}.json"
    out.write_text(json.dumps(found, indent=2) + "\n")
    print(f"written: {out}")
