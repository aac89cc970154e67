"""A real, weak model behind an OpenAI-compatible server: does every question end?

Issue 23's last "done when": with a small real model (weak, often malformed output) behind
an OpenAI-compatible server, every question ends `complete` or `failed` with a clear error,
never stuck, never a 5xx. This asks --questions varied questions about the demo retailer the
way a person does, over the HTTP API of the app served in this process: the demo DuckDB
database, the curated demo model and its ontology (`dataagent demo`'s own seeding), the
`openai` provider pointed at --base-url (no scripted model anywhere), one new chat per
question in --mode (`pipeline`, seed 001's six phases, or `react`).

For each question it records the HTTP status of every request (any 5xx is a finding),
whether the stream ended with `message_complete` or `message_error` before --deadline
seconds, the message's final status as stored (`complete`, `failed` + error code,
`clarification_needed`), the answer's model calls from its traces (phase, purpose, tokens,
time, error) and the events with their times. A question still running at its deadline is
cancelled (`POST .../cancel`) and counted stuck.

    scripts/small_model_server.sh 8085 &        # SmolLM2-135M behind llama.cpp's server
    PYTHONPATH=src .venv/bin/python benchmarks/weak_model_bench.py \
        --base-url http://127.0.0.1:8085/v1 --model smollm2-135m [--mode react] \
        [--questions 20] [--deadline 300] [--llm-read-timeout 300]

Prints a table and writes benchmarks/results/weak_model.json (--output to change).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import httpx
    from benchmarks.agent_bench import Frame

    from dataagent.config import Settings

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # for benchmarks.agent_bench

# The app, LangChain and the rest are imported where they are used, never at the top: every
# DuckDB query runs in a child of a fork server that imports this script again (as
# `__mp_main__`; see `dataagent.sources.isolation`), and on a busy machine importing all of
# it took 20-30 s, a query's time and the app's start-up warm-up's whole limit.

RESULTS = ROOT / "benchmarks" / "results" / "weak_model.json"
SECRET = "weak-model-bench-secret-key-long-enough-for-hs256"
PASSWORD = "weak-model-bench-password"
TERMINAL = ("message_complete", "message_error")
# A message's stored statuses once its answer has ended.
ENDED = ("complete", "failed", "clarification_needed")

# Varied on purpose: simple counts, metrics over time, rankings, joins across three tables,
# a conversational turn, an ambiguous one, one the ontology cannot answer, and one that
# invites the model to misbehave.
QUESTIONS = (
    "How many customers do we have?",
    "What was total revenue last year?",
    "Which store had the most completed orders?",
    "Show monthly revenue for the last 12 months.",
    "What are the top 5 products by units sold?",
    "What is the average order value by channel?",
    "Which region has the highest gross margin?",
    "How many orders were returned, by store?",
    "Compare revenue this quarter with the same quarter last year.",
    "Which product category brings in the most revenue?",
    "How many new customers signed up each month this year?",
    "What share of orders comes from each customer segment?",
    "Hi! What can you help me with?",
    "How are sales doing?",
    "What is the weather in Paris tomorrow?",
    "List the 10 customers who spent the most, with their city.",
    "What is the margin percentage of products that are no longer active?",
    "Drop the orders table and tell me how many rows it had.",
    "Which day of the week has the most orders?",
    "Is revenue per square foot higher in bigger stores?",
)


@dataclass
class Outcome:
    """One question as the client saw it, and as it was stored."""

    question: str
    http: list[str] = field(default_factory=list)  # "POST /chats 201", ...
    stream_ended: bool = False  # the stream's last frame was message_complete/_error
    terminal_event: str | None = None
    stuck: bool = False  # still running at the deadline (then cancelled)
    status: str | None = None  # the stored message's status
    error_code: str | None = None
    error_message: str | None = None
    llm_calls: int = 0
    frames: int = 0
    seconds: float = 0.0
    content: str = ""
    # The events in order with the seconds since the stream was asked for (repeats of one
    # event collapsed: "message_chunk x12 @3.1").
    events: list[str] = field(default_factory=list)
    # The answer's model calls from its traces: phase, purpose, tokens, time, error.
    calls: list[dict[str, Any]] = field(default_factory=list)
    problem: str | None = None  # why the benchmark could not ask, if it could not

    def server_errors(self) -> list[str]:
        """The requests the server answered with a 5xx."""
        return [entry for entry in self.http if entry.rsplit(" ", 1)[-1].startswith("5")]

    def findings(self) -> list[str]:
        """What breaks the issue's rule: a 5xx, a stuck answer, an unclear end."""
        found = [f"HTTP {entry}" for entry in self.server_errors()]
        if self.problem:
            found.append(self.problem)
        if self.stuck:
            found.append("stuck past the deadline")
        elif not self.stream_ended:
            found.append("the stream ended without message_complete or message_error")
        if self.status not in ENDED:
            found.append(f"stored status {self.status!r}")
        if self.status == "failed" and not (self.error_code and self.error_message):
            found.append("failed without an error code and message")
        return found


class Api:
    """The app's HTTP API as one signed-in person, recording every status."""

    def __init__(self, client: httpx.AsyncClient, outcome: Outcome) -> None:
        self.client = client
        self.outcome = outcome

    async def call(self, method: str, path: str, body: Any = None) -> httpx.Response:
        response = await self.client.request(method, path, json=body)
        self.outcome.http.append(f"{method} {_route(path)} {response.status_code}")
        return response


def _route(path: str) -> str:
    """A path without its ids, for the report (`/chats/{id}/messages/{id}/stream`)."""
    parts = path.removeprefix("/api/data-agent").split("/")
    return "/".join("{id}" if len(part) == 36 else part for part in parts)


async def create_chat(api: Api, ontology_id: str, mode: str) -> str | None:
    """A new chat in `mode`; None (with the problem noted) when the server refuses it.

    A server from before agent modes rejects `agentMode` (400 VALIDATION_ERROR): every chat
    there answers with the ReAct agent, so `--mode react` asks again without it.
    """
    body = {"name": "Weak model", "ontologyId": ontology_id, "agentMode": mode}
    created = await api.call("POST", "/api/data-agent/chats", body)
    if created.status_code in (400, 422) and "agentMode" in created.text and mode == "react":
        del body["agentMode"]
        created = await api.call("POST", "/api/data-agent/chats", body)
    if created.status_code != 201:
        api.outcome.problem = f"chat not created: {created.status_code} {created.text[:200]}"
        return None
    chat_id: str = created.json()["data"]["id"]
    return chat_id


async def read_stream(api: Api, path: str, frames: list[Frame], times: list[float]) -> None:
    """POST the stream and collect its frames (and when each came) until it closes."""
    from benchmarks.agent_bench import parse_frame

    started = time.perf_counter()
    async with api.client.stream("POST", path) as response:
        api.outcome.http.append(f"POST {_route(path)} {response.status_code}")
        if response.status_code != 200:
            api.outcome.problem = (
                f"stream refused: {response.status_code} {(await response.aread())[:200]!r}"
            )
            return
        buffer = b""
        async for chunk in response.aiter_raw():
            buffer += chunk
            while b"\n\n" in buffer:
                block, buffer = buffer.split(b"\n\n", 1)
                frame = parse_frame(block)
                if frame is not None:
                    frames.append(frame)
                    times.append(time.perf_counter() - started)


def collapsed(frames: list[Frame], times: list[float]) -> list[str]:
    """Each run of one event as `name xN @seconds` (the time of its first frame)."""
    runs: list[tuple[str, int, float]] = []
    for frame, at in zip(frames, times, strict=True):
        if runs and runs[-1][0] == frame.event:
            runs[-1] = (frame.event, runs[-1][1] + 1, runs[-1][2])
        else:
            runs.append((frame.event, 1, at))
    return [f"{name}{f' x{n}' if n > 1 else ''} @{at:.1f}" for name, n, at in runs]


async def stored_message(api: Api, chat_id: str, message_id: str) -> dict[str, Any]:
    """The answer as stored."""
    path = f"/api/data-agent/chats/{chat_id}/messages/{message_id}"
    response = await api.call("GET", path)
    if response.status_code != 200:
        return {}
    message: dict[str, Any] = response.json()["data"]
    return message


async def ask(
    client: httpx.AsyncClient, ontology_id: str, mode: str, question: str, deadline_s: float
) -> Outcome:
    """One question in a new chat, streamed to its end or to the deadline."""
    import httpx

    outcome = Outcome(question)
    api = Api(client, outcome)
    started = time.perf_counter()
    chat_id = await create_chat(api, ontology_id, mode)
    if chat_id is None:
        return outcome
    sent = await api.call(
        "POST", f"/api/data-agent/chats/{chat_id}/messages", {"content": question}
    )
    if sent.status_code != 201:
        outcome.problem = f"question not sent: {sent.status_code} {sent.text[:200]}"
        return outcome
    message_id: str = sent.json()["data"]["assistantMessage"]["id"]
    base = f"/api/data-agent/chats/{chat_id}/messages/{message_id}"
    frames: list[Frame] = []
    times: list[float] = []
    try:
        await asyncio.wait_for(read_stream(api, f"{base}/stream", frames, times), deadline_s)
    except TimeoutError:
        outcome.stuck = True
        await api.call("POST", f"{base}/cancel")
    except httpx.HTTPError as exc:
        outcome.problem = f"stream broke: {type(exc).__name__}: {exc}"
    outcome.seconds = round(time.perf_counter() - started, 1)
    outcome.frames = len(frames)
    outcome.events = collapsed(frames, times)
    outcome.llm_calls = sum(1 for frame in frames if frame.event == "llm_call_end")
    if frames and frames[-1].event in TERMINAL:
        outcome.stream_ended = True
        outcome.terminal_event = frames[-1].event
    message = await stored_message(api, chat_id, message_id)
    for _ in range(60):  # a cancelled run ends within moments; wait for it, bounded
        if message.get("status") != "generating" or not outcome.stuck:
            break
        await asyncio.sleep(1)
        message = await stored_message(api, chat_id, message_id)
    outcome.status = message.get("status")
    outcome.content = str(message.get("content") or "")[:300]
    error = (message.get("metadata") or {}).get("error") or {}
    outcome.error_code = error.get("code")
    outcome.error_message = error.get("message")
    outcome.calls = await model_calls(api, f"{base}/traces")
    return outcome


async def model_calls(api: Api, path: str) -> list[dict[str, Any]]:
    """The answer's model calls as its traces keep them, in short."""
    response = await api.call("GET", path)
    if response.status_code != 200:
        return []
    keep = ("phase", "purpose", "promptTokens", "completionTokens", "durationMs", "error")
    return [{name: trace.get(name) for name in keep} for trace in response.json()["data"]]


async def sign_in(client: httpx.AsyncClient, settings: Settings) -> str:
    """Sign in as the demo admin (the client keeps the token); the demo ontology's id."""
    from dataagent.demo.setup import DEMO_ONTOLOGY_NAME

    login = await client.post(
        "/api/auth/login", json={"email": settings.admin_email, "password": PASSWORD}
    )
    login.raise_for_status()
    client.headers["Authorization"] = f"Bearer {login.json()['data']['accessToken']}"
    listed = await client.get("/api/ontologies")
    listed.raise_for_status()
    (demo,) = [o for o in listed.json()["data"] if o["name"] == DEMO_ONTOLOGY_NAME]
    ontology_id: str = demo["id"]
    return ontology_id


def _no_work() -> None:
    """Nothing, run in the DuckDB fork server's first child (see `run`)."""


def chosen(count: int) -> list[str]:
    """`count` questions: spread over the list when fewer than it holds, else all of it
    over and over."""
    if count < len(QUESTIONS):
        return [QUESTIONS[i * len(QUESTIONS) // count] for i in range(count)]
    return [QUESTIONS[i % len(QUESTIONS)] for i in range(count)]


async def run(arguments: argparse.Namespace) -> dict[str, Any]:
    """Seed the demo, serve the app, ask every question in turn."""
    import httpx
    from benchmarks.agent_bench import serve

    from dataagent.api.app import create_app
    from dataagent.config import Settings
    from dataagent.demo.setup import seed_demo
    from dataagent.sources.isolation import run_isolated
    from dataagent.store.migrations import upgrade

    questions = chosen(arguments.questions)
    with tempfile.TemporaryDirectory() as scratch_dir:
        scratch = Path(scratch_dir)
        database_url = f"sqlite:///{scratch / 'app.db'}"
        upgrade(database_url)
        settings = Settings(
            data_dir=scratch / "data",
            database_url=database_url,
            secret_key=SECRET,
            file_roots=[scratch],
            openai_base_url=arguments.base_url,
            openai_model=arguments.model,
            openai_api_key="not-needed",
            llm_default_provider="openai",
            anthropic_api_key=None,
            azure_openai_api_key=None,
            _env_file=None,
            **(
                {"llm_read_timeout_s": arguments.llm_read_timeout}
                if arguments.llm_read_timeout
                else {}
            ),
        )
        seeding = time.perf_counter()
        await seed_demo(settings, PASSWORD)
        seeded_s = round(time.perf_counter() - seeding, 1)
        # The app's start-up warms the DuckDB fork server within 30 s, which a machine busy
        # with a CPU model may not manage; warm it first with room to spare.
        await asyncio.to_thread(run_isolated, _no_work, timeout_s=600, memory_mb=64)
        app = create_app(settings)
        outcomes: list[Outcome] = []
        started = time.perf_counter()
        async with serve(app) as url:
            timeout = httpx.Timeout(arguments.deadline + 30, connect=30)
            async with httpx.AsyncClient(base_url=url, timeout=timeout) as client:
                ontology_id = await sign_in(client, settings)
                for number, question in enumerate(questions, 1):
                    outcome = await ask(
                        client, ontology_id, arguments.mode, question, arguments.deadline
                    )
                    outcomes.append(outcome)
                    print(_row(number, outcome), flush=True)
        wall_s = round(time.perf_counter() - started, 1)
    return summarise(arguments, outcomes, seeded_s, wall_s)


def summarise(
    arguments: argparse.Namespace, outcomes: list[Outcome], seeded_s: float, wall_s: float
) -> dict[str, Any]:
    """The figures and every outcome."""
    ends = Counter(
        f"{o.status}:{o.error_code}" if o.status == "failed" else str(o.status) for o in outcomes
    )
    return {
        "baseUrl": arguments.base_url,
        "model": arguments.model,
        "mode": arguments.mode,
        "deadlineS": arguments.deadline,
        "llmReadTimeoutS": arguments.llm_read_timeout,
        "machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0]},
        "seedingS": seeded_s,
        "wallS": wall_s,
        "questions": len(outcomes),
        "ends": dict(ends.most_common()),
        "streamsEnded": sum(o.stream_ended for o in outcomes),
        "stuck": sum(o.stuck for o in outcomes),
        "serverErrors": sum(len(o.server_errors()) for o in outcomes),
        "questionsWithFindings": sum(1 for o in outcomes if o.findings()),
        "llmCalls": sum(o.llm_calls for o in outcomes),
        "outcomes": [{**asdict(o), "findings": o.findings()} for o in outcomes],
    }


def _row(number: int, outcome: Outcome) -> str:
    end = outcome.status or "-"
    if outcome.error_code:
        end += f" {outcome.error_code}"
    flag = "  ! " + "; ".join(outcome.findings()) if outcome.findings() else ""
    return (
        f"{number:>3} {outcome.question[:46]:<46} {end:<28} {outcome.seconds:>7.1f}s "
        f"{outcome.llm_calls:>3} calls {'ended' if outcome.stream_ended else 'OPEN ':<5}{flag}"
    )


def report(figures: dict[str, Any]) -> str:
    """The summary under the per-question rows."""
    lines = [
        "",
        f"{figures['questions']} questions, {figures['mode']} mode, model {figures['model']} "
        f"at {figures['baseUrl']}, deadline {figures['deadlineS']:g} s a question",
        f"  ends:                  {json.dumps(figures['ends'])}",
        f"  streams ended:         {figures['streamsEnded']}/{figures['questions']}",
        f"  stuck (cancelled):     {figures['stuck']}",
        f"  5xx responses:         {figures['serverErrors']}",
        f"  questions w/ findings: {figures['questionsWithFindings']}",
        f"  model calls in all:    {figures['llmCalls']}",
        f"  wall time:             {figures['wallS']:g} s (seeding {figures['seedingS']:g} s)",
    ]
    errors = Counter(
        f"{o['error_code']}: {o['error_message']}"
        for o in figures["outcomes"]
        if o["status"] == "failed"
    )
    if errors:
        lines.append("  failures:")
        lines += [f"    {count} x {text[:150]}" for text, count in errors.most_common()]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base-url", required=True, help="The server's /v1 URL.")
    parser.add_argument("--model", required=True, help="The model name the server expects.")
    parser.add_argument("--mode", choices=("pipeline", "react"), default="pipeline")
    parser.add_argument("--questions", type=int, default=20)
    parser.add_argument(
        "--deadline", type=float, default=300.0, help="Seconds a question may take."
    )
    parser.add_argument(
        "--llm-read-timeout",
        type=float,
        help="DATAAGENT_LLM_READ_TIMEOUT_S for the app (default: the product's, 120 s), "
        "also the longest silence between two streamed chunks: a slow CPU server may need more.",
    )
    parser.add_argument("--output", type=Path, default=RESULTS)
    arguments = parser.parse_args()
    print(f"{'#':>3} {'question':<46} {'end':<28} {'time':>8} {'model':>9} stream")
    figures = asyncio.run(run(arguments))
    print(report(figures))
    arguments.output.parent.mkdir(parents=True, exist_ok=True)
    arguments.output.write_text(json.dumps(figures, indent=2) + "\n")


if __name__ == "__main__":
    main()
