"""`dataagent demo` from nothing: seed, print credentials, serve; sign in and chat over HTTP."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

import dataagent

# The code this test imported, so the server runs it too (not another installed copy).
SOURCE = str(Path(dataagent.__file__).resolve().parents[1])


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@pytest.fixture
def demo_server(tmp_path: Path) -> Iterator[tuple[str, str, str, subprocess.Popen[str]]]:
    """A real `dataagent demo` process on a free port; yields (url, email, password, process)."""
    port = _free_port()
    env = {
        "PATH": os.environ.get("PATH", ""),
        "PYTHONPATH": SOURCE,
        "HOME": str(tmp_path),
        "DATAAGENT_DATA_DIR": str(tmp_path / "data"),
        "DATAAGENT_PORT": str(port),
        "DATAAGENT_LOG_LEVEL": "INFO",
        "COLUMNS": "200",
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "dataagent", "demo"],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    url = f"http://127.0.0.1:{port}"
    output: list[str] = []
    password = email = None
    deadline = time.monotonic() + 180
    assert process.stdout is not None
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        output.append(line)
        if match := re.search(r"Sign in at \S+ as (\S+)", line):
            email = match.group(1)
        if match := re.search(r"Password \(shown once\): (\S+)", line):
            password = match.group(1)
        # Logged once the socket listens ("Application startup complete" comes before).
        if "Uvicorn running" in line:
            break
    try:
        assert email and password, "".join(output)
        assert not [line for line in output if "alembic" in line.lower()], "".join(output)
        yield url, email, password, process
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        process.stdout.close()


def test_demo_serves_and_the_printed_credentials_work(
    demo_server: tuple[str, str, str, subprocess.Popen[str]],
) -> None:
    url, email, password, process = demo_server
    with httpx.Client(base_url=url, timeout=10) as client:
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
        created = client.post(
            "/api/data-agent/chats",
            json={"name": "Houston", "ontologyId": ontologies[0]["id"]},
            headers=headers,
        )
        assert created.status_code == 201, created.text
        chat_id = created.json()["data"]["id"]
        sent = client.post(
            f"/api/data-agent/chats/{chat_id}/messages",
            json={"content": "Why is Houston behind?"},
            headers=headers,
        )
        assert sent.status_code == 201
        assert sent.json()["data"]["assistantMessage"]["status"] == "generating"
        listing = client.get("/api/data-agent/chats", headers=headers).json()["data"]
        assert listing["items"][0]["messageCount"] == 2

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
