"""Fair shares of the sandbox: at most N executions at once, and at most M of one owner's.

One person's burst (a model turn asking for eight runs at once) must not make everybody
else wait behind it. Executions wait in one first-come line, but a free slot goes to the
first waiter whose owner is below their own limit: an owner at their limit keeps their
place and lets the others past. Owners are opaque strings (the app passes the person's id);
`LocalSandbox` counts executions without one as one anonymous owner.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager


class FairSlots:
    """A global cap on executions at once, and a per-owner cap within it."""

    def __init__(self, total: int, per_owner: int) -> None:
        if total < 1 or per_owner < 1:
            raise ValueError("both limits must be at least 1")
        self.total = total
        self.per_owner = per_owner
        self._running: dict[str, int] = {}
        self._waiting: list[tuple[str, asyncio.Future[None]]] = []

    @asynccontextmanager
    async def slot(self, owner: str) -> AsyncIterator[None]:
        """Hold one of `owner`'s slots for the body of the `async with`."""
        await self.acquire(owner)
        try:
            yield
        finally:
            self.release(owner)

    def running(self, owner: str | None = None) -> int:
        """Executions running now: `owner`'s, or everybody's."""
        if owner is None:
            return sum(self._running.values())
        return self._running.get(owner, 0)

    def waiting(self, owner: str | None = None) -> int:
        """Executions waiting now: `owner`'s, or everybody's."""
        return sum(
            1 for who, turn in self._waiting if not turn.done() and (owner is None or who == owner)
        )

    async def acquire(self, owner: str) -> None:
        """Wait for a slot: a free one, with `owner` below their own limit, in line order."""
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiting.append((owner, turn))
        self._dispatch()
        try:
            await turn
        except BaseException:
            if not turn.cancelled() and turn.done():
                self.release(owner)  # granted just as the caller gave up: pass it on
            else:
                self._forget(turn)
            raise

    def release(self, owner: str) -> None:
        """Give back one of `owner`'s slots and hand free slots to the next eligible waiters."""
        left = self._running.get(owner, 0) - 1
        if left > 0:
            self._running[owner] = left
        else:
            self._running.pop(owner, None)
        self._dispatch()

    def _dispatch(self) -> None:
        self._waiting = [(who, turn) for who, turn in self._waiting if not turn.done()]
        index = 0
        while index < len(self._waiting) and self.running() < self.total:
            owner, turn = self._waiting[index]
            if self._running.get(owner, 0) >= self.per_owner:
                index += 1  # keeps its place; someone else's turn
                continue
            del self._waiting[index]
            self._running[owner] = self._running.get(owner, 0) + 1
            turn.set_result(None)

    def _forget(self, turn: asyncio.Future[None]) -> None:
        self._waiting = [(who, waiting) for who, waiting in self._waiting if waiting is not turn]
        self._dispatch()
