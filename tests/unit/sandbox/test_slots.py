"""FairSlots: the sandbox's global and per-owner limits, and who goes next."""

from __future__ import annotations

import asyncio

import pytest

from dataagent.sandbox.slots import FairSlots


async def _settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


def _start(slots: FairSlots, owner: str, started: list[str], label: str) -> asyncio.Task[None]:
    async def take() -> None:
        await slots.acquire(owner)
        started.append(label)

    return asyncio.create_task(take())


async def test_one_owner_never_holds_more_than_their_share() -> None:
    slots = FairSlots(total=2, per_owner=1)
    started: list[str] = []
    tasks = [_start(slots, "a", started, f"a{n}") for n in range(3)]
    await _settle()
    assert started == ["a0"]  # a free slot stays free rather than go to a's second
    assert slots.running() == 1 and slots.waiting("a") == 2
    slots.release("a")
    await _settle()
    assert started == ["a0", "a1"]
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


async def test_another_owner_goes_past_a_queued_burst() -> None:
    slots = FairSlots(total=2, per_owner=1)
    started: list[str] = []
    burst = [_start(slots, "a", started, f"a{n}") for n in range(8)]
    await _settle()
    quick = _start(slots, "b", started, "b")
    await _settle()
    assert started == ["a0", "b"]  # b started while a's seven others were waiting
    assert slots.waiting("a") == 7 and slots.running() == 2
    await quick
    for task in burst:
        task.cancel()
    await asyncio.gather(*burst, return_exceptions=True)


async def test_eligible_waiters_go_first_come_first_served() -> None:
    slots = FairSlots(total=2, per_owner=2)
    started: list[str] = []
    holders = [_start(slots, "a", started, "a0"), _start(slots, "a", started, "a1")]
    await _settle()
    waiters = [_start(slots, owner, started, owner) for owner in ("c", "a", "b", "d")]
    await _settle()
    assert started == ["a0", "a1"]
    slots.release("a")
    await _settle()
    assert started[2:] == ["c"]
    slots.release("a")
    await _settle()
    assert started[2:] == ["c", "a"]  # a is below its limit again and was next in line
    slots.release("c")
    await _settle()
    assert started[2:] == ["c", "a", "b"]
    await asyncio.gather(*holders)
    for task in waiters:
        task.cancel()
    await asyncio.gather(*waiters, return_exceptions=True)


async def test_a_cancelled_waiter_gives_up_its_place() -> None:
    slots = FairSlots(total=1, per_owner=1)
    started: list[str] = []
    holder = _start(slots, "a", started, "a")
    await _settle()
    gone = _start(slots, "b", started, "b")
    after = _start(slots, "c", started, "c")
    await _settle()
    gone.cancel()
    await asyncio.gather(gone, return_exceptions=True)
    assert slots.waiting() == 1
    slots.release("a")
    await _settle()
    assert started == ["a", "c"] and slots.running("b") == 0
    await asyncio.gather(holder, after)


async def test_a_slot_granted_as_the_waiter_is_cancelled_is_passed_on() -> None:
    slots = FairSlots(total=1, per_owner=1)
    await slots.acquire("a")
    late: asyncio.Task[None] = asyncio.create_task(slots.acquire("b"))
    started: list[str] = []
    next_in_line = _start(slots, "c", started, "c")
    await _settle()
    slots.release("a")  # grants b's turn; b is cancelled before it can resume
    late.cancel()
    await asyncio.gather(late, return_exceptions=True)
    await _settle()
    assert started == ["c"] and slots.running("b") == 0 and slots.running() == 1
    await next_in_line


async def test_the_slot_is_released_when_the_body_raises() -> None:
    slots = FairSlots(total=1, per_owner=1)
    with pytest.raises(RuntimeError):
        async with slots.slot("a"):
            assert slots.running("a") == 1
            raise RuntimeError("the run failed")
    assert slots.running() == 0
    async with slots.slot("a"):
        assert slots.running("a") == 1


def test_limits_must_be_positive() -> None:
    with pytest.raises(ValueError):
        FairSlots(total=0, per_owner=1)
