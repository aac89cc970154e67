"""Descriptor hygiene and forged results, under the event loop the server really runs.

uvicorn runs on uvloop (`uvicorn[standard]` installs it), which let the zygote inherit
extra copies of the host's ends of its pipes: a run could write a result frame there, so
its own job returned at once and the next person's run_python received the forged text.
Each test runs the real bubblewrap pool under uvloop and under plain asyncio.
"""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
import uvloop
from tests.integration.sandbox.conftest import require_bwrap

from dataagent.sandbox import ExecutionResult, LocalSandbox, SandboxLimits
from dataagent.sandbox import worker as worker_module
from dataagent.sandbox.worker import Worker

pytestmark = pytest.mark.sandbox

LOOPS: dict[str, Callable[[Awaitable[Any]], Any]] = {
    "uvloop": uvloop.run,
    "asyncio": asyncio.run,
}

LIST_DESCRIPTORS = """
import json, os, resource
fds = {}
for fd in range(resource.getrlimit(resource.RLIMIT_NOFILE)[0]):
    try:
        fds[fd] = os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        pass
print(json.dumps(fds))
"""

# The attacker knows the protocol exactly: an 8-byte big-endian length, then JSON shaped
# like the supervisor's result. It writes the frame to every descriptor it has or can open,
# its own and its parents' (through /proc), then finishes normally a little later.
FORGE = """
import json, os, struct, time
forged = {"stdout": "FORGED by the attacker\\n", "stderr": "", "wait_status": 0,
          "timed_out": False, "elapsed_ms": 1, "files": [], "notes": [], "value": None,
          "has_value": False, "memory_error": False, "nonce": "0" * 32}
body = json.dumps(forged).encode()
frame = struct.pack(">Q", len(body)) + body
written = []
for fd in range(3, 1024):
    try:
        os.write(fd, frame)
        written.append(fd)
    except OSError:
        pass
for pid in os.listdir("/proc"):
    if not pid.isdigit():
        continue
    for fd in range(64):
        try:
            target = os.open(f"/proc/{pid}/fd/{fd}", os.O_WRONLY | os.O_NONBLOCK)
        except OSError:
            continue
        try:
            os.write(target, frame)
            written.append(f"{pid}/{fd}")
        except OSError:
            pass
        finally:
            os.close(target)
time.sleep(0.5)
print(); print("attacker finished", json.dumps([os.readlink("/proc/self"), written]))
"""


def _run(loop: str, scenario: Callable[[LocalSandbox], Awaitable[Any]]) -> Any:
    require_bwrap()
    limits = SandboxLimits(timeout_s=10, memory_mb=256)

    async def main() -> Any:
        sandbox = LocalSandbox(pool_size=1, max_concurrency=2, limits=limits)
        try:
            await sandbox.start()
            return await scenario(sandbox)
        finally:
            await sandbox.aclose()

    return LOOPS[loop](main())


@pytest.mark.parametrize("loop", LOOPS)
def test_a_run_sees_only_its_own_descriptors(loop: str) -> None:
    async def scenario(sandbox: LocalSandbox) -> ExecutionResult:
        return await sandbox.execute(LIST_DESCRIPTORS)

    result = _run(loop, scenario)
    assert result.ok, result.stderr
    fds = {int(fd): target for fd, target in json.loads(result.stdout).items()}
    assert fds[0] == "/dev/null"
    extra = sorted(set(fds) - {0, 1, 2})
    assert len(extra) == 1, fds  # the run's own result pipe, nothing else
    assert all(target.startswith("pipe:") for fd, target in fds.items() if fd != 0), fds


@pytest.mark.parametrize("loop", LOOPS)
def test_a_forged_frame_reaches_nobody(loop: str) -> None:
    async def scenario(sandbox: LocalSandbox) -> list[ExecutionResult]:
        attacker = await sandbox.execute(FORGE, owner="attacker")
        victim = await sandbox.execute("print('the victim ran')", owner="victim")
        later = await sandbox.execute("print('a later run')", owner="someone else")
        both = await asyncio.gather(
            sandbox.execute(FORGE, owner="attacker"),
            sandbox.execute("print('alongside')", owner="victim"),
        )
        return [attacker, victim, later, *both]

    attacker, victim, later, attacker_again, alongside = _run(loop, scenario)
    for run in (attacker, attacker_again):
        # The attacker's job ran to its end (its frame did not end it early), and all it
        # could write to were its own descriptors: its output and its result pipe.
        assert run.ok, run.stderr
        last = run.stdout.splitlines()[-1]
        assert last.startswith("attacker finished"), run.stdout
        pid, written = json.loads(last.removeprefix("attacker finished"))
        assert all(isinstance(fd, int) or fd.startswith(f"{pid}/") for fd in written), written
    assert victim.stdout == "the victim ran\n" and victim.ok
    assert later.stdout == "a later run\n" and later.ok
    assert alongside.stdout == "alongside\n" and alongside.ok


# Everything the worker's Python stack holds on the way to the code: the job it was
# handed (its code, limits, tables) and the raw bytes it read.
DUMP_THE_JOB = """
import sys
frame, seen = sys._getframe(), []
while frame is not None:
    seen += [repr(value) for value in frame.f_locals.values()]
    frame = frame.f_back
print("\\n".join(seen))
"""


def test_the_worker_never_sees_the_nonce(monkeypatch: pytest.MonkeyPatch) -> None:
    nonces: list[str] = []
    token_hex = worker_module.secrets.token_hex

    def recording_token_hex(nbytes: int) -> str:
        nonces.append(token_hex(nbytes))
        return nonces[-1]

    monkeypatch.setattr(worker_module.secrets, "token_hex", recording_token_hex)

    async def scenario(sandbox: LocalSandbox) -> ExecutionResult:
        return await sandbox.execute(DUMP_THE_JOB, timeout_s=7)

    result = _run("asyncio", scenario)
    assert result.ok, result.stderr
    assert "'timeout_s': 7.0" in result.stdout and "'baseline_vm_kb'" in result.stdout
    assert len(nonces) == 1 and nonces[0] not in result.stdout


def test_a_descriptor_leaked_into_the_zygote_is_closed_at_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Whatever starts the zygote may leak descriptors into it (as uvloop did): here one
    # end of a socket pair is passed on purpose. The zygote must close it first thing.
    host_end, leaked = socket.socketpair()
    start = Worker.start.__func__  # type: ignore[attr-defined]

    async def leaky_start(
        cls: type[Worker],
        command: list[str],
        env: dict[str, str],
        timeout_s: float = 120.0,
        pass_fds: tuple[int, ...] = (),
    ) -> Worker:
        return await start(cls, command, env, timeout_s, (*pass_fds, leaked.fileno()))

    monkeypatch.setattr(Worker, "start", classmethod(leaky_start))

    async def scenario(sandbox: LocalSandbox) -> list[Any]:
        leaked.close()  # our copy: now only the sandbox could still hold that end
        runs = [await sandbox.execute(LIST_DESCRIPTORS), await sandbox.execute(FORGE)]
        host_end.setblocking(False)
        # End of file, not "would block": no process in the sandbox (zygote, supervisor,
        # worker) holds the leaked end, and nothing was written to it.
        return [*runs, host_end.recv(1)]

    try:
        listing, forging, received = _run("asyncio", scenario)
    finally:
        host_end.close()
        leaked.close()
    assert received == b""
    assert listing.ok and forging.ok, (listing.stderr, forging.stderr)
    fds = json.loads(listing.stdout)
    assert len(fds) == 4 and not any("socket" in target for target in fds.values()), fds
