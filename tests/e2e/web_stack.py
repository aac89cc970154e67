"""The stack the browser tests run against: a scripted model, `dataagent demo`, three users.

    python -m tests.e2e.web_stack      (from the repository root; web/ must be built)

starts a scripted OpenAI-compatible server (tests/fakes/openai_server.py) and a real
`dataagent demo` process pointed at it with `OPENAI_BASE_URL`, serving the built page from
web/dist. The browser reaches the server through a TCP relay (`Relay`) that a test can tell
to cut every open connection, as a flaky network would. When all answer it prints one line,
`WEB_STACK {json}`, with the base URL (the relay's), the relay's drop URL and the accounts
(the demo's admin, who owns the demo ontology; a viewer; a contributor a test can share it
with), then runs until stdin closes or it is signalled, and stops everything. Playwright's
global set-up (web/e2e/global-setup.ts) starts it.

The model is scripted by the question, so a browser test picks the behaviour it needs:

- any question: a `query_database` call on the demo's real data, then a `run_python` call
  that draws a bar chart of that result, then an answer that quotes the result as a
  markdown table (streamed in small pieces);
- a question containing "slowly": no tools, a long answer streamed in small pieces, one every
  `SLOW_PIECE_S` seconds (for stopping an answer and reloading the page mid-answer);
- a question containing "long report": an 18,000-character answer of 40 sections with tables and
  code, streamed fast in small pieces (for the page's rendering benchmark);
- a question containing "markup": an answer carrying what a hostile or confused model might
  write (raw HTML with a script, an image on another host, a `javascript:` link), which the
  page must show as text or not load at all.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
from tests.e2e.servers import free_port, process_env, start_dataagent, stop_process
from tests.fakes.openai_server import FakeOpenAIServer, Step, question_and_tool_results, tool

REPO = Path(__file__).resolve().parents[2]
ADMIN_EMAIL = "admin@example.com"
ADMIN_PASSWORD = "admin-password-e2e"
VIEWER_EMAIL = "viewer@example.com"
VIEWER_PASSWORD = "viewer-password-e2e"
CONTRIBUTOR_EMAIL = "contributor@example.com"
CONTRIBUTOR_PASSWORD = "contributor-password-e2e"
SLOW_PIECE_S = 0.15

REVENUE_SQL = (
    "SELECT s.region, ROUND(SUM(oi.quantity * oi.unit_price), 2) AS revenue\n"
    "FROM order_items oi\n"
    "JOIN orders o ON o.id = oi.order_id\n"
    "JOIN stores s ON s.id = o.store_id\n"
    "GROUP BY s.region\n"
    "ORDER BY revenue DESC"
)
CHART_CODE = (
    "import matplotlib\n"
    "matplotlib.use('Agg')\n"
    "import matplotlib.pyplot as plt\n"
    "fig, ax = plt.subplots(figsize=(6, 3.5))\n"
    "ax.bar(df['region'], df['revenue'], color='#1565c0')\n"
    "ax.set_title('Revenue by region')\n"
    "ax.set_ylabel('USD')\n"
    "fig.tight_layout()\n"
    "fig.savefig('revenue_by_region.png', dpi=80)\n"
    "print(df.to_string(index=False))\n"
)
SLOW_ANSWER = " ".join(
    f"Part {i}: the regions differ in revenue, orders and customers." for i in range(1, 41)
)

HOSTILE_ANSWER = (
    "Here is the summary.\n\n"
    '<img src="/api/health" onerror="window.__pwned = true">\n\n'
    "<script>window.__pwned = true</script>\n\n"
    "![tracker](https://tracker.invalid/pixel.png)\n\n"
    "[click me](javascript:window.__pwned=true) and [the docs](https://example.invalid/docs)."
)

LONG_REPORT = "\n\n".join(
    f"## Section {i}\n\nRegion {i} sold more in the spring than in the autumn, "
    "and its best channel was the web store.\n\n"
    "| month | orders | revenue |\n|---|---|---|\n"
    + "\n".join(f"| 2024-{m:02d} | {100 + i * m} | {1000.5 * m + i:.2f} |" for m in range(1, 9))
    + f"\n\n```sql\nSELECT month, COUNT(*) FROM orders WHERE region = {i} GROUP BY month\n```"
    for i in range(1, 41)
)


def _markdown_table(result: str) -> str:
    """The markdown table at the start of a query_database result."""
    lines = [line for line in result.splitlines() if line.startswith("|")]
    return "\n".join(lines)


def respond(body: dict[str, Any]) -> Step:
    """The scripted model: the next step of the conversation this request carries."""
    question, results = question_and_tool_results(body)
    if "slowly" in question.lower():
        return Step(text=SLOW_ANSWER, piece=30, chunk_delay_s=SLOW_PIECE_S)
    if "long report" in question.lower():
        return Step(text=LONG_REPORT, piece=25, chunk_delay_s=0.004)
    if "markup" in question.lower():
        return Step(text=HOSTILE_ANSWER, piece=40)
    if not results:
        return Step(
            text="I will total the revenue of each region first.",
            tool_calls=[tool("query_database", sql=REVENUE_SQL)],
        )
    if len(results) == 1:
        return Step(tool_calls=[tool("run_python", code=CHART_CODE)])
    table = _markdown_table(results[0])
    answer = (
        "Revenue differs clearly between the regions.\n\n"
        f"{table}\n\n"
        "The chart above shows the same totals; `order_items` were joined to "
        "`orders` and `stores` to group them by region."
    )
    return Step(text=answer, piece=6, chunk_delay_s=0.02)


class Relay:
    """Forwards 127.0.0.1:`port` to the server byte for byte; `drop()` cuts every connection.

    A `POST /drop` to the control server at `control_url` calls `drop()`, so a browser test
    can break the page's open streams mid-answer without touching the server.
    """

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port: int = self._listener.getsockname()[1]
        self._open: set[socket.socket] = set()
        self._lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()
        relay = self

        class Control(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                dropped = relay.drop()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.end_headers()
                self.wfile.write(json.dumps({"dropped": dropped}).encode())

            def log_message(self, format: str, *args: Any) -> None:
                return

        self._control = ThreadingHTTPServer(("127.0.0.1", 0), Control)
        threading.Thread(target=self._control.serve_forever, daemon=True).start()

    @property
    def control_url(self) -> str:
        """Where a POST cuts every open connection."""
        return f"http://127.0.0.1:{self._control.server_address[1]}/drop"

    def drop(self) -> int:
        """Close every open connection (both sides); the number of pairs closed."""
        with self._lock:
            sockets, self._open = self._open, set()
        for sock in sockets:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()
        return len(sockets) // 2

    def close(self) -> None:
        """Stop accepting and cut what is open."""
        self._control.shutdown()
        self._listener.close()
        self.drop()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            try:
                upstream = socket.create_connection(("127.0.0.1", self.target_port))
            except OSError:
                client.close()
                continue
            with self._lock:
                self._open.update((client, upstream))
            for source, sink in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(source, sink), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket) -> None:
        # Either side closing ends the pair (browsers do not half-close HTTP connections).
        with contextlib.suppress(OSError):
            while data := source.recv(65536):
                sink.sendall(data)
        with self._lock:
            self._open.difference_update((source, sink))
        for sock in (source, sink):
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()


def _drain(process: subprocess.Popen[str], output: list[str]) -> None:
    """Keep reading the server's output, so it never blocks on a full pipe."""
    assert process.stdout is not None
    for line in process.stdout:
        output.append(line)


def _create_users(url: str) -> None:
    """The viewer and the contributor, created by the demo's admin."""
    with httpx.Client(base_url=url, timeout=30) as client:
        login = client.post(
            "/api/auth/login", json={"email": ADMIN_EMAIL, "password": ADMIN_PASSWORD}
        )
        login.raise_for_status()
        token = login.json()["data"]["accessToken"]
        for email, password, role in (
            (VIEWER_EMAIL, VIEWER_PASSWORD, "viewer"),
            (CONTRIBUTOR_EMAIL, CONTRIBUTOR_PASSWORD, "contributor"),
        ):
            created = client.post(
                "/api/users",
                json={"email": email, "password": password, "role": role},
                headers={"Authorization": f"Bearer {token}"},
            )
            if created.status_code not in (201, 409):
                raise RuntimeError(f"could not create the {role}: {created.text}")


def main() -> int:
    """Start the stack, announce it, wait to be stopped."""
    web_dir = Path(os.environ.get("DATAAGENT_WEB_DIR", REPO / "web" / "dist"))
    if not (web_dir / "index.html").is_file():
        sys.stderr.write(f"the page is not built ({web_dir}): run `make web`\n")
        return 2
    stopping = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stopping.set())
    signal.signal(signal.SIGINT, lambda *_: stopping.set())
    with (
        tempfile.TemporaryDirectory(prefix="dataagent-web-e2e-") as home,
        FakeOpenAIServer(default=respond) as model,
    ):
        port = free_port()
        env = {
            **process_env(Path(home), port),
            "DATAAGENT_ADMIN_EMAIL": ADMIN_EMAIL,
            "DATAAGENT_ADMIN_PASSWORD": ADMIN_PASSWORD,
            "DATAAGENT_WEB_DIR": str(web_dir),
            "OPENAI_API_KEY": "sk-e2e",
            "OPENAI_BASE_URL": model.url,
            "OPENAI_MODEL": model.model,
            "COLUMNS": "200",
        }
        output: list[str] = []
        process = start_dataagent("demo", Path(home), env, output, timeout_s=300)
        threading.Thread(target=_drain, args=(process, output), daemon=True).start()
        try:
            url = f"http://127.0.0.1:{port}"
            _create_users(url)
            relay = Relay(port)
            announcement = {
                "baseUrl": f"http://127.0.0.1:{relay.port}",
                "dropUrl": relay.control_url,
                "admin": {"email": ADMIN_EMAIL, "password": ADMIN_PASSWORD},
                "viewer": {"email": VIEWER_EMAIL, "password": VIEWER_PASSWORD},
                "contributor": {"email": CONTRIBUTOR_EMAIL, "password": CONTRIBUTOR_PASSWORD},
            }
            print("WEB_STACK " + json.dumps(announcement), flush=True)
            # Until the parent goes away (stdin closes) or signals.
            threading.Thread(target=lambda: (sys.stdin.read(), stopping.set()), daemon=True).start()
            while not stopping.wait(0.2):
                if process.poll() is not None:
                    sys.stderr.write("the demo server stopped:\n" + "".join(output[-40:]))
                    return 1
            return 0
        finally:
            stop_process(process)


if __name__ == "__main__":
    sys.exit(main())
