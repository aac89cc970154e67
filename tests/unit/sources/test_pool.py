"""The query pool: a per-owner limit, waiting in turn, 429 when too many wait, slots held
until the work itself ends. Work blocks on events the test controls, never on the clock."""

from __future__ import annotations

import asyncio
import threading

import pytest

from dataagent.errors import DataAgentError, ErrorCode
from dataagent.sources.pool import WAITING_PER_SLOT, QueryPool


class Gate:
    """Work that blocks until the test opens the gate, and counts who is inside."""

    def __init__(self) -> None:
        self.open = threading.Event()
        self.inside = 0
        self._lock = threading.Lock()

    def work(self, value: int) -> int:
        with self._lock:
            self.inside += 1
        try:
            assert self.open.wait(30), "the test never opened the gate"
            return value
        finally:
            with self._lock:
                self.inside -= 1


async def _until(condition: object, what: str) -> None:
    for _ in range(2000):
        if callable(condition) and condition():
            return
        await asyncio.sleep(0.005)
    raise AssertionError(f"never happened: {what}")


async def test_one_owner_cannot_hold_up_another() -> None:
    pool = QueryPool(max_workers=4, per_owner=2)
    gate = Gate()
    try:
        heavy = [asyncio.create_task(pool.run("ana", gate.work, i)) for i in range(5)]
        await _until(lambda: gate.inside == 2, "ana's first two queries start")
        assert pool.running("ana") == 2  # the other three wait for ana's own slots
        # Bob's query starts at once although ana has five in flight.
        assert await asyncio.wait_for(pool.run("bob", lambda: "bob"), 10) == "bob"
        assert gate.inside == 2
        gate.open.set()
        assert sorted(await asyncio.gather(*heavy)) == [0, 1, 2, 3, 4]
        assert pool.running("ana") == 0
    finally:
        gate.open.set()
        pool.shutdown()


async def test_too_many_waiting_is_rate_limited() -> None:
    pool = QueryPool(max_workers=4, per_owner=1)
    gate = Gate()
    try:
        allowed = 1 + WAITING_PER_SLOT
        tasks = [asyncio.create_task(pool.run("ana", gate.work, i)) for i in range(allowed)]
        await _until(lambda: gate.inside == 1, "the first query starts")
        await asyncio.sleep(0)
        with pytest.raises(DataAgentError) as caught:
            await pool.run("ana", gate.work, 99)
        assert caught.value.code is ErrorCode.RATE_LIMITED
        assert "1 queries running" in caught.value.message
        gate.open.set()
        assert len(await asyncio.gather(*tasks)) == allowed
    finally:
        gate.open.set()
        pool.shutdown()


async def test_a_caller_that_gives_up_keeps_the_slot_until_the_work_ends() -> None:
    pool = QueryPool(max_workers=4, per_owner=1)
    gate = Gate()
    try:
        first = asyncio.create_task(pool.run("ana", gate.work, 1))
        await _until(lambda: gate.inside == 1, "the query starts")
        first.cancel()  # a client that disconnects
        with pytest.raises(asyncio.CancelledError):
            await first
        assert pool.running("ana") == 1  # its query still runs on the database
        second = asyncio.create_task(pool.run("ana", lambda: "next"))
        await asyncio.sleep(0.05)
        assert not second.done()
        gate.open.set()
        assert await asyncio.wait_for(second, 10) == "next"
        assert pool.running("ana") == 0
    finally:
        gate.open.set()
        pool.shutdown()


async def test_a_waiter_that_gives_up_frees_its_place() -> None:
    pool = QueryPool(max_workers=2, per_owner=1)
    gate = Gate()
    try:
        running = asyncio.create_task(pool.run("ana", gate.work, 1))
        await _until(lambda: gate.inside == 1, "the query starts")
        waiting = asyncio.create_task(pool.run("ana", gate.work, 2))
        await asyncio.sleep(0.01)
        waiting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiting
        gate.open.set()
        assert await running == 1
        assert await pool.run("ana", lambda: 3) == 3
        assert pool.running("ana") == 0
    finally:
        gate.open.set()
        pool.shutdown()


async def test_errors_come_back_and_free_the_slot() -> None:
    pool = QueryPool(max_workers=1, per_owner=1)

    def boom() -> None:
        raise DataAgentError(ErrorCode.QUERY_FAILED, "The query failed: nope")

    try:
        with pytest.raises(DataAgentError, match="nope"):
            await pool.run("ana", boom)
        assert pool.running("ana") == 0
        assert await pool.run("ana", lambda: "ok") == "ok"
    finally:
        pool.shutdown()
