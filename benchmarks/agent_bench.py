"""Agent answers: model calls and prompt tokens per question, time to the first SSE event, the
non-LLM overhead of an answer, and many answers streamed at once (DESIGN "Performance budgets").

One question, answered the way a person asks it over the API (create a chat, send the
question, stream the answer), on the demo retailer (a SQLite file) as a ready ontology:

1-3. In process: the app served by uvicorn on a real socket in this event loop, the model a
     `ScriptedChatModel` with no latency (one `query_database` call with real SQL, then the
     answer). --questions answers one after another: model calls and prompt tokens per
     answer, the system prompt's size (and how it grows with the datasets retrieved), the
     time from the stream POST to its first event and to `message_complete`, and where that
     time goes.
4.   Under load: `python -m dataagent serve` as a separate process, the model the scripted
     OpenAI-compatible server (`FakeOpenAIServer`: the real provider path, LangChain + OpenAI
     SDK + HTTP) answering every call after --latency seconds; --concurrency users each
     stream one answer at once. Errors, latencies, throughput and the server's memory.

    .venv/bin/python benchmarks/agent_bench.py [--questions 50] [--concurrency 200]
        [--latency 1.0] [--skip-concurrency] [--database-url postgresql://...]

The app database is a SQLite file in a temporary directory; with --database-url (PostgreSQL)
a fresh database is created on that server for each part and dropped afterwards. Prints a
summary and writes benchmarks/results/agent.json (and the server's log, agent_server.log).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import os
import signal
import socket
import statistics
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import AsyncIterator, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import uvicorn
from sqlalchemy import select
from sqlalchemy.engine import make_url

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # for tests.fakes

from tests.fakes.openai_server import FakeOpenAIServer, Step, tool  # noqa: E402
from tests.fakes.scripted_model import Reply, ScriptedChatModel, call  # noqa: E402

from dataagent.agent.grounding import ground, join_hints  # noqa: E402
from dataagent.agent.prompts import PromptLimits, join_hints_among, system_prompt  # noqa: E402
from dataagent.api.app import create_app  # noqa: E402
from dataagent.auth.passwords import hash_password  # noqa: E402
from dataagent.auth.tokens import issue_token  # noqa: E402
from dataagent.config import Settings  # noqa: E402
from dataagent.demo import generate, write_sqlite  # noqa: E402
from dataagent.llm import providers  # noqa: E402
from dataagent.llm.calls import ModelInfo  # noqa: E402
from dataagent.runs.event_log import RunWriter  # noqa: E402
from dataagent.runs.system import RunSystem  # noqa: E402
from dataagent.services import chats, connections, ontologies, semantic_models  # noqa: E402
from dataagent.services.context import AppContext  # noqa: E402
from dataagent.store.migrations import upgrade  # noqa: E402
from dataagent.store.models import QueryRecord, User  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results"
SECRET = "agent-bench-secret-key-long-enough-for-hs256"
PASSWORD = "agent-bench-password"
WARM_UP_ANSWERS = 3

QUESTION = "Which store had the most completed orders?"
# One join over the 33,000 orders: a realistic first query, about 12 ms in SQLite.
SQL = (
    "SELECT s.name, s.city, COUNT(*) AS completed_orders FROM orders o "
    "JOIN stores s ON s.id = o.store_id WHERE o.status = 'completed' "
    "GROUP BY s.name, s.city ORDER BY completed_orders DESC"
)
ANSWER = "Chicago Lincoln Park had the most completed orders, ahead of Dallas Uptown."
# What one answer streams besides its text: two model turns around one query.
EXPECTED_EVENTS = {
    "message_start": 1,
    "llm_call_start": 2,
    "llm_call_end": 2,
    "tool_call": 1,
    "tool_result": 1,
    "clear_streaming": 1,
    "message_complete": 1,
}
TERMINAL = ("message_complete", "message_error")


# --- figures ------------------------------------------------------------------------------


def percentile(values: Sequence[float], q: float) -> float:
    """The q-quantile (0..1), linearly interpolated between the nearest ranks."""
    ordered = sorted(values)
    position = (len(ordered) - 1) * q
    low, high = math.floor(position), math.ceil(position)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def spread_ms(seconds: Sequence[float]) -> dict[str, float]:
    """p50, p90, p99 and max of durations in seconds, as milliseconds."""
    if not seconds:
        return {}
    return {
        "p50_ms": round(percentile(seconds, 0.5) * 1000, 1),
        "p90_ms": round(percentile(seconds, 0.9) * 1000, 1),
        "p99_ms": round(percentile(seconds, 0.99) * 1000, 1),
        "max_ms": round(max(seconds) * 1000, 1),
    }


def median(values: Sequence[float]) -> float:
    """The median, rounded for a report."""
    return round(statistics.median(values), 1) if values else 0.0


# --- an answer over HTTP --------------------------------------------------------------------


@dataclass(frozen=True)
class Frame:
    """One SSE frame."""

    id: int
    event: str
    data: str

    def payload(self) -> dict[str, Any]:
        """The frame's JSON data."""
        value: dict[str, Any] = json.loads(self.data)
        return value


def parse_frame(block: bytes) -> Frame | None:
    """A frame from its text block (None for a `: heartbeat` comment)."""
    fields = {}
    for line in block.decode().split("\n"):
        if line and not line.startswith(":"):
            name, _, value = line.partition(": ")
            fields[name] = value
    if "event" not in fields:
        return None
    return Frame(int(fields["id"]), fields["event"], fields.get("data", ""))


@dataclass
class Streamed:
    """One answer as its client saw it."""

    status: int
    first_event_s: float | None = None
    complete_s: float | None = None
    frames: list[Frame] = field(default_factory=list)
    error: str | None = None

    def of(self, event: str) -> list[dict[str, Any]]:
        """The payloads of one event type, in order."""
        return [frame.payload() for frame in self.frames if frame.event == event]

    def problems(self) -> list[str]:
        """What is wrong with this answer: a status, an error event, a missing frame."""
        if self.status != 200:
            return [f"HTTP {self.status}: {self.error}"]
        found: list[str] = []
        for error in self.of("message_error"):
            found.append(f"message_error {error.get('code')}: {error.get('message')}")
        if [f.id for f in self.frames] != list(range(1, len(self.frames) + 1)):
            found.append("frame ids are not 1, 2, 3, ...")
        events = Counter(frame.event for frame in self.frames)
        for event, count in EXPECTED_EVENTS.items():
            if events[event] != count:
                found.append(f"{event}: {events[event]} frames, expected {count}")
        if self.frames and self.frames[-1].event not in TERMINAL:
            found.append(f"the stream ended after {self.frames[-1].event}")
        if any(result.get("isError") for result in self.of("tool_result")):
            found.append("the query failed")
        return found


@dataclass(frozen=True)
class Account:
    """A contributor with a ready ontology of the demo retailer, and their auth header."""

    user_id: uuid.UUID
    ontology_id: uuid.UUID
    headers: dict[str, str]


async def ask(client: httpx.AsyncClient, account: Account) -> tuple[str, str]:
    """A new chat with the question sent: (chat id, the answer placeholder's id)."""
    # The scripted model answers as the ReAct agent does (the pipeline is benchmarked apart).
    body = {"name": "Bench", "ontologyId": str(account.ontology_id), "agentMode": "react"}
    created = await client.post("/api/data-agent/chats", json=body, headers=account.headers)
    created.raise_for_status()
    chat_id: str = created.json()["data"]["id"]
    sent = await client.post(
        f"/api/data-agent/chats/{chat_id}/messages",
        json={"content": QUESTION},
        headers=account.headers,
    )
    sent.raise_for_status()
    message_id: str = sent.json()["data"]["assistantMessage"]["id"]
    return chat_id, message_id


async def stream_answer(
    client: httpx.AsyncClient, account: Account, chat_id: str, message_id: str
) -> Streamed:
    """POST the stream and read it to its last frame, timing the first and the last event."""
    url = f"/api/data-agent/chats/{chat_id}/messages/{message_id}/stream"
    started = time.perf_counter()
    try:
        async with client.stream("POST", url, headers=account.headers) as response:
            streamed = Streamed(response.status_code)
            if response.status_code != 200:
                streamed.error = (await response.aread()).decode()[:300]
                return streamed
            buffer = b""
            async for chunk in response.aiter_raw():
                buffer += chunk
                while b"\n\n" in buffer:
                    block, buffer = buffer.split(b"\n\n", 1)
                    frame = parse_frame(block)
                    if frame is None:
                        continue
                    if streamed.first_event_s is None:
                        streamed.first_event_s = time.perf_counter() - started
                    streamed.frames.append(frame)
                    if frame.event in TERMINAL:
                        streamed.complete_s = time.perf_counter() - started
    except httpx.HTTPError as exc:
        return Streamed(0, error=f"{type(exc).__name__}: {exc}")
    return streamed


async def answer_once(client: httpx.AsyncClient, account: Account) -> Streamed:
    """Ask in a new chat and stream the answer."""
    chat_id, message_id = await ask(client, account)
    return await stream_answer(client, account, chat_id, message_id)


# --- set-up ---------------------------------------------------------------------------------


@contextlib.contextmanager
def app_database(url: str | None, scratch: Path, name: str) -> Iterator[str]:
    """A migrated, empty app database: a SQLite file in `scratch`, or a fresh PostgreSQL
    database on the server of `url` (dropped afterwards)."""
    if url is None:
        local = f"sqlite:///{scratch / f'{name}.db'}"
        upgrade(local)
        yield local
        return
    import psycopg

    server = make_url(url)
    libpq = server.set(drivername="postgresql").render_as_string(hide_password=False)
    fresh = f"dataagent_bench_{name}_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(libpq, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{fresh}"')
    try:
        created = server.set(database=fresh).render_as_string(hide_password=False)
        upgrade(created)
        yield created
    finally:
        with psycopg.connect(libpq, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{fresh}" WITH (FORCE)')


async def seed_accounts(ctx: AppContext, count: int, retail: Path, prefix: str) -> list[Account]:
    """`count` contributors, each with a ready ontology of the retailer built the production
    way. Users are inserted with one precomputed hash and given tokens directly (argon2 is
    slow on purpose; signing in is not what is measured)."""
    password_hash = hash_password(PASSWORD)
    users = []
    async with ctx.database.session() as session:
        for number in range(count):
            user = User(
                email=f"{prefix}{number}@bench.example",
                password_hash=password_hash,
                role="contributor",
            )
            session.add(user)
            users.append(user)
        await session.commit()
    accounts = []
    for user in users:
        async with ctx.database.session() as session:
            connection = await connections.create_connection(
                ctx, session, user.id, "Retail", {"dialect": "sqlite", "database": str(retail)}
            )
            model = await semantic_models.create_from_connection(
                ctx, session, user.id, connection.id, "retail", None
            )
            ontology = await ontologies.create_ontology(
                ctx, session, user.id, model.id, "Retail", None
            )
            await ontologies.wait_for_build(ctx, ontology.id)
            await session.refresh(ontology)
            assert ontology.status == "ready", ontology.error
        token, _ = issue_token(user.id, user.token_version, ctx.secret_key, 600)
        accounts.append(Account(user.id, ontology.id, {"Authorization": f"Bearer {token}"}))
    return accounts


def free_port() -> int:
    """A port nobody listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


@contextlib.asynccontextmanager
async def serve(app: Any) -> AsyncIterator[str]:
    """Serve `app` (its lifespan included) on a local port in this event loop; its URL."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(app, log_level="warning", ws="none", timeout_graceful_shutdown=5)
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve(sockets=[sock]))
    while not server.started:
        assert not task.done(), task
        await asyncio.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await task
        sock.close()


# --- 1-3: one answer at a time, in process --------------------------------------------------


def scripted_answer() -> ScriptedChatModel:
    """The model of one answer: the query, then the answer, both at once."""
    return ScriptedChatModel(
        script=[Reply(tool_calls=[call("query_database", sql=SQL)]), Reply(text=ANSWER)]
    )


async def retrieval_and_prompt(ctx: AppContext, account: Account, runs: int) -> dict[str, Any]:
    """Time retrieval for the question, and render the system prompt with 1..n of the
    datasets it found (the prompt is pure: rendering it costs nothing worth timing)."""
    async with ctx.database.session() as session:
        chat = await chats.create_chat(ctx, session, account.user_id, "Prompt", account.ontology_id)
        context = await chats.load_chat_context(ctx, session, account.user_id, chat.id)
        search_s, ground_s = [], []
        for _ in range(runs):
            started = time.perf_counter()
            await ontologies.search(ctx, session, context.ontology, QUESTION)
            search_s.append(time.perf_counter() - started)
            started = time.perf_counter()
            datasets = (await ground(ctx, context.access, context.model, QUESTION)).datasets
            ground_s.append(time.perf_counter() - started)
    limits = PromptLimits(ctx.settings.query_max_rows, ctx.settings.query_timeout_s)
    relationships = join_hints(context.model)
    by_count = {}
    for count in range(len(datasets) + 1):
        chosen = datasets[:count]
        joins = join_hints_among([d.name for d in chosen], relationships)
        by_count[count] = len(system_prompt(chosen, joins, context.model.dialect, limits))
    return {
        "search_ms": spread_ms(search_s),
        "retrieval_ms": spread_ms(ground_s),
        "datasets_retrieved": [d.name for d in datasets],
        "system_prompt_chars_by_datasets": by_count,
    }


class AppendTimer:
    """Times every `RunWriter.append` while installed (measurement only: it calls the real
    method and changes nothing else)."""

    def __init__(self) -> None:
        self.durations: list[float] = []
        self._original = RunWriter.append

    def __enter__(self) -> AppendTimer:
        original, durations = self._original, self.durations

        async def timed(writer: RunWriter, event: str, data: dict[str, Any]) -> int:
            started = time.perf_counter()
            try:
                return await original(writer, event, data)
            finally:
                durations.append(time.perf_counter() - started)

        RunWriter.append = timed  # type: ignore[method-assign,assignment]
        return self

    def __exit__(self, *exc: object) -> None:
        RunWriter.append = self._original  # type: ignore[method-assign]


async def model_build_ms(runs: int) -> float:
    """Median time to build the OpenAI chat model an answer gets (`build_chat_model`: what
    `services.llm.chat_client` does for every answer on the provider path)."""
    settings = Settings(
        openai_base_url="http://127.0.0.1:9/v1",
        _env_file=None,
    )
    timings = []
    for _ in range(runs):
        started = time.perf_counter()
        model = providers.build_chat_model(settings, "openai")
        timings.append(time.perf_counter() - started)
        await providers.close_chat_model(model)
    return round(statistics.median(timings) * 1000, 1)


async def query_times(ctx: AppContext, run_ids: list[uuid.UUID]) -> list[int]:
    """`execution_ms` of the queries these runs recorded."""
    async with ctx.database.session() as session:
        rows = await session.scalars(
            select(QueryRecord.execution_ms).where(QueryRecord.run_id.in_(run_ids))
        )
        return list(rows)


async def one_at_a_time(questions: int, database_url: str | None, scratch: Path) -> dict[str, Any]:
    """Parts 1-3: `questions` answers in sequence through the in-process app."""
    retail = scratch / "retail.db"
    with app_database(database_url, scratch, "inprocess") as url:
        settings = Settings(
            data_dir=scratch / "inprocess",
            database_url=url,
            secret_key=SECRET,
            file_roots=[scratch],
            # run_python is not used: no warm interpreters competing for the CPU.
            sandbox_pool_size=0,
            _env_file=None,
        )
        app = create_app(settings)
        ctx: AppContext = app.state.context
        models: list[ScriptedChatModel] = []

        def make_model(info: ModelInfo) -> ScriptedChatModel:
            model = scripted_answer()
            models.append(model)
            return model

        ctx.chat_model_factory = make_model
        async with serve(app) as base_url:
            (account,) = await seed_accounts(ctx, 1, retail, "solo")
            async with httpx.AsyncClient(base_url=base_url, timeout=60) as client:
                for _ in range(WARM_UP_ANSWERS):  # the first loads the embedding model
                    warm = await answer_once(client, account)
                    assert not warm.problems(), warm.problems()
                models.clear()
                with AppendTimer() as appends:
                    answers = [await answer_once(client, account) for _ in range(questions)]
            retrieval = await retrieval_and_prompt(ctx, account, 20)
            retrieval["model_build_ms"] = await model_build_ms(20)
            run_ids = [uuid.UUID(a.of("message_start")[0]["runId"]) for a in answers]
            sql_ms = await query_times(ctx, run_ids)
    failed = [problem for a in answers for problem in a.problems()]
    assert not failed, failed[:5]
    return summarise_sequence(answers, models, retrieval, sql_ms, appends.durations)


def summarise_sequence(
    answers: list[Streamed],
    models: list[ScriptedChatModel],
    retrieval: dict[str, Any],
    sql_ms: list[int],
    appends_s: list[float],
) -> dict[str, Any]:
    """The figures of parts 1-3 from the answers, the models that gave them and timings."""
    per_answer = len(appends_s) / len(answers)
    first_s = [a.first_event_s for a in answers if a.first_event_s is not None]
    complete_s = [a.complete_s for a in answers if a.complete_s is not None]
    metadata = [a.of("message_complete")[0]["metadata"] for a in answers]
    usage = [m["tokensUsed"] for m in metadata]
    agent_ms = [float(m["durationMs"]) for m in metadata]
    tool_ms = [float(call["durationMs"]) for m in metadata for call in m["toolCalls"]]
    llm_ms = [sum(float(e["durationMs"]) for e in a.of("llm_call_end")) for a in answers]
    run_ms = [c * 1000 - agent for c, agent in zip(complete_s, agent_ms, strict=True)]
    first_model = models[0]
    system = str(first_model.calls[0][0].content)
    prompt_chars = [sum(len(str(m.content)) for m in messages) for messages in first_model.calls]
    by_count: dict[int, int] = retrieval["system_prompt_chars_by_datasets"]
    retrieved = len(by_count) - 1
    per_dataset = (by_count[retrieved] - by_count[0]) / retrieved if retrieved else 0.0
    return {
        "questions": len(answers),
        "question": QUESTION,
        "sql": SQL,
        "llm": {
            "calls_per_answer": median([len(m.calls) for m in models]),
            "prompt_tokens_per_answer_estimate": median([m.prompt_tokens for m in models]),
            "prompt_tokens_per_answer_chat_client": median([u["prompt"] for u in usage]),
            "completion_tokens_per_answer_chat_client": median([u["completion"] for u in usage]),
            "prompt_chars_per_call": prompt_chars,
            "tool_schema_chars_per_call": len(json.dumps(first_model.tools_seen[0])),
            "system_prompt_chars": len(system),
            "system_prompt_chars_by_datasets_retrieved": by_count,
            "system_prompt_chars_per_dataset": round(per_dataset),
            "datasets_retrieved": retrieval["datasets_retrieved"],
        },
        "first_event": spread_ms(first_s),
        "answer_end_to_end": spread_ms(complete_s),
        "breakdown_p50_ms": {
            "end_to_end": round(percentile(complete_s, 0.5) * 1000, 1),
            "agent (answer_message, metadata.durationMs)": median(agent_ms),
            "  retrieval (search + datasets' YAML, timed apart)": retrieval["retrieval_ms"][
                "p50_ms"
            ],
            "    of which search (embed the question, rank)": retrieval["search_ms"]["p50_ms"],
            "  model calls (2, zero latency: LangChain + client)": median(llm_ms),
            "  query_database tool": median(tool_ms),
            "    of which SQL execution (query record)": median([float(v) for v in sql_ms]),
            "run and stream (claim, events, persistence, SSE)": median(run_ms),
            "across all the above: event appends (each a committed INSERT)": round(
                sum(appends_s) * 1000 / len(answers), 1
            ),
        },
        "event_appends": {
            "per_answer": round(per_answer, 1),
            **spread_ms(appends_s),
        },
        "openai_model_build_ms": retrieval["model_build_ms"],
        "frames_per_answer": median([len(a.frames) for a in answers]),
    }


# --- 4: many answers at once, against a server process -------------------------------------


def two_turns(latency_s: float) -> Any:
    """A scripted OpenAI step: the query first, the answer once a tool result is there."""

    def step(body: dict[str, Any]) -> Step:
        if any(message.get("role") == "tool" for message in body.get("messages", [])):
            return Step(text=ANSWER, delay_s=latency_s)
        return Step(tool_calls=[tool("query_database", sql=SQL)], delay_s=latency_s)

    return step


def memory_kib(pid: int) -> dict[str, int]:
    """VmRSS and VmHWM (peak resident memory) of a process, in KiB."""
    found = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("VmRSS", "VmHWM"):
            found[name] = int(value.split()[0])
    return found


def log_findings(log: str) -> dict[str, Any]:
    """Error lines of the server's log, counted (first seen first)."""
    lines = [line for line in log.splitlines() if " ERROR " in line or "Error:" in line]
    counted = Counter(lines)
    return {"error_lines": sum(counted.values()), "distinct": list(counted)[:10]}


async def wait_until_up(base_url: str, process: asyncio.subprocess.Process) -> None:
    """Poll /api/health until the server answers 200."""
    async with httpx.AsyncClient(base_url=base_url, timeout=2) as client:
        for _ in range(600):
            if process.returncode is not None:
                raise RuntimeError(f"the server exited with {process.returncode}")
            with contextlib.suppress(httpx.HTTPError):
                if (await client.get("/api/health")).status_code == 200:
                    return
            await asyncio.sleep(0.1)
    raise RuntimeError("the server did not come up in 60 s")


def server_env(
    settings: Settings, url: str, fake: FakeOpenAIServer, concurrency: int
) -> dict[str, str]:
    """The server's environment: this machine's, minus model keys, plus the bench's."""
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("DATAAGENT_", "OPENAI_", "ANTHROPIC_", "AZURE_OPENAI_"))
    }
    env.update(
        DATAAGENT_DATA_DIR=str(settings.data_dir),
        DATAAGENT_DATABASE_URL=url,
        DATAAGENT_SECRET_KEY=SECRET,
        DATAAGENT_FILE_ROOTS=",".join(str(root) for root in settings.file_roots),
        DATAAGENT_RUN_MAX_CONCURRENCY=str(concurrency),
        DATAAGENT_LOG_LEVEL="WARNING",
        OPENAI_BASE_URL=fake.url,
        OPENAI_MODEL=fake.model,
    )
    return env


async def burst(
    concurrency: int, latency_s: float, database_url: str | None, scratch: Path
) -> dict[str, Any]:
    """Part 4: `concurrency` users each stream one answer at once from a server process."""
    retail = scratch / "retail.db"
    with (
        app_database(database_url, scratch, "server") as url,
        FakeOpenAIServer(default=two_turns(latency_s)) as fake,
    ):
        settings = Settings(
            data_dir=scratch / "server",
            database_url=url,
            secret_key=SECRET,
            file_roots=[scratch],
            _env_file=None,
        )
        seeding = time.perf_counter()
        async with RunSystem.in_process(settings) as system:  # builds are runs
            accounts = await seed_accounts(system.app, concurrency + 1, retail, "burst")
        seeded_s = time.perf_counter() - seeding
        port = free_port()
        base_url = f"http://127.0.0.1:{port}"
        log_path = scratch / "server.log"
        with log_path.open("wb") as log:
            process = await asyncio.create_subprocess_exec(
                *[sys.executable, "-m", "dataagent", "serve", "--host", "127.0.0.1"],
                *["--port", str(port)],
                env=server_env(settings, url, fake, concurrency),
                cwd=scratch,  # no .env of the repository's
                stdout=log,
                stderr=asyncio.subprocess.STDOUT,
            )
        try:
            await wait_until_up(base_url, process)
            started_rss = memory_kib(process.pid)["VmRSS"]
            # A kept-alive connection idle past the server's keep-alive (uvicorn: 5 s) may be
            # closed by it as the next request goes out; forget idle ones well before that.
            limits = httpx.Limits(
                max_connections=None, max_keepalive_connections=None, keepalive_expiry=1.0
            )
            timeout = httpx.Timeout(300, connect=60)
            async with httpx.AsyncClient(
                base_url=base_url, timeout=timeout, limits=limits
            ) as client:
                warm = await answer_once(client, accounts[0])  # loads what answers need
                await asyncio.sleep(1)
                idle = memory_kib(process.pid)
                users = accounts[1:]
                asked = await asyncio.gather(*(ask(client, a) for a in users))
                began = time.perf_counter()
                answers = await asyncio.gather(
                    *(
                        stream_answer(client, account, chat_id, message_id)
                        for account, (chat_id, message_id) in zip(users, asked, strict=True)
                    )
                )
                wall_s = time.perf_counter() - began
            after = memory_kib(process.pid)
        finally:
            process.send_signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(process.wait(), 30)
            except TimeoutError:
                process.kill()
                await process.wait()
        log_text = log_path.read_text(errors="replace")
        RESULTS.mkdir(exist_ok=True)
        (RESULTS / "agent_server.log").write_text(log_text)
        model_requests = len(fake.requests)
    problems = Counter(problem for a in answers for problem in a.problems())
    failed = sum(1 for a in answers if a.problems())
    ok = [a for a in answers if not a.problems()]
    return {
        "concurrency": concurrency,
        "model_latency_s": latency_s,
        "seeding_s": round(seeded_s, 1),
        "warm_up_answer_problems": warm.problems(),
        "answers": len(answers),
        "errors": failed,
        "error_kinds": dict(problems.most_common(10)),
        "first_event": spread_ms([a.first_event_s for a in ok if a.first_event_s is not None]),
        "end_to_end": spread_ms([a.complete_s for a in ok if a.complete_s is not None]),
        "wall_s": round(wall_s, 2),
        "answers_per_s": round(len(ok) / wall_s, 1),
        "model_requests": model_requests,
        "server_rss_started_mib": round(started_rss / 1024, 1),
        "server_rss_idle_mib": round(idle["VmRSS"] / 1024, 1),
        "server_rss_after_mib": round(after["VmRSS"] / 1024, 1),
        "server_peak_rss_mib": round(after["VmHWM"] / 1024, 1),
        "server_log": log_findings(log_text),
    }


# --- the run ----------------------------------------------------------------------------


async def main(arguments: argparse.Namespace) -> dict[str, Any]:
    """Measure every part in one run and return the figures."""
    with tempfile.TemporaryDirectory() as scratch_dir:
        scratch = Path(scratch_dir)
        await asyncio.to_thread(write_sqlite, generate(), scratch / "retail.db")
        figures: dict[str, Any] = {
            "machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0]},
            "app_database": "postgresql" if arguments.database_url else "sqlite",
        }
        figures["sequential"] = await one_at_a_time(
            arguments.questions, arguments.database_url, scratch
        )
        if not arguments.skip_concurrency:
            figures["concurrent"] = await burst(
                arguments.concurrency, arguments.latency, arguments.database_url, scratch
            )
    return figures


def report(figures: dict[str, Any]) -> str:
    """The figures as a person reads them."""
    sequential = figures["sequential"]
    llm = sequential["llm"]
    lines = [
        f"Agent benchmark ({figures['app_database']} app database, "
        f"{figures['machine']['cpus']} CPUs)",
        f"question: {sequential['question']}",
        "",
        f"1. Model calls and prompt (one-query question, {sequential['questions']} answers)",
        f"   model calls per answer             {llm['calls_per_answer']:g}  (budget <= 3)",
        f"   prompt tokens per answer           {llm['prompt_tokens_per_answer_estimate']:g} "
        f"estimated (4 chars/token), {llm['prompt_tokens_per_answer_chat_client']:g} "
        "by ChatClient usage",
        "   completion tokens per answer       "
        f"{llm['completion_tokens_per_answer_chat_client']:g}",
        f"   prompt chars per call              {llm['prompt_chars_per_call']} "
        f"(+ {llm['tool_schema_chars_per_call']} chars of tool schemas)",
        f"   system prompt                      {llm['system_prompt_chars']} chars, "
        f"{len(llm['datasets_retrieved'])} datasets retrieved",
        "   system prompt by datasets retrieved "
        + ", ".join(
            f"{k}: {v}" for k, v in llm["system_prompt_chars_by_datasets_retrieved"].items()
        )
        + f"  (~{llm['system_prompt_chars_per_dataset']} chars a dataset)",
        "",
        "2. Stream POST -> first SSE event (zero-latency model)",
        "   " + _spread(sequential["first_event"]) + "  (budget p50 <= 50 ms)",
        "",
        "3. Non-LLM overhead: stream POST -> message_complete (zero-latency model)",
        "   " + _spread(sequential["answer_end_to_end"]) + "  (budget p50 <= 100 ms)",
        f"   frames per answer {sequential['frames_per_answer']:g}; p50 breakdown (ms):",
    ]
    for name, value in sequential["breakdown_p50_ms"].items():
        lines.append(f"     {name.ljust(62)} {value:7.1f}")
    appends = sequential["event_appends"]
    lines += [
        f"   event appends: {appends['per_answer']:g} an answer, "
        + _spread({k: v for k, v in appends.items() if k != "per_answer"})
        + " each",
        f"   building an OpenAI chat model (once per process, then shared): "
        f"{sequential['openai_model_build_ms']} ms",
    ]
    concurrent = figures.get("concurrent")
    if concurrent:
        lines += [
            "",
            f"4. {concurrent['answers']} answers streamed at once, server process, model "
            f"latency {concurrent['model_latency_s']:g} s a call (2 calls an answer)",
            f"   errors                 {concurrent['errors']} "
            + (json.dumps(concurrent["error_kinds"]) if concurrent["errors"] else ""),
            "   first event            " + _spread(concurrent["first_event"]),
            "   end to end             " + _spread(concurrent["end_to_end"]),
            f"   throughput             {concurrent['answers_per_s']} answers/s "
            f"({concurrent['wall_s']} s for all)",
            f"   server memory          {concurrent['server_rss_idle_mib']} MiB idle, "
            f"{concurrent['server_peak_rss_mib']} MiB peak",
            f"   server log errors      {concurrent['server_log']['error_lines']}",
        ]
        lines += [f"     {line[:160]}" for line in concurrent["server_log"]["distinct"]]
    return "\n".join(lines)


def _spread(values: dict[str, float]) -> str:
    if not values:
        return "no answer"
    return "  ".join(f"{name.removesuffix('_ms')} {value:.1f} ms" for name, value in values.items())


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=50, help="Answers in parts 1-3.")
    parser.add_argument(
        "--concurrency", type=int, default=200, help="Answers streamed at once in part 4."
    )
    parser.add_argument(
        "--latency", type=float, default=1.0, help="Seconds each model call takes in part 4."
    )
    parser.add_argument("--skip-concurrency", action="store_true", help="Skip part 4.")
    parser.add_argument(
        "--database-url", help="A PostgreSQL server for the app databases (default: SQLite)."
    )
    figures = asyncio.run(main(parser.parse_args()))
    print(report(figures))
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "agent.json").write_text(json.dumps(figures, indent=2) + "\n")
