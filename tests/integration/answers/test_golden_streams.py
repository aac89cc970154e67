"""Golden transcripts of both answer streams (issue 22, items 12 and 13).

The same scripted conversation (text, a tool call that works, one that fails, then the
answer; and one whose model breaks off mid-stream) is asked twice over HTTP: as a chat
answer (`POST .../stream`, the run's event log) and as seed 002's stateless chat
(`POST /api/agent/chat`). Each stream, normalised (ids, times, durations; the run's
`message_chunk`s joined, since how many arrive within its window is a matter of timing), must
equal its transcript in tests/fixtures/streams/. The stateless stream is also read with seed
002's own client rules (`Seed002Client`): only its six events, `tool_call` with exactly its
seven fields, and the message the client ends with.

Run with DATAAGENT_UPDATE_GOLDEN=1 to rewrite the transcripts after an intended change (and
read the diff); CI refuses that mode (see `update_golden`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from tests.fakes.openai_server import FakeOpenAIServer, Step, tool
from tests.fixtures.compiler.compiler_golden import update_golden
from tests.integration.api.conftest import World
from tests.integration.runs.conftest import Live, new_chat, parse, read_frames

GOLDEN = Path(__file__).parents[2] / "fixtures" / "streams"
CITY_COUNTS = "SELECT city, COUNT(*) AS customers FROM customers GROUP BY city ORDER BY city"
QUESTION = "How many customers per city?"

_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?([+-]\d\d:\d\d|Z)?")
_MILLISECONDS = re.compile(r"\b\d+ms\b")  # "(2 rows, 1ms)" in a query's result text
# Durations, and a prompt's size (its tool results say how long their query took).
_DURATIONS = {"durationMs", "duration_ms", "totalChars"}
# The events of seed 002's stateless chat, each with the fields its client reads.
SEED_002_EVENTS = {"chunk", "clear_streaming", "tool_call", "chart", "done", "error"}
SEED_002_TOOL_CALL = {
    "tool",
    "input_summary",
    "input_raw",
    "thinking",
    "result_summary",
    "duration_ms",
    "iteration",
}


def answered_script() -> list[Step]:
    """Text and a query; a query of a table that is not there (an error the model reads);
    the answer, streamed in pieces."""
    return [
        Step(
            text="Let me count them.",
            tool_calls=[tool("query_database", "call_q1", sql=CITY_COUNTS)],
        ),
        Step(tool_calls=[tool("query_database", "call_q2", sql="SELECT * FROM nowhere")]),
        Step(text="Oslo and Rome have one customer each.", piece=5),
    ]


def broken_script() -> list[Step]:
    """A tool round, then a model that breaks off after two pieces of its answer."""
    return [
        Step(text="Looking.", tool_calls=[tool("list_datasets", "call_l1")]),
        Step(text="There are two customers.", piece=4, break_after=2),
    ]


SCENARIOS = {"answered": answered_script, "broken": broken_script}


class _Ids:
    """Each distinct id replaced by `<id-N>`, N in order of first appearance."""

    def __init__(self) -> None:
        self.seen: dict[str, str] = {}

    def __call__(self, match: re.Match[str]) -> str:
        return self.seen.setdefault(match.group(0), f"<id-{len(self.seen) + 1}>")


def normalise(value: Any, ids: _Ids) -> Any:
    """A payload with its ids, times and durations made stable."""
    if isinstance(value, dict):
        return {
            key: 0 if key in _DURATIONS and isinstance(item, int) else normalise(item, ids)
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [normalise(item, ids) for item in value]
    if isinstance(value, str):
        return _MILLISECONDS.sub("<n>ms", _TIME.sub("<time>", _UUID.sub(ids, value)))
    return value


def run_transcript(frames: list[tuple[int, str, str]]) -> list[list[Any]]:
    """A chat answer's frames as [event, payload], `message_chunk`s in a row joined (their
    seqs checked to be 1, 2, 3, ... first)."""
    assert [seq for seq, _, _ in frames] == list(range(1, len(frames) + 1))
    ids = _Ids()
    out: list[list[Any]] = []
    for _, event, data in frames:
        payload = json.loads(data)
        assert data == json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
        if event == "message_chunk" and out and out[-1][0] == "message_chunk":
            out[-1][1]["chunk"] += payload["chunk"]
            continue
        out.append([event, normalise(payload, ids)])
    return out


@dataclass
class Seed002Client:
    """Seed 002's client (§11, "SSE Consumption"), reading the raw bytes of a stream: frames
    split on blank lines; `event:` and `data:` lines; `chunk` grows the streaming text,
    `clear_streaming` moves it to the thinking parts, `tool_call` adds a tool step, `done`
    finalises the message, `error` appends its text to the streaming content."""

    streaming: str = ""
    thinking: list[str] = field(default_factory=list)
    steps: list[dict[str, Any]] = field(default_factory=list)
    charts: list[dict[str, Any]] = field(default_factory=list)
    final: dict[str, Any] | None = None
    errors: list[str] = field(default_factory=list)
    frames: list[tuple[str, str]] = field(default_factory=list)

    def read(self, raw: bytes) -> None:
        text = raw.decode("utf-8")
        assert text.endswith("\n\n"), "each frame ends with a blank line"
        for block in text.split("\n\n")[:-1]:
            if block.startswith(":"):  # a comment (heartbeat): the client ignores it
                continue
            lines = block.split("\n")
            assert len(lines) == 2, block
            assert lines[0].startswith("event: ") and lines[1].startswith("data: "), block
            event, data = lines[0][len("event: ") :], lines[1][len("data: ") :]
            assert event in SEED_002_EVENTS, event
            self.frames.append((event, data))
            self.on(event, json.loads(data))

    def on(self, event: str, data: dict[str, Any]) -> None:
        assert self.final is None and not self.errors, f"{event} after the end"
        if event == "chunk":
            assert set(data) == {"content"} and isinstance(data["content"], str)
            self.streaming += data["content"]
        elif event == "clear_streaming":
            assert data == {}
            self.thinking.append(self.streaming)
            self.streaming = ""
        elif event == "tool_call":
            assert set(data) == SEED_002_TOOL_CALL, data
            assert isinstance(data["duration_ms"], int) and isinstance(data["iteration"], int)
            self.steps.append(data)
        elif event == "chart":
            assert {"id", "url", "title", "chartType", "spec"} <= set(data)
            self.charts.append(data)
        elif event == "done":
            assert data == {"status": "completed"}
            self.final = {"content": self.streaming, "toolSteps": self.steps}
        else:
            assert isinstance(data["message"], str) and data["message"]
            self.errors.append(data["message"])
            self.streaming += data["message"]

    def transcript(self) -> list[list[Any]]:
        ids = _Ids()
        return [[event, normalise(json.loads(data), ids)] for event, data in self.frames]


def check_golden(name: str, transcript: list[list[Any]]) -> None:
    """Compare with (or, with DATAAGENT_UPDATE_GOLDEN=1, write) tests/fixtures/streams/`name`."""
    path = GOLDEN / f"{name}.json"
    text = json.dumps(transcript, indent=1, ensure_ascii=False) + "\n"
    if update_golden():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    assert text == path.read_text(), f"{name} differs from its golden transcript"


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
async def test_a_chat_answer_streams_its_golden_transcript(
    world: World, live: Live, openai_server: FakeOpenAIServer, scenario: str
) -> None:
    openai_server.push(*SCENARIOS[scenario]())
    chat = await new_chat(world, world.contributor)
    message_id = await chat.ask(QUESTION)
    client = live.clients["contributor"]
    async with client.stream("POST", chat.url(message_id, "stream")) as response:
        assert response.status_code == 200, await response.aread()
        frames = parse(await read_frames(response))
    check_golden(f"chat_answer_{scenario}", run_transcript(frames))


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
async def test_the_stateless_chat_streams_seed_002_events_byte_for_byte(
    world: World, live: Live, openai_server: FakeOpenAIServer, scenario: str
) -> None:
    openai_server.push(*SCENARIOS[scenario]())
    ontology_id = await world.make_ontology(world.contributor)
    body = {"ontologyId": str(ontology_id), "messages": [{"role": "user", "content": QUESTION}]}
    async with live.clients["contributor"].stream("POST", "/api/agent/chat", json=body) as response:
        assert response.status_code == 200, await response.aread()
        assert response.headers["content-type"].startswith("text/event-stream")
        assert response.headers["cache-control"] == "no-cache"
        assert response.headers["x-accel-buffering"] == "no"
        raw = await response.aread()
    client = Seed002Client()
    client.read(raw)
    if scenario == "answered":
        assert client.final == {
            "content": "Oslo and Rome have one customer each.",
            "toolSteps": client.steps,
        }
        assert client.thinking == ["Let me count them.", ""]
        assert [(s["tool"], s["iteration"]) for s in client.steps] == [
            ("query_database", 1),
            ("query_database", 2),
        ]
        assert client.steps[0]["input_summary"] == CITY_COUNTS
        assert client.steps[1]["result_summary"].startswith("Error")
    else:
        assert client.final is None and len(client.errors) == 1
        assert client.thinking == ["Looking."]
    check_golden(f"stateless_{scenario}", client.transcript())
