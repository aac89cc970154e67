"""The query pool: work against users' databases on its own threads, fairly shared.

Queries, connection tests, introspection and dataset reads block a thread for as long as the
database takes. They run here, not on the event loop's default executor, so they cannot
starve the rest of the server; and each user may run only a few at once, so one user's slow
queries never make another user's query wait. A user's extra requests wait for that user's
own slots; when too many wait, the request is refused with RATE_LIMITED.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Hashable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

from dataagent.errors import rate_limited

T = TypeVar("T")

# How many requests of one user may wait for a slot, per slot; more are refused.
WAITING_PER_SLOT = 2


class QueryPool:
    """A bounded thread pool with a per-owner limit on work running at once."""

    def __init__(self, max_workers: int, per_owner: int) -> None:
        self.max_workers = max_workers
        self.per_owner = per_owner
        self._executor = ThreadPoolExecutor(max_workers, thread_name_prefix="dataagent-query")
        self._lock = threading.Lock()
        self._running: dict[Hashable, int] = {}
        self._waiting: dict[Hashable, list[asyncio.Future[None]]] = {}

    async def run(self, owner: Hashable, work: Callable[..., T], *args: Any) -> T:
        """Run `work(*args)` on the pool once `owner` has a free slot.

        The slot is held until the work itself ends, even if the caller stops waiting (a
        client that disconnects cannot start more work than its share).
        """
        await self._acquire(owner)
        try:
            future: Future[T] = self._executor.submit(work, *args)
        except BaseException:
            self._release(owner)
            raise
        loop = asyncio.get_running_loop()
        future.add_done_callback(lambda _: loop.call_soon_threadsafe(self._release, owner))
        return await asyncio.wrap_future(future)

    def running(self, owner: Hashable) -> int:
        """How many pieces of work `owner` has running now."""
        with self._lock:
            return self._running.get(owner, 0)

    def shutdown(self) -> None:
        """Stop taking work; running work finishes in its own time."""
        self._executor.shutdown(wait=False, cancel_futures=True)

    async def _acquire(self, owner: Hashable) -> None:
        with self._lock:
            if self._running.get(owner, 0) < self.per_owner:
                self._running[owner] = self._running.get(owner, 0) + 1
                return
            queue = self._waiting.setdefault(owner, [])
            if len(queue) >= self.per_owner * WAITING_PER_SLOT:
                raise rate_limited(
                    f"You already have {self.per_owner} queries running and "
                    f"{len(queue)} waiting; wait for one to finish before sending more."
                )
            turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            queue.append(turn)
        try:
            await turn  # a finishing query hands its slot over (see _release)
        except BaseException:
            with self._lock:
                if turn in queue:
                    queue.remove(turn)
                    return_slot = False
                else:
                    return_slot = turn.done() and not turn.cancelled()
            if return_slot:  # the slot was handed to us just as we gave up: pass it on
                self._release(owner)
            raise

    def _release(self, owner: Hashable) -> None:
        with self._lock:
            queue = self._waiting.get(owner, [])
            while queue:
                turn = queue.pop(0)
                if not turn.done():
                    turn.set_result(None)  # the slot moves to the next waiter
                    return
            self._waiting.pop(owner, None)
            left = self._running.get(owner, 0) - 1
            if left > 0:
                self._running[owner] = left
            else:
                self._running.pop(owner, None)
