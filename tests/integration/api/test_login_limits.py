"""Sign-in limits: failures per account and attempts per client address, with a clear 429."""

from __future__ import annotations

import ipaddress
import threading

import httpx
import pytest
from fastapi import FastAPI
from tests.integration.api.conftest import PASSWORD, World

from dataagent.config import Settings

MAX_FAILURES = 3
MAX_PER_ADDRESS = 8
WINDOW_S = 60


@pytest.fixture
def settings(settings: Settings) -> Settings:
    """Small limits, so a test reaches them in a few attempts."""
    return settings.model_copy(
        update={
            "login_max_failures": MAX_FAILURES,
            "login_max_attempts_per_address": MAX_PER_ADDRESS,
            "login_window_s": WINDOW_S,
        }
    )


class FakeClock:
    """A monotonic clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(world: World, settings: Settings) -> FakeClock:
    """Replace the app's limiter with one on a hand-moved clock."""
    from dataagent.auth.login_limits import LoginLimiter

    fake = FakeClock()
    world.context.login_limiter = LoginLimiter.from_settings(settings, clock=fake)
    return fake


def _from(app: FastAPI, address: str) -> httpx.AsyncClient:
    transport = httpx.ASGITransport(app=app, client=(address, 50000))
    return httpx.AsyncClient(transport=transport, base_url="http://test")


async def _login(client: httpx.AsyncClient, email: str, password: str) -> httpx.Response:
    return await client.post("/api/auth/login", json={"email": email, "password": password})


def _assert_rate_limited(response: httpx.Response, retry_after: int | None = None) -> None:
    assert response.status_code == 429, response.text
    error = response.json()["error"]
    assert error["code"] == "RATE_LIMITED"
    assert "try again in" in error["message"]
    assert int(response.headers["retry-after"]) >= 1
    if retry_after is not None:
        assert int(response.headers["retry-after"]) == retry_after


async def test_account_is_limited_after_failures_even_with_the_right_password(
    world: World, clock: FakeClock
) -> None:
    # Case and spaces do not make a new account to guess against.
    for email in ("viewer@example.com", "VIEWER@example.com", " Viewer@Example.com"):
        assert (await _login(world.anon, email, "wrong-guess")).status_code == 401
        clock.now += 1

    limited = await _login(world.anon, "viewer@example.com", PASSWORD)
    # The first failure leaves the window 60 s after it was made, 3 s ago.
    _assert_rate_limited(limited, retry_after=WINDOW_S - 3)
    assert limited.json()["error"]["message"] == (
        "Too many failed sign-ins for this email address; try again in 57 seconds."
    )

    # Other accounts are not affected.
    assert (await _login(world.anon, "contributor@example.com", PASSWORD)).status_code == 200

    clock.now += WINDOW_S - 3
    assert (await _login(world.anon, "viewer@example.com", PASSWORD)).status_code == 200


async def test_a_successful_sign_in_clears_the_account_failures(
    world: World, clock: FakeClock
) -> None:
    for _ in range(MAX_FAILURES - 1):
        assert (await _login(world.anon, "viewer@example.com", "wrong-guess")).status_code == 401
    assert (await _login(world.anon, "viewer@example.com", PASSWORD)).status_code == 200
    for _ in range(MAX_FAILURES - 1):
        assert (await _login(world.anon, "viewer@example.com", "wrong-guess")).status_code == 401
    assert (await _login(world.anon, "viewer@example.com", PASSWORD)).status_code == 200


async def test_unknown_and_known_emails_are_limited_alike(world: World, clock: FakeClock) -> None:
    answers: dict[str, list[tuple[int, dict, str | None]]] = {}
    for email in ("admin@example.com", "ghost@example.com"):
        answers[email] = []
        for _ in range(MAX_FAILURES + 2):
            response = await _login(world.anon, email, "wrong-guess")
            answers[email].append(
                (response.status_code, response.json(), response.headers.get("retry-after"))
            )
    assert answers["admin@example.com"] == answers["ghost@example.com"]
    statuses = [status for status, _, _ in answers["ghost@example.com"]]
    assert statuses == [401] * MAX_FAILURES + [429, 429]


async def test_address_is_limited_across_accounts(world: World, clock: FakeClock) -> None:
    sprayer = _from(world.app, "203.0.113.7")
    other = _from(world.app, "198.51.100.2")
    async with sprayer, other:
        for n in range(MAX_PER_ADDRESS):
            response = await _login(sprayer, f"user{n}@example.com", "wrong-guess")
            assert response.status_code == 401
            clock.now += 1
        limited = await _login(sprayer, "viewer@example.com", PASSWORD)
        _assert_rate_limited(limited, retry_after=WINDOW_S - MAX_PER_ADDRESS)
        assert limited.json()["error"]["message"] == (
            "Too many sign-in attempts from this address; try again in 52 seconds."
        )
        # Refused attempts are not counted, so waiting as told is enough.
        assert (await _login(sprayer, "viewer@example.com", PASSWORD)).status_code == 429
        assert (await _login(other, "viewer@example.com", PASSWORD)).status_code == 200
        clock.now += WINDOW_S - MAX_PER_ADDRESS
        assert (await _login(sprayer, "viewer@example.com", PASSWORD)).status_code == 200


async def test_guesses_from_one_address_do_not_lock_the_owner_out(
    world: World, clock: FakeClock
) -> None:
    """Failures count per account and address: the attacker's address locks itself only."""
    attacker = _from(world.app, "203.0.113.66")
    owner = _from(world.app, "198.51.100.10")
    async with attacker, owner:
        for _ in range(MAX_FAILURES):
            assert (await _login(attacker, "admin@example.com", "guess")).status_code == 401
        _assert_rate_limited(await _login(attacker, "admin@example.com", PASSWORD))
        assert (await _login(owner, "admin@example.com", PASSWORD)).status_code == 200
        # The owner's success does not clear the attacker's count.
        _assert_rate_limited(await _login(attacker, "admin@example.com", PASSWORD))


def _via_proxy(app: FastAPI, proxy: str, forwarded_for: str) -> httpx.AsyncClient:
    transport = httpx.ASGITransport(app=app, client=(proxy, 50000))
    headers = {"X-Forwarded-For": forwarded_for}
    return httpx.AsyncClient(transport=transport, base_url="http://test", headers=headers)


async def test_a_trusted_proxy_names_the_client(world: World, clock: FakeClock) -> None:
    world.context.settings = world.context.settings.model_copy(
        update={"trusted_proxies": [ipaddress.ip_network("10.0.0.0/24")]}
    )
    # Two people behind the same proxy: one guessing, one signing in.
    attacker = _via_proxy(world.app, "10.0.0.5", "203.0.113.66")
    owner = _via_proxy(world.app, "10.0.0.5", "198.51.100.10")
    async with attacker, owner:
        for _ in range(MAX_FAILURES):
            assert (await _login(attacker, "admin@example.com", "guess")).status_code == 401
        _assert_rate_limited(await _login(attacker, "admin@example.com", PASSWORD))
        assert (await _login(owner, "admin@example.com", PASSWORD)).status_code == 200


async def test_an_untrusted_peer_cannot_choose_its_address(world: World, clock: FakeClock) -> None:
    """Without DATAAGENT_TRUSTED_PROXIES naming the peer, X-Forwarded-For is ignored: a new
    header each attempt does not make a new address."""
    for n in range(MAX_PER_ADDRESS):
        client = _via_proxy(world.app, "203.0.113.66", f"198.51.100.{n}")
        async with client:
            assert (await _login(client, f"user{n}@example.com", "guess")).status_code == 401
    last = _via_proxy(world.app, "203.0.113.66", "192.0.2.200")
    async with last:
        _assert_rate_limited(await _login(last, "viewer@example.com", PASSWORD))


async def test_limits_hold_without_a_hand_moved_clock(world: World) -> None:
    """The app's own limiter (real clock) refuses too, and says to wait about a minute."""
    for _ in range(MAX_FAILURES):
        assert (await _login(world.anon, "viewer@example.com", "wrong-guess")).status_code == 401
    limited = await _login(world.anon, "viewer@example.com", PASSWORD)
    _assert_rate_limited(limited)
    assert 1 <= int(limited.headers["retry-after"]) <= WINDOW_S


async def test_password_check_runs_off_the_event_loop(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    from dataagent.services import users

    real = users.verify_password
    threads: list[int] = []

    def recording(password: str, password_hash: str | None) -> bool:
        threads.append(threading.get_ident())
        return real(password, password_hash)

    monkeypatch.setattr(users, "verify_password", recording)
    assert (await _login(world.anon, "viewer@example.com", PASSWORD)).status_code == 200
    assert threads and threading.get_ident() not in threads
