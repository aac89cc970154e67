"""The sign-in limiter on its own: sliding windows, waits, clearing, memory, threads."""

from __future__ import annotations

import ipaddress
import threading

import pytest

from dataagent.auth.login_limits import LoginLimiter, SlidingWindow, client_address
from dataagent.errors import DataAgentError, ErrorCode


class FakeClock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _refusal(limiter: LoginLimiter, email: str, address: str = "10.0.0.1") -> DataAgentError:
    with pytest.raises(DataAgentError) as refused:
        limiter.begin(email, address)
    assert refused.value.code is ErrorCode.RATE_LIMITED
    return refused.value


def test_window_slides_one_event_at_a_time() -> None:
    clock = FakeClock()
    window = SlidingWindow(limit=2, window_s=10, clock=clock)
    window.add("k")
    clock.now = 4
    window.add("k")
    clock.now = 6
    assert window.wait_s("k") == 4  # the event at 0 leaves at 10
    clock.now = 10
    assert window.wait_s("k") == 0
    window.add("k")
    assert window.wait_s("k") == 4  # now the event at 4 must leave, at 14
    assert window.wait_s("other") == 0


def test_failures_per_account_and_address_then_the_window_passes() -> None:
    clock = FakeClock()
    limiter = LoginLimiter(max_failures=2, max_attempts_per_address=100, window_s=60, clock=clock)
    limiter.begin("ana@example.com", "10.0.0.1")
    limiter.begin(" ANA@example.com", "10.0.0.1")  # case and spaces make no new account
    clock.now = 30
    refused = _refusal(limiter, "ana@example.com", "10.0.0.1")
    assert refused.retry_after_s == 30
    assert refused.message == (
        "Too many failed sign-ins for this email address; try again in 30 seconds."
    )
    limiter.begin("bob@example.com", "10.0.0.1")  # another account is not affected
    # The owner, from another address, is not locked out by the guesses from 10.0.0.1.
    limiter.begin("ana@example.com", "10.0.0.2")
    limiter.succeeded("ana@example.com", "10.0.0.2")
    _refusal(limiter, "ana@example.com", "10.0.0.1")  # and those guesses stay counted there
    clock.now = 60
    limiter.begin("ana@example.com", "10.0.0.1")


def test_success_clears_the_account() -> None:
    limiter = LoginLimiter(max_failures=2, max_attempts_per_address=100, window_s=60)
    limiter.begin("ana@example.com", "10.0.0.1")
    limiter.begin("ana@example.com", "10.0.0.1")
    limiter.succeeded("Ana@Example.com", "10.0.0.1")
    limiter.begin("ana@example.com", "10.0.0.1")


def test_attempts_per_address_and_refusals_do_not_count() -> None:
    clock = FakeClock()
    limiter = LoginLimiter(max_failures=100, max_attempts_per_address=3, window_s=300, clock=clock)
    for n in range(3):
        limiter.begin(f"user{n}@example.com", "10.0.0.1")
    for _ in range(5):
        refused = _refusal(limiter, "user9@example.com")
        assert refused.retry_after_s == 300
        assert refused.message == (
            "Too many sign-in attempts from this address; try again in 5 minutes."
        )
    limiter.begin("user9@example.com", "10.0.0.2")
    clock.now = 300
    limiter.begin("user9@example.com", "10.0.0.1")


def test_waits_are_whole_seconds_of_at_least_one() -> None:
    clock = FakeClock()
    limiter = LoginLimiter(max_failures=1, max_attempts_per_address=100, window_s=60, clock=clock)
    limiter.begin("ana@example.com", "10.0.0.1")
    clock.now = 59.2
    refused = _refusal(limiter, "ana@example.com")
    assert refused.retry_after_s == 1
    assert refused.message.endswith("try again in 1 second.")


def test_stale_keys_are_swept() -> None:
    clock = FakeClock()
    window = SlidingWindow(limit=5, window_s=10, clock=clock)
    for n in range(1000):
        window.add(f"guess{n}@example.com")
    clock.now = 25
    window.add("fresh@example.com")
    assert len(window) == 1
    assert window.wait_s("fresh@example.com") == 0


def test_threads_cannot_slip_past_the_limit() -> None:
    limiter = LoginLimiter(max_failures=5, max_attempts_per_address=1000, window_s=60)
    admitted: list[int] = []
    start = threading.Barrier(16)

    def guess() -> None:
        start.wait()
        for _ in range(20):
            try:
                limiter.begin("ana@example.com", "10.0.0.1")
            except DataAgentError:
                continue
            admitted.append(1)

    threads = [threading.Thread(target=guess) for _ in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(admitted) == 5


PROXIES = [ipaddress.ip_network("10.0.0.0/8"), ipaddress.ip_network("2001:db8::1")]


@pytest.mark.parametrize(
    ("peer", "forwarded_for", "expected"),
    [
        ("203.0.113.7", None, "203.0.113.7"),  # no proxy
        ("203.0.113.7", "198.51.100.9", "203.0.113.7"),  # a client's own header: ignored
        ("10.1.2.3", None, "10.1.2.3"),  # a trusted proxy that names no one
        ("10.1.2.3", "198.51.100.9", "198.51.100.9"),  # a trusted proxy's client
        ("10.1.2.3", "1.1.1.1, 198.51.100.9", "198.51.100.9"),  # 1.1.1.1: the client's lie
        ("10.1.2.3", "198.51.100.9, 10.9.9.9", "198.51.100.9"),  # two proxies
        ("2001:db8::1", "198.51.100.9", "198.51.100.9"),
        ("10.1.2.3", "10.4.4.4, 10.5.5.5", "10.4.4.4"),  # every hop trusted: the first
        ("10.1.2.3", " , ", "10.1.2.3"),
        (None, None, "unknown"),
    ],
)
def test_the_client_address_believes_trusted_proxies_only(
    peer: str | None, forwarded_for: str | None, expected: str
) -> None:
    assert client_address(peer, forwarded_for, PROXIES) == expected
    if peer is not None:
        assert client_address(peer, forwarded_for, []) == peer  # none trusted by default


def test_trusted_proxies_are_read_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    from pydantic import ValidationError

    from dataagent.config import Settings

    monkeypatch.setenv("DATAAGENT_TRUSTED_PROXIES", "10.0.0.0/8, 127.0.0.1,2001:db8::/32")
    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    assert [str(n) for n in settings.trusted_proxies] == [
        "10.0.0.0/8",
        "127.0.0.1/32",
        "2001:db8::/32",
    ]
    monkeypatch.setenv("DATAAGENT_TRUSTED_PROXIES", "proxy.example.com")
    with pytest.raises(ValidationError):
        Settings(_env_file=None)  # type: ignore[call-arg]
    monkeypatch.delenv("DATAAGENT_TRUSTED_PROXIES")
    assert Settings(_env_file=None).trusted_proxies == []  # type: ignore[call-arg]
