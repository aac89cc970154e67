"""`dataagent demo` from nothing: seed, print credentials, serve; sign in and chat over HTTP."""

from __future__ import annotations

import re
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.e2e.servers import free_port, process_env, start_dataagent, stop_process
from tests.fakes.openai_server import FakeOpenAIServer, Step, tool

from dataagent.demo import curated_model_yaml

DemoServer = tuple[str, str, str, subprocess.Popen[str]]


@pytest.fixture
def demo_env() -> dict[str, str]:
    """Environment the demo process gets on top of the test's (none: no chat model)."""
    return {}


@pytest.fixture
def demo_output() -> list[str]:
    """What the demo process printed before it served."""
    return []


@pytest.fixture
def demo_server(
    tmp_path: Path, demo_env: dict[str, str], demo_output: list[str]
) -> Iterator[DemoServer]:
    """A real `dataagent demo` process on a free port; yields (url, email, password, process)."""
    port = free_port()
    env = {**process_env(tmp_path, port), "COLUMNS": "200", **demo_env}
    process = start_dataagent("demo", tmp_path, env, demo_output)
    printed = "".join(demo_output)
    email = re.search(r"Sign in at \S+ as (\S+)", printed)
    password = re.search(r"Password \(shown once\): (\S+)", printed)
    try:
        assert email and password, printed
        assert "alembic" not in printed.lower(), printed
        yield f"http://127.0.0.1:{port}", email.group(1), password.group(1), process
    finally:
        stop_process(process)
        assert process.stdout is not None
        process.stdout.close()


def test_demo_serves_and_the_printed_credentials_work(
    demo_server: DemoServer, demo_output: list[str]
) -> None:
    url, email, password, process = demo_server
    # No chat model is configured here: the demo says the built-in planner answers, and how
    # to configure a model.
    printed = " ".join(" ".join(demo_output).split())
    assert "built-in offline planner" in printed and "OPENAI_API_KEY" in printed
    with httpx.Client(base_url=url, timeout=60) as client:
        health = client.get("/api/health")
        assert health.status_code == 200
        assert health.json()["checks"]["database"] == "ok"
        assert client.get("/healthz").json() == health.json()
        assert "<title>Data Agent</title>" in client.get("/").text

        login = client.post("/api/auth/login", json={"email": email, "password": password})
        assert login.status_code == 200, login.text
        token = login.json()["data"]["accessToken"]
        headers = {"Authorization": f"Bearer {token}"}
        me = client.get("/api/auth/me", headers=headers).json()["data"]
        assert me["role"] == "admin"

        chats = client.get("/api/data-agent/chats", headers=headers)
        assert chats.status_code == 200
        assert chats.json()["data"]["total"] == 0

        ontologies = client.get("/api/ontologies", headers=headers).json()["data"]
        assert [(o["name"], o["status"]) for o in ontologies] == [("Retail demo", "ready")]
        # The ontology is built from the curated model, stored as the YAML a person would edit.
        models = client.get("/api/semantic-models", headers=headers).json()["data"]
        assert [m["name"] for m in models] == ["retail"]
        model = client.get(f"/api/semantic-models/{models[0]['id']}", headers=headers)
        assert model.json()["data"]["yaml"] == curated_model_yaml()
        created = client.post(
            "/api/data-agent/chats",
            json={"name": "Houston", "ontologyId": ontologies[0]["id"]},
            headers=headers,
        )
        assert created.status_code == 201, created.text
        chat_id = created.json()["data"]["id"]
        # With no model, the built-in planner answers; "last quarter" is the demo data's last
        # (the demo reads relative dates against its data's last day, 2025-12-31).
        sent = client.post(
            f"/api/data-agent/chats/{chat_id}/messages",
            json={"content": "What was revenue by region last quarter?"},
            headers=headers,
        )
        assert sent.status_code == 201, sent.text
        message_id = sent.json()["data"]["assistantMessage"]["id"]
        base = f"/api/data-agent/chats/{chat_id}/messages/{message_id}"
        with client.stream("POST", f"{base}/stream", headers=headers) as response:
            assert response.status_code == 200
            events = [
                line.removeprefix("event: ")
                for line in response.iter_lines()
                if line.startswith("event: ")
            ]
        assert events[0] == "message_start" and events[-1] == "message_complete"
        assert "phase_start" in events and "llm_call_start" not in events
        answer = client.get(f"{base}", headers=headers).json()["data"]
        assert answer["status"] == "complete", answer
        meta = answer["metadata"]
        assert meta["agentMode"] == "offline" and meta["tokensUsed"]["total"] == 0
        assert meta["stepResults"][0]["sqlResult"]["rowCount"] > 0
        assert "2025-10-01" in meta["dataLineage"]["timeWindow"]
        # The demo's ontology was built as a durable run: its build is watched like any.
        build = client.get(f"/api/ontologies/{ontologies[0]['id']}/build/events", headers=headers)
        assert build.status_code == 200, build.text
        events = [
            line.removeprefix("event: ")
            for line in build.text.splitlines()
            if line.startswith("event: ")
        ]
        assert events == ["build_start", "build_complete"]

        answer = client.post(
            "/api/query",
            json={
                "ontologyId": ontologies[0]["id"],
                "sql": "SELECT city FROM stores ORDER BY city",
            },
            headers=headers,
        )
        assert answer.status_code == 200, answer.text
        assert ["Houston"] in answer.json()["data"]["rows"]
    assert httpx.get(f"{url}/api/data-agent/chats", timeout=10).status_code == 401

    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=20) == 0  # clean shutdown on SIGTERM


def _store_count_model(body: dict[str, Any]) -> Step:
    """The scripted model of the demo: count the stores with SQL, then say what came back."""
    tool_results = [m for m in body["messages"] if m["role"] == "tool"]
    if not tool_results:
        return Step(tool_calls=[tool("query_database", sql="SELECT COUNT(*) AS n FROM stores")])
    table = tool_results[-1]["content"]
    count = re.search(r"\|\s*(\d+)\s*\|", table)
    assert count, table
    return Step(text=f"The retailer has {count.group(1)} stores.")


@pytest.fixture
def fake_model() -> Iterator[FakeOpenAIServer]:
    """An OpenAI-compatible server answering every question about stores the same way."""
    with FakeOpenAIServer(default=_store_count_model) as server:
        yield server


@pytest.fixture
def model_env(fake_model: FakeOpenAIServer, demo_env: dict[str, str]) -> dict[str, str]:
    """The demo pointed at the scripted model the way a user points it at Ollama or vLLM."""
    demo_env.update(OPENAI_BASE_URL=fake_model.url, OPENAI_MODEL="llama-demo")
    return demo_env


def test_demo_answers_through_the_configured_model(
    model_env: dict[str, str], demo_server: DemoServer, demo_output: list[str]
) -> None:
    url, email, password, _ = demo_server
    printed = " ".join(" ".join(demo_output).split())
    assert "Chat models: OpenAI-compatible server (llama-demo)" in printed
    with httpx.Client(base_url=url, timeout=60) as client:
        token = client.post("/api/auth/login", json={"email": email, "password": password}).json()[
            "data"
        ]["accessToken"]
        headers = {"Authorization": f"Bearer {token}"}
        ontology = client.get("/api/ontologies", headers=headers).json()["data"][0]
        chat = client.post(
            "/api/data-agent/chats", json={"ontologyId": ontology["id"]}, headers=headers
        ).json()["data"]
        sent = client.post(
            f"/api/data-agent/chats/{chat['id']}/messages",
            json={"content": "How many stores does the retailer have?"},
            headers=headers,
        ).json()["data"]
        message_id = sent["assistantMessage"]["id"]
        base = f"/api/data-agent/chats/{chat['id']}/messages/{message_id}"
        with client.stream("POST", f"{base}/stream", headers=headers) as response:
            assert response.status_code == 200
            events = [
                line.removeprefix("event: ")
                for line in response.iter_lines()
                if line.startswith("event: ")
            ]
        assert events[0] == "message_start" and events[-1] == "message_complete"
        assert "tool_call" in events and "tool_result" in events
        stores = client.post(
            "/api/query",
            json={"ontologyId": ontology["id"], "sql": "SELECT COUNT(*) AS n FROM stores"},
            headers=headers,
        ).json()["data"]["rows"][0][0]
        answered = client.get(f"/api/data-agent/chats/{chat['id']}", headers=headers).json()
        messages = answered["data"]["messages"]
        assert messages[-1]["content"] == f"The retailer has {stores} stores."
        assert messages[-1]["status"] == "complete"
        # Named from its first question, and its model calls kept.
        assert answered["data"]["name"] == "How many stores does the retailer have?"
        traces = client.get(f"{base}/traces", headers=headers).json()["data"]
        assert [t["model"] for t in traces] == ["llama-demo", "llama-demo"]
