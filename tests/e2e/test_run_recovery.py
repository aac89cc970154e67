"""A server killed with SIGKILL mid-run: after a restart nothing is stuck, and the run's
object says it was interrupted (with its partial text, for an answer).

The answer test drives the real agent through an OpenAI-compatible server scripted here
(it streams a partial answer and then never finishes); the build test drives a real
ontology build of a database large enough to still be building when the kill comes.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from tests.e2e.servers import Server, shop_database, start_ontology, until

EMAIL = "analyst@example.com"
LEASE = {"DATAAGENT_RUN_LEASE_S": "2"}


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    """A server with a 2-second run lease (so the reaper acts quickly), and a user."""
    home = tmp_path / "home"
    home.mkdir()
    server = Server(home, dict(LEASE))
    server.create_user(EMAIL)
    try:
        yield server
    finally:
        server.stop()


def test_a_build_killed_mid_way_is_failed_as_interrupted_after_restart(server: Server) -> None:
    database = shop_database(server.home / "shop.db", tables=600)
    server.start()
    with server.client(EMAIL) as client:
        ontology_id = start_ontology(client, database)
    run_id = ontology_id.replace("-", "")  # SQLite keeps UUIDs as 32 hex digits

    def building() -> bool:
        rows = server.query(
            "SELECT r.status FROM agent_runs r JOIN run_events e ON e.run_id = r.id "
            "WHERE r.ontology_id = ? AND e.event = 'build_start'",
            run_id,
        )
        return rows == [("running",)]

    until(building, "the build runs")
    server.kill()
    [(status,)] = server.query("SELECT status FROM ontologies WHERE id = ?", run_id)
    assert status == "building", "the build ended before the kill: give it more tables"

    server.start()
    with server.client(EMAIL) as client:

        def ended() -> bool:
            ontology = client.get(f"/api/ontologies/{ontology_id}").json()["data"]
            return bool(ontology["status"] != "building")

        until(ended, "the reaper fails the build")
        ontology = client.get(f"/api/ontologies/{ontology_id}").json()["data"]
    assert ontology["status"] == "failed"
    assert "interrupted" in ontology["error"]
    [(run_status, code)] = server.query(
        "SELECT status, error_code FROM agent_runs WHERE ontology_id = ?", run_id
    )
    assert (run_status, code) == ("failed", "INTERRUPTED")
    [(last_event,)] = server.query(
        "SELECT event FROM run_events WHERE run_id = (SELECT id FROM agent_runs "
        "WHERE ontology_id = ?) ORDER BY seq DESC LIMIT 1",
        run_id,
    )
    assert last_event == "build_error"


# --- an answer ------------------------------------------------------------------------------

PARTIAL = ["Houston ", "is behind ", "because"]


class _Model(BaseHTTPRequestHandler):
    """An OpenAI-compatible chat completion that streams PARTIAL, then hangs."""

    stop = threading.Event()

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length", 0))
        json.loads(self.rfile.read(length) or b"{}")
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        try:
            for piece in PARTIAL:
                chunk = {
                    "id": "chatcmpl-1",
                    "object": "chat.completion.chunk",
                    "created": 0,
                    "model": "scripted",
                    "choices": [
                        {"index": 0, "delta": {"role": "assistant", "content": piece},
                         "finish_reason": None}
                    ],
                }  # fmt: skip
                self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                self.wfile.flush()
            while not self.stop.wait(0.2):  # the rest never comes
                self.wfile.write(b": still thinking\n\n")
                self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            return

    def log_message(self, format: str, *args: object) -> None:
        """Quiet."""


@pytest.fixture
def model() -> Iterator[str]:
    """The scripted model's base URL (as OPENAI_BASE_URL)."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Model)
    httpd.daemon_threads = True
    _Model.stop.clear()
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    finally:
        _Model.stop.set()
        httpd.shutdown()
        httpd.server_close()


def test_an_answer_killed_mid_way_keeps_its_partial_text(server: Server, model: str) -> None:
    """Needs the agent (agent.react) and the providers (services.llm) beside the runs."""
    server.extra_env.update({"OPENAI_API_KEY": "sk-scripted", "OPENAI_BASE_URL": model})
    database = shop_database(server.home / "shop.db", tables=1)
    server.start()
    with server.client(EMAIL) as client:
        ontology_id = start_ontology(client, database)
        until(
            lambda: (
                client.get(f"/api/ontologies/{ontology_id}").json()["data"]["status"] == "ready"
            ),
            "the ontology is built",
        )
        chat = client.post("/api/data-agent/chats", json={"name": "Why", "ontologyId": ontology_id})
        chat_id = chat.json()["data"]["id"]
        sent = client.post(
            f"/api/data-agent/chats/{chat_id}/messages", json={"content": "Why is Houston behind?"}
        )
        message_id = sent.json()["data"]["assistantMessage"]["id"]
        url = f"/api/data-agent/chats/{chat_id}/messages/{message_id}"
        received = ""
        with client.stream("POST", f"{url}/stream") as response:
            assert response.status_code == 200, response.read()
            for line in response.iter_lines():
                if line.startswith("data: ") and '"chunk"' in line:
                    received += json.loads(line[6:])["chunk"]
                if received == "".join(PARTIAL):
                    break
    assert received == "".join(PARTIAL), "no answer streamed (needs agent.react, services.llm)"
    server.kill()  # mid-answer: the model is still "thinking"

    server.start()
    with server.client(EMAIL) as client:

        def ended() -> bool:
            messages = client.get(f"/api/data-agent/chats/{chat_id}/messages").json()["data"]
            return bool(messages["items"][-1]["status"] != "generating")

        until(ended, "the reaper fails the answer")
        message = client.get(f"/api/data-agent/chats/{chat_id}/messages").json()["data"]["items"][
            -1
        ]
        replay = client.get(f"{url}/events")
    assert message["status"] == "failed"
    assert message["content"] == "".join(PARTIAL)
    assert message["metadata"]["error"]["code"] == "INTERRUPTED"
    last = [line for line in replay.text.split("\n") if line.startswith("data: ")][-1]
    error = json.loads(last[6:])
    assert (error["code"], error["partialContent"]) == ("INTERRUPTED", "".join(PARTIAL))
    assert error["message"] == "The server stopped while this answer was being generated."
