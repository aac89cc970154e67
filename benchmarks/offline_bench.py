"""Offline answers: the latency from request to result when no model is configured.

`python -m dataagent serve` runs as its own process with no model provider at all, on what
`make demo` sets up (`demo.setup.seed_demo`: the admin, the demo retailer's DuckDB file and
its curated ontology). Each question is asked --rounds times, one request at a time, after a warm-up
round, two ways:

1. `POST /api/chat` (seed 004's agent server, non-streaming): the wall time from the
   request to its response with the rows, and the query's own time in it (`execTimeMs`).
2. A chat in `offline` mode as the web page asks: the wall time from the stream POST to
   `message_complete` (the offline planner, compiler, executor, verifier, lineage and
   templated explainer), with sending the message (`POST .../messages`) timed apart.

The goal (issue 24): p50 ≤ 150 ms from request to result for `POST /api/chat`, most of it
the query. The machine's load average is recorded with the figures (other work shares the
CPUs). Figures, not tests.

    .venv/bin/python benchmarks/offline_bench.py [--rounds 20]

Prints a summary and writes benchmarks/results/offline.json.
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
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import agent_bench as bench  # noqa: E402
from agent_bench import Account  # noqa: E402
from dataagent.config import Settings  # noqa: E402
from dataagent.demo.setup import DEMO_ONTOLOGY_NAME, seed_demo  # noqa: E402

RESULTS = HERE / "results" / "offline.json"
# Questions a person might type on the demo (written for this benchmark).
QUESTIONS = (
    "revenue by region",
    "number of orders per month in 2025",
    "top 5 products by revenue",
    "average order value by channel",
    "gross margin by department in 2025",
)
GOAL_MS = 150.0
PASSWORD = "offline-bench-password"


def server_env(settings: Settings, url: str) -> dict[str, str]:
    """This machine's environment with no model key at all, plus the bench's settings."""
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("DATAAGENT_", "OPENAI_", "ANTHROPIC_", "AZURE_OPENAI_"))
    }
    env.update(
        DATAAGENT_DATA_DIR=str(settings.data_dir),
        DATAAGENT_DATABASE_URL=url,
        DATAAGENT_SECRET_KEY=bench.SECRET,
        DATAAGENT_FILE_ROOTS=",".join(str(root) for root in settings.file_roots),
        DATAAGENT_LOG_LEVEL="WARNING",
        DATAAGENT_SANDBOX_POOL_SIZE="0",
        DATAAGENT_REFERENCE_DATE="2025-12-31",
    )
    return env


@contextlib.asynccontextmanager
async def server(env: dict[str, str], scratch: Path) -> AsyncIterator[str]:
    """The server as its own process, up and answering; its base URL."""
    port = bench.free_port()
    with (scratch / "server.log").open("wb") as log:
        process = await asyncio.create_subprocess_exec(
            *[sys.executable, "-m", "dataagent", "serve", "--host", "127.0.0.1"],
            *["--port", str(port)],
            env=env,
            cwd=scratch,
            stdout=log,
            stderr=asyncio.subprocess.STDOUT,
        )
    try:
        base_url = f"http://127.0.0.1:{port}"
        await bench.wait_until_up(base_url, process)
        yield base_url
    finally:
        with contextlib.suppress(ProcessLookupError):
            process.send_signal(signal.SIGTERM)
        try:
            await asyncio.wait_for(process.wait(), 30)
        except TimeoutError:
            process.kill()
            await process.wait()


async def agent_server_chat(
    client: httpx.AsyncClient, account: Account, question: str
) -> dict[str, Any]:
    """`POST /api/chat`: its wall time, the query's time and the status."""
    body = {"ontologyId": str(account.ontology_id), "message": question}
    started = time.perf_counter()
    response = await client.post("/api/chat", json=body, headers=account.headers)
    wall_ms = (time.perf_counter() - started) * 1000
    data = response.json().get("data", response.json())
    result = data.get("result") or {}
    return {
        "http": response.status_code,
        "status": data.get("status"),
        "wall_ms": wall_ms,
        "query_ms": float(result.get("execTimeMs") or 0),
        "rows": result.get("rowCount"),
    }


async def chat_answer(client: httpx.AsyncClient, account: Account, question: str) -> dict[str, Any]:
    """A question in a new `offline` chat: sending it, then its stream to `message_complete`."""
    body = {"name": "Bench", "ontologyId": str(account.ontology_id), "agentMode": "offline"}
    created = await client.post("/api/data-agent/chats", json=body, headers=account.headers)
    created.raise_for_status()
    chat_id: str = created.json()["data"]["id"]
    started = time.perf_counter()
    sent = await client.post(
        f"/api/data-agent/chats/{chat_id}/messages",
        json={"content": question},
        headers=account.headers,
    )
    sent.raise_for_status()
    send_ms = (time.perf_counter() - started) * 1000
    message_id: str = sent.json()["data"]["assistantMessage"]["id"]
    streamed = await bench.stream_answer(client, account, chat_id, message_id)
    completes = streamed.of("message_complete")
    metadata = completes[0].get("metadata", {}) if completes else {}
    return {
        "http": streamed.status,
        "ok": bool(completes),
        "model_calls": len(streamed.of("llm_call_start")),
        "send_ms": send_ms,
        "stream_ms": (streamed.complete_s or 0) * 1000,
        "answered": bool(metadata.get("stepResults")),
    }


def spread(values: list[float]) -> dict[str, float]:
    """p50 and p90 in milliseconds."""
    return {
        "p50_ms": round(bench.percentile(values, 0.5), 1),
        "p90_ms": round(bench.percentile(values, 0.9), 1),
    }


async def demo_account(client: httpx.AsyncClient, settings: Settings) -> Account:
    """The demo's admin signed in, and the demo ontology."""
    signed_in = await client.post(
        "/api/auth/login", json={"email": settings.admin_email, "password": PASSWORD}
    )
    signed_in.raise_for_status()
    data = signed_in.json()["data"]
    headers = {"Authorization": f"Bearer {data['accessToken']}"}
    listed = await client.get("/api/ontologies", headers=headers)
    listed.raise_for_status()
    (ontology,) = [o for o in listed.json()["data"] if o["name"] == DEMO_ONTOLOGY_NAME]
    return Account(data["user"]["id"], ontology["id"], headers)


async def main(rounds: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as scratch_dir:
        scratch = Path(scratch_dir)
        with bench.app_database(None, scratch, "offline") as url:
            settings = Settings(
                data_dir=scratch / "data",
                file_roots=[scratch],
                database_url=url,
                secret_key=bench.SECRET,
                _env_file=None,  # type: ignore[call-arg]
            )
            # What `make demo` sets up: the demo's DuckDB file and its curated ontology.
            await seed_demo(settings, PASSWORD)
            async with (
                server(server_env(settings, url), scratch) as base_url,
                httpx.AsyncClient(base_url=base_url, timeout=120) as client,
            ):
                account = await demo_account(client, settings)
                chats: list[dict[str, Any]] = []
                answers: list[dict[str, Any]] = []
                for round_ in range(rounds + 1):
                    for question in QUESTIONS:
                        chat = await agent_server_chat(client, account, question)
                        answer = await chat_answer(client, account, question)
                        if round_:  # the first round warms the caches up
                            chats.append({"question": question, **chat})
                            answers.append({"question": question, **answer})
    ok_chats = [c for c in chats if c["http"] == 200 and c["status"] == "succeeded"]
    ok_answers = [a for a in answers if a["ok"]]
    figures: dict[str, Any] = {
        "rounds": rounds,
        "questions": list(QUESTIONS),
        "load_average": [round(value, 2) for value in os.getloadavg()],
        "agent_server_chat": {
            "answered": f"{len(ok_chats)}/{len(chats)}",
            "wall": spread([c["wall_ms"] for c in ok_chats]),
            "query": spread([c["query_ms"] for c in ok_chats]),
            "query_share_of_p50": round(
                bench.percentile([c["query_ms"] for c in ok_chats], 0.5)
                / max(bench.percentile([c["wall_ms"] for c in ok_chats], 0.5), 1e-9),
                2,
            )
            if ok_chats
            else None,
            "goal_p50_ms": GOAL_MS,
        },
        "offline_chat": {
            "answered": f"{sum(a['answered'] for a in ok_answers)}/{len(answers)}",
            "model_calls": sum(a["model_calls"] for a in answers),
            "send": spread([a["send_ms"] for a in ok_answers]),
            "stream_to_complete": spread([a["stream_ms"] for a in ok_answers]),
        },
    }
    return figures


def report(figures: dict[str, Any]) -> str:
    chat, offline = figures["agent_server_chat"], figures["offline_chat"]
    return "\n".join(
        [
            f"Offline answers on the demo, {figures['rounds']} rounds of "
            f"{len(figures['questions'])} questions (load {figures['load_average']})",
            f"POST /api/chat: answered {chat['answered']}, request to result p50 "
            f"{chat['wall']['p50_ms']} ms, p90 {chat['wall']['p90_ms']} ms (goal p50 ≤ "
            f"{chat['goal_p50_ms']:.0f} ms); the query p50 {chat['query']['p50_ms']} ms",
            f"offline chat: answered {offline['answered']}, model calls "
            f"{offline['model_calls']}, send p50 {offline['send']['p50_ms']} ms, stream to "
            f"message_complete p50 {offline['stream_to_complete']['p50_ms']} ms, p90 "
            f"{offline['stream_to_complete']['p90_ms']} ms",
        ]
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20)
    arguments = parser.parse_args()
    result = asyncio.run(main(arguments.rounds))
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(report(result))
