"""Sign-in limits: failed attempts per account from one client address, and attempts per client
address, per window; and which address a request comes from (behind trusted proxies)."""

from __future__ import annotations

import ipaddress
import math
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from ipaddress import IPv4Network, IPv6Network

from dataagent.config import Settings
from dataagent.errors import DataAgentError, rate_limited

Clock = Callable[[], float]


class SlidingWindow:
    """Event times per key over the last `window_s` seconds. Not locked: its owner locks."""

    def __init__(self, limit: int, window_s: float, clock: Clock) -> None:
        self.limit = limit
        self.window_s = window_s
        self._clock = clock
        self._events: dict[str, deque[float]] = {}
        self._next_sweep = clock() + window_s

    def __len__(self) -> int:
        """How many keys are held in memory."""
        return len(self._events)

    def wait_s(self, key: str) -> float:
        """Seconds until `key` may have one more event; 0 when it may now."""
        now = self._clock()
        events = self._prune(key, now)
        if len(events) < self.limit:
            return 0.0
        # The oldest event that must leave for the count to drop below the limit.
        return events[len(events) - self.limit] + self.window_s - now

    def add(self, key: str) -> None:
        """Count one event for `key` now."""
        now = self._clock()
        self._events.setdefault(key, deque()).append(now)
        self._sweep(now)

    def clear(self, key: str) -> None:
        """Forget every event of `key`."""
        self._events.pop(key, None)

    def _prune(self, key: str, now: float) -> deque[float]:
        events = self._events.get(key)
        if events is None:
            return deque()
        while events and events[0] <= now - self.window_s:
            events.popleft()
        return events

    def _sweep(self, now: float) -> None:
        # Once per window, drop keys with no recent events, so memory follows the attempts
        # of the last window rather than every email ever tried.
        if now < self._next_sweep:
            return
        self._next_sweep = now + self.window_s
        stale = [key for key in self._events if not self._prune(key, now)]
        for key in stale:
            del self._events[key]


class LoginLimiter:
    """The sign-in limits of one app, in process; safe to share between threads and tasks."""

    def __init__(
        self,
        max_failures: int,
        max_attempts_per_address: int,
        window_s: float,
        clock: Clock = time.monotonic,
    ) -> None:
        self._lock = threading.Lock()
        self._failures = SlidingWindow(max_failures, window_s, clock)
        self._attempts = SlidingWindow(max_attempts_per_address, window_s, clock)

    @classmethod
    def from_settings(cls, settings: Settings, clock: Clock = time.monotonic) -> LoginLimiter:
        """A limiter with the `login_*` settings."""
        return cls(
            settings.login_max_failures,
            settings.login_max_attempts_per_address,
            settings.login_window_s,
            clock,
        )

    def begin(self, email: str, address: str) -> None:
        """Admit one sign-in attempt, or refuse it with RATE_LIMITED and a wait.

        An admitted attempt counts for the address and, until `succeeded`, as a failure
        for the account from that address: counting before the password is checked keeps
        parallel guesses within the limit. Failures count per (account, address), so
        someone guessing from one address locks out that address only, never the owner
        signing in from another. A refused attempt counts for neither, so waiting the
        time the error names is always enough.
        """
        account = _failure_key(email, address)
        with self._lock:
            address_wait = self._attempts.wait_s(address)
            if address_wait > 0:
                raise _refusal("Too many sign-in attempts from this address", address_wait)
            account_wait = self._failures.wait_s(account)
            if account_wait > 0:
                # Unknown emails are counted the same way, so this does not reveal accounts.
                raise _refusal("Too many failed sign-ins for this email address", account_wait)
            self._attempts.add(address)
            self._failures.add(account)

    def succeeded(self, email: str, address: str) -> None:
        """A correct sign-in: forget the account's failures from that address."""
        with self._lock:
            self._failures.clear(_failure_key(email, address))


def _failure_key(email: str, address: str) -> str:
    # The same canonical form the user look-up uses, so case and spaces make no new account.
    return f"{email.strip().lower()}\n{address}"


Network = IPv4Network | IPv6Network


def client_address(
    peer: str | None, forwarded_for: str | None, trusted_proxies: Sequence[Network]
) -> str:
    """The address a request comes from: the socket's peer, unless the peer is a trusted
    proxy; then the nearest address in `X-Forwarded-For` (read from the right, the end the
    proxies append to) that is not a trusted proxy itself.

    A client's own `X-Forwarded-For` is never believed: only a trusted proxy's, and only
    the part the trusted proxies wrote.
    """
    if peer is None:
        return "unknown"
    if not forwarded_for or not _is_trusted(peer, trusted_proxies):
        return peer
    hops = [hop.strip() for hop in forwarded_for.split(",") if hop.strip()]
    for hop in reversed(hops):
        if not _is_trusted(hop, trusted_proxies):
            return hop
    return hops[0] if hops else peer


def _is_trusted(address: str, trusted_proxies: Sequence[Network]) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in network for network in trusted_proxies)


def _refusal(reason: str, wait_s: float) -> DataAgentError:
    seconds = max(1, math.ceil(wait_s))
    return rate_limited(f"{reason}; try again in {_duration(seconds)}.", retry_after_s=seconds)


def _duration(seconds: int) -> str:
    if seconds < 120:
        return f"{seconds} second{'s' if seconds != 1 else ''}"
    return f"{math.ceil(seconds / 60)} minutes"
