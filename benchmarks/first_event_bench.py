"""Time to the first SSE event with the server in its own process, as a client sees it.

`agent_bench.py` parts 2-3 serve the app in the benchmark's own event loop, so the client
that reads the first frame shares a loop (and a core) with the run that has just started
on the server side. Here `dataagent demo` runs as a separate process, the model is the
scripted OpenAI-compatible server with no latency (one `query_database` call, then the
answer), and one client asks --questions questions one after another, timing:

- `GET /api/auth/me`: a signed-in request, the floor under the others;
- `POST .../stream` to its first `event:` frame: the claim, `message_start` and the stream;
- `GET .../events` of the finished answer to its first frame: a replay, no claim.

    .venv/bin/python benchmarks/first_event_bench.py [--questions 50]

Writes benchmarks/results/first_event.json.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # for tests.fakes

from tests.fakes.openai_server import FakeOpenAIServer, Step, tool  # noqa: E402

PASSWORD = "first-event-bench-password"
SQL = "SELECT COUNT(*) AS stores FROM stores"


def _model(body: dict[str, Any]) -> Step:
    """Query first; once the query's result is there, answer."""
    if any(message["role"] == "tool" for message in body["messages"]):
        return Step(text="Counted.")
    return Step(tool_calls=[tool("query_database", sql=SQL)])


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _first_frame_ms(client: httpx.Client, method: str, url: str) -> float:
    began = time.perf_counter()
    with client.stream(method, url) as response:
        response.raise_for_status()
        for line in response.iter_lines():
            if line.startswith("event:"):
                return (time.perf_counter() - began) * 1000
    raise AssertionError(f"{url}: no event")


def _percentiles(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {
        "p50": round(statistics.median(ordered), 1),
        "p90": round(ordered[int(0.9 * (len(ordered) - 1))], 1),
        "p99": round(ordered[int(0.99 * (len(ordered) - 1))], 1),
    }


def _wait_up(client: httpx.Client, server: subprocess.Popen[bytes]) -> None:
    for _ in range(1800):
        assert server.poll() is None, "the server stopped"
        try:
            if client.get("/api/health").status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.1)
    raise AssertionError("the server did not start")


def _wait_answered(client: httpx.Client, chat_id: str) -> None:
    for _ in range(600):
        messages = client.get(f"/api/data-agent/chats/{chat_id}").json()["data"]["messages"]
        if messages[-1]["status"] != "generating":
            assert messages[-1]["status"] == "complete", messages[-1]
            return
        time.sleep(0.02)
    raise AssertionError("the answer never completed")


def measure(questions: int, home: Path, model_url: str) -> dict[str, Any]:
    """Start `dataagent demo` in its own process and time `questions` answers."""
    port = _free_port()
    env = {
        "PATH": os.environ.get("PATH", ""),
        "PYTHONPATH": str(ROOT / "src"),
        "HOME": str(home),
        "DATAAGENT_DATA_DIR": str(home / "data"),
        "DATAAGENT_PORT": str(port),
        "DATAAGENT_ADMIN_PASSWORD": PASSWORD,
        "OPENAI_BASE_URL": model_url,
    }
    log = (home / "server.log").open("w")
    server = subprocess.Popen(
        [sys.executable, "-m", "dataagent", "demo"], cwd=home, env=env, stdout=log, stderr=log
    )
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=60) as client:
            _wait_up(client, server)
            login = {"email": "admin@example.com", "password": PASSWORD}
            token = client.post("/api/auth/login", json=login).json()["data"]["accessToken"]
            client.headers["Authorization"] = f"Bearer {token}"
            ontology = client.get("/api/ontologies").json()["data"][0]["id"]
            # The scripted model answers as the ReAct agent does.
            body = {"ontologyId": ontology, "agentMode": "react"}
            chat = client.post("/api/data-agent/chats", json=body)
            chat_id = chat.json()["data"]["id"]
            signed_in, claim, replay = [], [], []
            for index in range(questions + 3):  # three to warm up
                sent = client.post(
                    f"/api/data-agent/chats/{chat_id}/messages",
                    json={"content": "How many stores are there?"},
                )
                message_id = sent.json()["data"]["assistantMessage"]["id"]
                base = f"/api/data-agent/chats/{chat_id}/messages/{message_id}"
                claimed = _first_frame_ms(client, "POST", f"{base}/stream")
                _wait_answered(client, chat_id)
                replayed = _first_frame_ms(client, "GET", f"{base}/events")
                began = time.perf_counter()
                client.get("/api/auth/me").raise_for_status()
                me = (time.perf_counter() - began) * 1000
                if index >= 3:
                    claim.append(claimed)
                    replay.append(replayed)
                    signed_in.append(me)
        return {
            "questions": questions,
            "signed_in_request_ms": _percentiles(signed_in),
            "stream_post_to_first_event_ms": _percentiles(claim),
            "replay_to_first_event_ms": _percentiles(replay),
        }
    finally:
        server.terminate()
        server.wait(timeout=30)
        log.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=50)
    args = parser.parse_args()
    with FakeOpenAIServer(default=_model) as model, tempfile.TemporaryDirectory() as home:
        result = measure(args.questions, Path(home), model.url)
    answers = result["questions"]
    print(f"First SSE event, server in its own process ({answers} answers, p50/p90/p99 ms)")
    for key, label in (
        ("signed_in_request_ms", "GET /api/auth/me (the floor)"),
        ("stream_post_to_first_event_ms", "POST .../stream -> first event (budget p50 <= 50)"),
        ("replay_to_first_event_ms", "GET .../events of a finished answer -> first event"),
    ):
        figures = result[key]
        print(f"   {label:52} {figures['p50']:>6} {figures['p90']:>6} {figures['p99']:>6}")
    out = ROOT / "benchmarks" / "results" / "first_event.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
