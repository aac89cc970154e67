"""The host's side of the zygote protocol, against a fake zygote process.

The fake stands in for the zygote at the process boundary (the pipes): it answers the
ready frame, reads each job, and answers in one of the ways a compromised sandbox could.
Only a result frame carrying the job's own nonce, and nothing around it, is accepted;
anything else discards the zygote and reports RUNNER_INTERNAL_ERROR for that run.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

from dataagent.errors import ErrorCode
from dataagent.sandbox import LocalSandbox
from dataagent.sandbox.worker import Worker

pytestmark = [pytest.mark.sandbox, pytest.mark.asyncio]

FAKE_ZYGOTE = r"""
import json, struct, sys, time

mode = sys.argv[1]
out = sys.stdout.buffer
previous = None


def frame(message):
    body = json.dumps(message).encode()
    return struct.pack(">Q", len(body)) + body


def read_exact(size):
    data = b""
    while len(data) < size:
        chunk = sys.stdin.buffer.read(size - len(data))
        if not chunk:
            sys.exit(0)
        data += chunk
    return data


out.write(frame({"ready": True, "isolation_error": None, "filter_error": None}))
out.flush()
while True:
    header = json.loads(read_exact(struct.unpack(">Q", read_exact(8))[0]))
    honest = {"nonce": header["nonce"], "stdout": header["code"], "wait_status": 0}
    answers = {
        "honest": frame(honest),
        "wrong-nonce": frame(dict(honest, nonce="0" * 32)),
        "no-nonce": frame({key: value for key, value in honest.items() if key != "nonce"}),
        "stale": frame(previous or honest),  # the first job's result again for the second
        "bytes-after": frame(honest) + b"x",
        "bytes-before": b"\n" + frame(honest),
        "not-an-object": frame([honest]),
        "bytes-when-idle": frame(honest),
    }
    out.write(answers[mode])
    out.flush()
    previous = honest
    if mode == "bytes-when-idle":
        time.sleep(0.2)
        out.write(frame(dict(honest, stdout="FORGED")))
        out.flush()
"""


class FakeZygoteSandbox(LocalSandbox):
    """The real pool and host protocol, with each zygote a fake process answering `mode`."""

    def __init__(self, script: Path, mode: str) -> None:
        super().__init__(pool_size=1, max_concurrency=1)
        self.script = script
        self.fake_mode = mode
        self.spawned: list[Worker] = []

    async def _spawn(self) -> Worker:
        command = [sys.executable, "-I", str(self.script), self.fake_mode]
        worker = await Worker.start(command, {"PATH": "/usr/bin:/bin"}, timeout_s=30)
        self.spawned.append(worker)
        self.fake_mode = "honest"  # the replacement zygote behaves
        return worker


@pytest.fixture
def script(tmp_path: Path) -> Path:
    path = tmp_path / "fake_zygote.py"
    path.write_text(FAKE_ZYGOTE)
    return path


async def _until(condition: object, timeout_s: float = 30.0) -> None:
    for _ in range(int(timeout_s / 0.02)):
        if callable(condition) and condition():
            return
        await asyncio.sleep(0.02)
    raise AssertionError("condition not met in time")


async def test_an_honest_frame_is_accepted(script: Path) -> None:
    sandbox = FakeZygoteSandbox(script, "honest")
    try:
        await sandbox.start()
        first, second = await sandbox.execute("one"), await sandbox.execute("two")
        assert (first.stdout, second.stdout) == ("one", "two") and first.error is None
        assert len(sandbox.spawned) == 1 and sandbox.spawned[0].usable  # reused, kept
    finally:
        await sandbox.aclose()


@pytest.mark.parametrize(
    "mode",
    ["wrong-nonce", "no-nonce", "stale", "bytes-after", "bytes-before", "not-an-object"],
)
async def test_a_frame_not_tied_to_the_job_discards_the_zygote(script: Path, mode: str) -> None:
    sandbox = FakeZygoteSandbox(script, mode)
    try:
        await sandbox.start()
        if mode == "stale":
            assert (await sandbox.execute("first job")).stdout == "first job"
        result = await sandbox.execute("the job")
        assert result.error is not None and result.error.code == ErrorCode.RUNNER_INTERNAL_ERROR
        assert result.stdout == ""  # nothing of the rejected frame reaches the caller
        discarded = sandbox.spawned[0]
        assert discarded.process.returncode is not None  # killed, not put back
        await _until(lambda: sandbox.status()["idle"] == 1)  # a fresh zygote replaces it
        assert len(sandbox.spawned) == 2
        assert (await sandbox.execute("next")).stdout == "next"
    finally:
        await sandbox.aclose()


async def test_bytes_written_between_jobs_discard_the_zygote(script: Path) -> None:
    sandbox = FakeZygoteSandbox(script, "bytes-when-idle")
    try:
        await sandbox.start()
        assert (await sandbox.execute("mine")).stdout == "mine"
        first = sandbox.spawned[0]
        await _until(lambda: first.process.frames.pending > 0)  # the forged frame arrived
        assert not first.usable
        result = await sandbox.execute("the next caller's")
        assert result.stdout == "the next caller's" and result.error is None
        assert first.process.returncode is not None and len(sandbox.spawned) == 2
    finally:
        await sandbox.aclose()
