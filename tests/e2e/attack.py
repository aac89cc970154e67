"""A real `dataagent serve` whose model follows a prompt injection: the attack stack.

The server is the production process (uvicorn on its real event loop, uvloop, the real
bubblewrap sandbox with a warm pool, SQLite as the app database); its one chat model is a
scripted OpenAI-compatible server (tests/fakes/openai_server.py) playing a model that does
whatever text planted in the data told it to. Each question starts with a tag naming the
play, `"[forge] ..."`, and the play answers each model turn of that question: the tool calls
the attacker chose, then a short text. A question without a known tag gets a plain answer.

    with AttackStack.start(tmp_path, plays) as stack:
        mallory = stack.person("mallory@example.com")
        answer = mallory.ask("[forge] how many orders?")
        answer.wait_for("message_complete")

People are made by the admin over the API, each with an ontology of their own over a small
SQLite database (`person`). `Answer` follows one answer's SSE stream on a thread and keeps its
events; `StatelessChat` does the same for `POST /api/agent/chat`. Used by
tests/e2e/test_injected_model.py and benchmarks/starvation_bench.py.
"""

from __future__ import annotations

import contextlib
import json
import re
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from tests.e2e.servers import PASSWORD, Server, shop_database, start_ontology, until
from tests.fakes.openai_server import FakeOpenAIServer, Step, question_and_tool_results

ADMIN_EMAIL = "admin@example.com"
TAG = re.compile(r"^\s*\[([a-z0-9-]+)\]")

# A play: (model turns already taken for this question, the tool results so far) -> the
# next answer of the model.
Play = Callable[[int, list[str]], Step]


def attacker(plays: dict[str, Play]) -> Callable[[dict[str, Any]], Step]:
    """The scripted model: the play the question's tag names, at the turn the request is at."""

    def respond(body: dict[str, Any]) -> Step:
        question, results = question_and_tool_results(body)
        turns = _turns_since_question(body)
        found = TAG.match(question)
        play = plays.get(found.group(1)) if found else None
        if play is None:
            return Step(text="There is nothing to report.")
        return play(turns, results)

    return respond


def _turns_since_question(body: dict[str, Any]) -> int:
    messages = body.get("messages", [])
    last_user = max(i for i, m in enumerate(messages) if m.get("role") == "user")
    return sum(1 for m in messages[last_user:] if m.get("role") == "assistant")


@dataclass
class Event:
    """One SSE event as received."""

    event: str
    data: dict[str, Any]


class EventReader:
    """Reads one SSE response on a thread; keeps every event and whether the stream ended."""

    def __init__(self, open_stream: Callable[[], contextlib.AbstractContextManager[Any]]) -> None:
        self.events: list[Event] = []
        self.status: int | None = None
        self.body: str = ""
        self.ended = threading.Event()
        self.responded = threading.Event()
        self._cancel = threading.Event()
        self._thread = threading.Thread(target=self._read, args=(open_stream,), daemon=True)
        self._thread.start()

    def _read(self, open_stream: Callable[[], contextlib.AbstractContextManager[Any]]) -> None:
        try:
            with open_stream() as response:
                self.status = response.status_code
                self.responded.set()
                if response.status_code != 200:
                    self.body = response.read().decode()
                    return
                name = "message"
                for line in response.iter_lines():
                    if self._cancel.is_set():
                        return
                    if line.startswith("event: "):
                        name = line[7:]
                    elif line.startswith("data: "):
                        self.events.append(Event(name, json.loads(line[6:])))
                        name = "message"
        except httpx.HTTPError as exc:
            self.body = f"{type(exc).__name__}: {exc}"
        finally:
            self.responded.set()
            self.ended.set()

    def names(self) -> list[str]:
        """The event types received so far, in order."""
        return [e.event for e in list(self.events)]

    def first(self, name: str) -> Event | None:
        """The first event of this type, if any arrived."""
        return next((e for e in list(self.events) if e.event == name), None)

    def wait_for(self, name: str, timeout_s: float = 60) -> Event:
        """The first event of this type, waiting up to `timeout_s` (a bound) for it."""
        until(lambda: self.first(name) is not None or self.ended.is_set(), name, timeout_s)
        found = self.first(name)
        assert found is not None, f"the stream ended without {name}: {self.names()} {self.body}"
        return found

    def wait_end(self, timeout_s: float = 60) -> None:
        """Wait until the server ends the stream."""
        assert self.ended.wait(timeout_s), f"the stream did not end: {self.names()}"

    def close(self) -> None:
        """Stop reading (the client goes away at the next line)."""
        self._cancel.set()


@dataclass
class Person:
    """A signed-in account with a ready ontology of its own."""

    stack: AttackStack
    email: str
    user_id: str
    token: str
    ontology_id: str

    def client(self, timeout_s: float = 30) -> httpx.Client:
        """A client signed in as this person (close it)."""
        return httpx.Client(
            base_url=self.stack.server.url,
            timeout=timeout_s,
            headers={"Authorization": f"Bearer {self.token}"},
        )

    def ask(self, question: str) -> Answer:
        """A new chat, the question sent and its answer streaming."""
        with self.client() as client:
            chat = client.post("/api/data-agent/chats", json={"ontologyId": self.ontology_id})
            assert chat.status_code == 201, chat.text
            chat_id = chat.json()["data"]["id"]
            sent = client.post(
                f"/api/data-agent/chats/{chat_id}/messages", json={"content": question}
            )
            assert sent.status_code == 201, sent.text
        message_id = sent.json()["data"]["assistantMessage"]["id"]
        return Answer(self, chat_id, message_id)

    def stateless(self, question: str, timeout_s: float = 120) -> EventReader:
        """`POST /api/agent/chat` with one question, read on a thread."""
        body = {"ontologyId": self.ontology_id, "messages": [{"role": "user", "content": question}]}

        @contextlib.contextmanager
        def open_stream() -> Iterator[httpx.Response]:
            with (
                self.client(timeout_s) as client,
                client.stream("POST", "/api/agent/chat", json=body) as response,
            ):
                yield response

        return EventReader(open_stream)


class Answer(EventReader):
    """One answer of a chat, claimed and streamed on a thread."""

    def __init__(self, person: Person, chat_id: str, message_id: str) -> None:
        self.person = person
        self.chat_id = chat_id
        self.message_id = message_id
        self.url = f"/api/data-agent/chats/{chat_id}/messages/{message_id}"

        @contextlib.contextmanager
        def open_stream() -> Iterator[httpx.Response]:
            with (
                person.client(600) as client,
                client.stream("POST", f"{self.url}/stream") as response,
            ):
                yield response

        super().__init__(open_stream)

    def message(self) -> dict[str, Any]:
        """The assistant message as stored now."""
        with self.person.client() as client:
            found = client.get(f"/api/data-agent/chats/{self.chat_id}/messages")
        assert found.status_code == 200, found.text
        items: list[dict[str, Any]] = found.json()["data"]["items"]
        return next(m for m in items if m["id"] == self.message_id)

    def tool_results(self) -> list[dict[str, Any]]:
        """The `tool_result` events received so far."""
        return [e.data for e in list(self.events) if e.event == "tool_result"]

    def cancel(self) -> None:
        """Ask the server to stop this answer."""
        with self.person.client() as client:
            client.post(f"{self.url}/cancel")


@dataclass
class AttackStack:
    """The scripted model and a real server pointed at it, with an admin."""

    model: FakeOpenAIServer
    server: Server
    admin_token: str = ""
    people: dict[str, Person] = field(default_factory=dict)

    @classmethod
    @contextlib.contextmanager
    def start(
        cls, home: Path, plays: dict[str, Play], env: dict[str, str] | None = None
    ) -> Iterator[AttackStack]:
        """Start the model and `dataagent serve` in `home`; stop both at the end."""
        home.mkdir(parents=True, exist_ok=True)
        with FakeOpenAIServer(default=attacker(plays)) as model:
            server = Server(
                home,
                {
                    "OPENAI_API_KEY": "sk-scripted",
                    "OPENAI_BASE_URL": model.url,
                    "DATAAGENT_SANDBOX_POOL_SIZE": "2",
                    "DATAAGENT_LLM_MAX_RETRIES": "0",
                    **(env or {}),
                },
            )
            server.create_user(ADMIN_EMAIL, role="admin")
            server.start()
            server.follow_output()
            stack = cls(model, server)
            try:
                stack.admin_token = stack.sign_in(ADMIN_EMAIL)
                yield stack
            finally:
                server.stop()

    @property
    def log(self) -> str:
        """What the server printed so far."""
        return "".join(self.server.output)

    def sign_in(self, email: str) -> str:
        """A bearer token for the account."""
        with httpx.Client(base_url=self.server.url, timeout=30) as client:
            login = client.post("/api/auth/login", json={"email": email, "password": PASSWORD})
        assert login.status_code == 200, login.text
        token: str = login.json()["data"]["accessToken"]
        return token

    def admin(self) -> httpx.Client:
        """A client signed in as the admin (close it)."""
        return httpx.Client(
            base_url=self.server.url,
            timeout=30,
            headers={"Authorization": f"Bearer {self.admin_token}"},
        )

    def person(self, email: str) -> Person:
        """A contributor made by the admin, signed in, with a ready ontology of their own."""
        with self.admin() as admin:
            made = admin.post(
                "/api/users", json={"email": email, "password": PASSWORD, "role": "contributor"}
            )
        assert made.status_code == 201, made.text
        token = self.sign_in(email)
        database = shop_database(self.server.home / f"shop-{uuid.uuid4().hex[:8]}.db", tables=2)
        headers = {"Authorization": f"Bearer {token}"}
        with httpx.Client(base_url=self.server.url, timeout=60, headers=headers) as client:
            ontology_id = _ready_ontology(client, database)
        person = Person(self, email, made.json()["data"]["id"], token, ontology_id)
        self.people[email] = person
        return person

    def health(self, timeout_s: float) -> httpx.Response:
        """`GET /api/health`, given at most `timeout_s` to answer."""
        with httpx.Client(base_url=self.server.url, timeout=timeout_s) as client:
            return client.get("/api/health")


def _ready_ontology(client: httpx.Client, database: Path) -> str:
    ontology_id = start_ontology(client, database)

    def ready() -> bool:
        status = client.get(f"/api/ontologies/{ontology_id}").json()["data"]["status"]
        assert status != "failed", "the ontology build failed"
        return bool(status == "ready")

    until(ready, "the ontology is built")
    return ontology_id


def elapsed(since: float) -> float:
    """Seconds since `since` (a `time.monotonic()` reading), for reports, never asserts."""
    return time.monotonic() - since
