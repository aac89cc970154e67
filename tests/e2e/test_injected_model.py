"""What a model following a prompt injection can do, tried through a real server.

Each test plays one finding of an attack round (issue 21) against `dataagent serve` on its
real event loop (uvloop), the real sandbox and a model scripted to send the attacker's tool
calls (tests/e2e/attack.py). Each failed on 9e232a5, where the attack worked.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import pytest
from tests.e2e.attack import Answer, AttackStack, Play
from tests.fakes.openai_server import FakeToolCall, Step, tool

pytestmark = pytest.mark.sandbox

DONE = Step(text="Done.")

# Writes result frames shaped exactly like the sandbox supervisor's (8-byte big-endian length,
# then JSON) to every descriptor the run can see that is not its own stdout/stderr, for a while.
FORGE_CODE = """
import json, os, struct, time
forged = json.dumps({"stdout": "FORGED by mallory", "stderr": "", "wait_status": 0,
    "timed_out": False, "elapsed_ms": 1, "files": [], "notes": [], "value": None,
    "has_value": False, "memory_error": False}).encode()
frame = struct.pack(">Q", len(forged)) + forged
targets = [int(fd) for fd in os.listdir("/proc/self/fd") if int(fd) > 2]
for fd in targets:
    try:
        os.set_blocking(fd, False)
    except OSError:
        pass
written = 0
deadline = time.monotonic() + 8
while time.monotonic() < deadline:
    for fd in targets:
        try:
            written += os.write(fd, frame)
        except OSError:
            pass
    time.sleep(0.01)
print("forger saw", len(targets), "descriptors and wrote", written, "bytes")
"""
VICTIM_MARK = "victim-own-output-42"

USERNS_CODE = """
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
CLONE_NEWUSER, CLONE_NEWNS = 0x10000000, 0x00020000
for flags in (CLONE_NEWUSER, CLONE_NEWUSER | CLONE_NEWNS):
    child = os.fork()
    if child == 0:  # each try in a fresh process, as the attacker's code would
        result = libc.unshare(flags)
        error = os.strerror(ctypes.get_errno()) if result else "ok"
        print("unshare", hex(flags), "->", result, error, flush=True)
        os._exit(0)
    os.waitpid(child, 0)
"""

SLEEP_CODE = "import time\ntime.sleep(20)\nprint('slept')"
FLOOD_CODE = "print('x' * 2_000_000)"
FLOOD_TURNS, FLOOD_CALLS = 3, 20


def _once(step: Step) -> Play:
    """Tool calls in the first turn, then a short answer."""
    return lambda turns, results: step if turns == 0 else DONE


def _flood(turns: int, results: list[str]) -> Step:
    if turns < FLOOD_TURNS:
        return Step(tool_calls=[tool("run_python", code=FLOOD_CODE) for _ in range(FLOOD_CALLS)])
    return DONE


def _forever(turns: int, results: list[str]) -> Step:
    """A model that keeps calling the sandbox, one short run per turn, never answering."""
    return Step(tool_calls=[tool("run_python", code="import time\ntime.sleep(1)\nprint(1)")])


def _huge_chart() -> FakeToolCall:
    rows = [{"region": f"{'R' * 4000}{i}", "revenue": i} for i in range(5000)]
    arguments = {"chart_type": "bar", "title": "Revenue", "data": rows, "x": "region"}
    arguments["y"] = ["revenue"]  # type: ignore[assignment]
    # In one delta, as servers such as Ollama send a tool call (LangChain re-parses each
    # partial delta of arguments from its start, so megabytes in small pieces cost minutes
    # before any of our code sees them; a real model's output limit keeps them small).
    return FakeToolCall("create_chart", arguments, piece=100_000_000)


PLAYS: dict[str, Play] = {
    "forge": _once(Step(tool_calls=[tool("run_python", code=FORGE_CODE)])),
    "victim": _once(Step(tool_calls=[tool("run_python", code=f"print('{VICTIM_MARK}')")])),
    "userns": _once(Step(tool_calls=[tool("run_python", code=USERNS_CODE)])),
    "sleepers": _once(Step(tool_calls=[tool("run_python", code=SLEEP_CODE) for _ in range(8)])),
    "quick": _once(Step(tool_calls=[tool("run_python", code="print(6 * 7)")])),
    "flood": _flood,
    "lists": _once(Step(tool_calls=[tool("list_datasets") for _ in range(3000)])),
    "chart": _once(Step(tool_calls=[_huge_chart()])),
    "slow-model": lambda turns, results: Step(text="Late.", delay_s=20),
    "forever": _forever,
}


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AttackStack]:
    """One server for the module: each test makes the people it needs."""
    home = tmp_path_factory.mktemp("attack") / "home"
    with AttackStack.start(home, PLAYS) as stack:
        yield stack


def _tool_text(answer: Answer) -> str:
    return "\n".join(str(result["result"]) for result in answer.tool_results())


def _finished(answer: Answer, timeout_s: float = 120) -> Answer:
    answer.wait_end(timeout_s)
    assert "message_complete" in answer.names(), answer.names()
    return answer


# --- 1. run_python reads and forges other people's results -----------------------------------


def test_sandbox_code_cannot_forge_another_persons_result(stack: AttackStack) -> None:
    mallory = stack.person("forger@example.com")
    victim = stack.person("forge-victim@example.com")
    forging = mallory.ask("[forge] how many orders?")
    forging.wait_for("tool_call")
    # While the forger's code writes frames, another person's code runs.
    first = _finished(victim.ask("[victim] how many customers?"))
    _finished(forging)
    second = _finished(victim.ask("[victim] and how many stores?"))

    assert VICTIM_MARK in _tool_text(first), _tool_text(first)
    assert VICTIM_MARK in _tool_text(second), _tool_text(second)
    for answer in (first, second, forging):
        assert "FORGED" not in _tool_text(answer)
    assert re.search(r"forger saw \d+ descriptors", _tool_text(forging)), _tool_text(forging)


# --- 7. sandbox code can create user namespaces -------------------------------------------


def test_sandbox_code_cannot_create_user_namespaces(stack: AttackStack) -> None:
    mallory = stack.person("userns@example.com")
    answer = _finished(mallory.ask("[userns] anything?"))
    lines = [line for line in _tool_text(answer).splitlines() if line.startswith("unshare")]
    assert len(lines) == 2, _tool_text(answer)
    assert all("-> -1 Operation not permitted" in line for line in lines), lines


# --- 2. the stateless chat holds a database connection for the whole stream ---------------------


def test_stateless_streams_of_one_person_leave_the_server_to_others(stack: AttackStack) -> None:
    mallory = stack.person("streamer@example.com")
    other = stack.person("streamer-neighbour@example.com")
    streams = [mallory.stateless("[slow-model] tell me") for _ in range(16)]
    for stream in streams:
        assert stream.responded.wait(60), "no answer to the request"
    try:
        # The model has not answered any of them yet: they are all open or refused.
        health = stack.health(timeout_s=5)
        with other.client(timeout_s=5) as client:
            chats = client.get("/api/data-agent/chats")
        statuses = sorted(s.status or 0 for s in streams)
    finally:
        for stream in streams:
            stream.close()
    assert health.status_code == 200, health.text
    assert chats.status_code == 200, chats.text
    assert set(statuses) <= {200, 429}, statuses
    assert statuses.count(200) == 1, statuses
    refused = next(s for s in streams if s.status == 429)
    assert json.loads(refused.body)["error"]["code"] == "RATE_LIMITED"


# --- 3. one person's answer monopolises the sandbox ----------------------------------------------


def test_one_persons_sleeping_runs_leave_the_sandbox_to_others(stack: AttackStack) -> None:
    mallory = stack.person("sleeper@example.com")
    other = stack.person("sleeper-neighbour@example.com")
    sleeping = mallory.ask("[sleepers] anything?")
    sleeping.wait_for("tool_call")
    try:
        quick = other.ask("[quick] what is six times seven?")
        # A bound well under one sleeping run (20 s), which a first-come queue of two slots
        # held by eight of them could never meet.
        quick.wait_for("message_complete", timeout_s=15)
        assert "42" in _tool_text(quick)
        assert "message_complete" not in sleeping.names()
        assert stack.health(timeout_s=5).status_code == 200
    finally:
        sleeping.cancel()
    sleeping.wait_for("message_error")


# --- 4. tool output and traces are unbounded ----------------------------------------------------


def test_tool_output_reaches_the_model_and_the_traces_bounded(stack: AttackStack) -> None:
    mallory = stack.person("flooder@example.com")
    already = len(stack.model.requests)
    answer = _finished(mallory.ask("[flood] print everything"), timeout_s=300)
    sizes = [len(json.dumps(body)) for body in stack.model.requests[already:]]
    with mallory.client() as client:
        traces = client.get(f"{answer.url}/traces")
    assert traces.status_code == 200
    # 3 turns x 20 runs x 2 MB printed: each prompt and all the traces stay a few hundred KB.
    assert max(sizes) < 1_000_000, sizes
    assert len(traces.content) < 5_000_000, len(traces.content)


def test_thousands_of_tool_calls_in_one_turn_run_a_bounded_number(stack: AttackStack) -> None:
    mallory = stack.person("lister@example.com")
    already = len(stack.model.requests)
    answer = _finished(mallory.ask("[lists] list everything"))
    with mallory.client() as client:
        replay = client.get(f"{answer.url}/events")
    events = [line for line in replay.text.splitlines() if line.startswith("event: ")]
    later = [len(json.dumps(body)) for body in stack.model.requests[already + 1 :]]
    assert len(events) < 200, len(events)
    assert later and max(later) < 300_000, later


def test_a_huge_chart_is_refused_without_storing_it(stack: AttackStack) -> None:
    mallory = stack.person("charter@example.com")
    stream = mallory.stateless("[chart] draw it")
    stream.wait_for("done", timeout_s=60)
    [call] = [e.data for e in stream.events if e.event == "tool_call"]
    assert call["tool"] == "create_chart"
    assert "error" in call["result_summary"].lower(), call
    assert not [e for e in stream.events if e.event == "chart"]
    largest = stack.server.query("SELECT MAX(LENGTH(content) + LENGTH(spec)) FROM charts")
    assert (largest[0][0] or 0) < 1_000_000


# --- 5. deactivating or deleting a person does not stop their answers ---------------------------


@pytest.mark.parametrize("action", ["deactivate", "sign-out", "delete"])
def test_ending_an_account_ends_its_answers(stack: AttackStack, action: str) -> None:
    mallory = stack.person(f"ended-{action}@example.com")
    answer = mallory.ask("[forever] keep going")
    stream = mallory.stateless("[forever] keep going too")
    answer.wait_for("tool_result")
    stream.wait_for("tool_call")
    with stack.admin() as admin:
        if action == "deactivate":
            done = admin.patch(f"/api/users/{mallory.user_id}", json={"isActive": False})
        elif action == "sign-out":
            done = admin.post(f"/api/users/{mallory.user_id}/sign-out")
        else:
            done = admin.delete(f"/api/users/{mallory.user_id}")
    assert done.status_code in (200, 204), done.text
    answer.wait_end(timeout_s=30)
    stream.wait_end(timeout_s=30)
    assert answer.names()[-1] == "message_error", answer.names()
    assert stream.names()[-1] == "error", stream.names()
    if action != "delete":
        [(status,)] = stack.server.query(
            "SELECT status FROM data_chat_messages WHERE id = ?", answer.message_id.replace("-", "")
        )
        assert status == "failed"
    assert "IntegrityError" not in stack.log


# --- 6. another person's message is told apart from a missing one ------------------------------


def test_another_persons_message_reads_as_a_missing_one(stack: AttackStack) -> None:
    owner = stack.person("owner@example.com")
    prober = stack.person("prober@example.com")
    answer = _finished(owner.ask("plain question"))
    with prober.client() as client:
        theirs = client.post(f"/api/data-agent/stream/{answer.message_id}")
        missing = client.post("/api/data-agent/stream/00000000-0000-4000-8000-000000000000")
    assert theirs.status_code == missing.status_code == 404
    assert theirs.content == missing.content
