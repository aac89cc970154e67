"""Real `dataagent serve` and `dataagent demo` processes for end-to-end tests: start, sign
in, kill, restart."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx

import dataagent

# The code this test imported, so the server runs it too (not another installed copy).
SOURCE = str(Path(dataagent.__file__).resolve().parents[1])
PASSWORD = "correct-horse-battery-staple"


def free_port() -> int:
    """A TCP port nothing listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def process_env(home: Path, port: int) -> dict[str, str]:
    """A server process's own environment: nothing inherited but PATH."""
    return {
        "PATH": os.environ.get("PATH", ""),
        "PYTHONPATH": SOURCE,
        "HOME": str(home),
        "DATAAGENT_DATA_DIR": str(home / "data"),
        "DATAAGENT_PORT": str(port),
        "DATAAGENT_LOG_LEVEL": "INFO",
        # The scripted models of these tests answer as the ReAct agent does.
        "DATAAGENT_AGENT_DEFAULT_MODE": "react",
    }


def start_dataagent(
    command: str, home: Path, env: dict[str, str], output: list[str], timeout_s: float = 180
) -> subprocess.Popen[str]:
    """`python -m dataagent <command>` in `home`, returned once it listens; what it printed
    until then is appended to `output`."""
    process = subprocess.Popen(
        [sys.executable, "-m", "dataagent", command],
        cwd=home,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert process.stdout is not None
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        output.append(line)
        # Logged once the socket listens ("Application startup complete" comes before).
        if "Uvicorn running" in line:
            return process
    stop_process(process)
    process.stdout.close()
    raise AssertionError(f"`dataagent {command}` did not start:\n" + "".join(output))


def stop_process(process: subprocess.Popen[str]) -> None:
    """SIGTERM, or SIGKILL when it has not stopped 20 s later."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@dataclass
class Server:
    """`python -m dataagent serve` on a data directory of its own, restartable."""

    home: Path
    extra_env: dict[str, str] = field(default_factory=dict)
    port: int = field(default_factory=free_port)
    process: subprocess.Popen[str] | None = None
    output: list[str] = field(default_factory=list)

    @property
    def url(self) -> str:
        """The server's base URL."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def app_db(self) -> Path:
        """The app database (SQLite, in the data directory)."""
        return self.home / "data" / "dataagent.db"

    def env(self) -> dict[str, str]:
        """The server's whole environment: nothing inherited but PATH."""
        return {
            **process_env(self.home, self.port),
            "DATAAGENT_FILE_ROOTS": str(self.home),
            "DATAAGENT_SECRET_KEY": "e2e-secret-key-that-is-long-enough-for-hs256",
            "DATAAGENT_SANDBOX_POOL_SIZE": "0",
            **self.extra_env,
        }

    def create_user(self, email: str, role: str = "contributor") -> None:
        """A user (a contributor unless told), made with the command line."""
        done = subprocess.run(
            [sys.executable, "-m", "dataagent", "users", "create", "--email", email,
             "--role", role, "--password-stdin"],
            input=PASSWORD, text=True, capture_output=True, env=self.env(), cwd=self.home,
            timeout=120,
        )  # fmt: skip
        assert done.returncode == 0, done.stdout + done.stderr

    def start(self) -> None:
        """Start the server and wait until it listens."""
        self.process = start_dataagent("serve", self.home, self.env(), self.output)

    def follow_output(self) -> None:
        """Keep reading what the running server prints into `output` (on a thread), so a
        server that logs much never blocks on a full pipe."""
        assert self.process is not None and self.process.stdout is not None
        stdout = self.process.stdout

        def read() -> None:
            with contextlib.suppress(ValueError, OSError):  # closed when the server stops
                for line in stdout:
                    self.output.append(line)

        threading.Thread(target=read, name="server-output", daemon=True).start()

    def kill(self) -> None:
        """SIGKILL: no shutdown code runs, as when a machine or container dies."""
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=30)
        self._close()

    def stop(self) -> None:
        """SIGTERM, or SIGKILL when it does not stop."""
        if self.process is None:
            return
        stop_process(self.process)
        self._close()

    def _close(self) -> None:
        assert self.process is not None
        if self.process.stdout is not None:
            self.process.stdout.close()
        self.process = None

    @contextlib.contextmanager
    def client(self, email: str) -> Iterator[httpx.Client]:
        """A client signed in as `email`."""
        with httpx.Client(base_url=self.url, timeout=30) as client:
            login = client.post("/api/auth/login", json={"email": email, "password": PASSWORD})
            assert login.status_code == 200, login.text
            client.headers["Authorization"] = f"Bearer {login.json()['data']['accessToken']}"
            yield client

    def query(self, sql: str, *params: object) -> list[tuple[object, ...]]:
        """Rows of the app database, read directly (what the server stored)."""
        with sqlite3.connect(self.app_db) as db:
            rows = db.execute(sql, params).fetchall()
        db.close()
        return rows


def shop_database(path: Path, tables: int) -> Path:
    """A SQLite database with `tables` small tables (a larger one takes longer to build)."""
    with sqlite3.connect(path) as db:
        for i in range(tables):
            db.execute(
                f"CREATE TABLE t{i:04d}_orders (id INTEGER PRIMARY KEY, customer TEXT, "
                f"city TEXT, amount REAL, placed_at TEXT)"
            )
        db.execute("INSERT INTO t0000_orders VALUES (1, 'Ana', 'Oslo', 9.5, '2024-01-01')")
    db.close()
    return path


def start_ontology(client: httpx.Client, database: Path) -> str:
    """Connection -> semantic model -> ontology (its build started); the ontology id."""
    connection = client.post(
        "/api/connections", json={"name": "Shop", "dialect": "sqlite", "database": str(database)}
    )
    assert connection.status_code == 201, connection.text
    model = client.post(
        "/api/semantic-models",
        json={"connectionId": connection.json()["data"]["id"], "name": "shop"},
    )
    assert model.status_code == 201, model.text
    ontology = client.post(
        "/api/ontologies", json={"semanticModelId": model.json()["data"]["id"], "name": "Shop"}
    )
    assert ontology.status_code in (201, 202), ontology.text
    ontology_id: str = ontology.json()["data"]["id"]
    return ontology_id


def until(condition: object, what: str, timeout_s: float = 120) -> None:
    """Poll `condition()` until it is true (a bound, not a measurement)."""
    assert callable(condition)
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.05)
    raise AssertionError(f"never: {what}")
