"""What a share costs: the owner's latency against a grantee's on the same ontology.

`python -m dataagent serve` runs as its own process with no model provider, on what `make
demo` sets up (`demo.setup.seed_demo`: the admin and the demo retailer's curated ontology,
which the admin owns). Two contributors are made over the API: one the ontology is shared
with directly, one who reaches it as the member of a group it is shared with. Then, for
--rounds rounds after a warm-up round, each of four requests is made by the three callers in
turn, one request at a time, so load on the machine falls on all three alike (the order of
the callers turns by one each round, so none always comes first):

1. `POST /api/query {"ontologyId", "sql"}`: a small aggregate on the demo's orders;
2. `GET /api/ontologies` (the owner's list and the grantees' both hold the one ontology);
3. `GET /api/ontologies/{id}`;
4. `POST /api/chat` (seed 004's agent server, offline): one of two questions, by round.

For each path and caller: p50 and p90 of the wall time from request to response, and for
each path the ratio of a grantee's p50 to the owner's, which is what `store.shares.reach`'s
extra query (the shares of the ontology that reach the caller, directly or by group) costs.
The machine's load average is recorded with the figures. Figures, not tests.

    PYTHONPATH=src .venv/bin/python benchmarks/sharing_bench.py [--rounds 30] \
        [--database-url postgresql://...]

The app database is a SQLite file in a temporary directory; with --database-url a fresh
PostgreSQL database is created on that server and dropped afterwards. Prints a table and
writes benchmarks/results/sharing.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import agent_bench as bench  # noqa: E402
import offline_bench as offline  # noqa: E402
from agent_bench import Account  # noqa: E402
from dataagent.config import Settings  # noqa: E402
from dataagent.demo.setup import seed_demo  # noqa: E402

RESULTS = HERE / "results" / "sharing.json"
SRC = HERE.parent / "src"
CALLERS = ("owner", "direct", "group")
GRANTEES = ("direct", "group")
PATHS = ("query", "list", "get", "chat")
ROUTES = {
    "query": "POST /api/query",
    "list": "GET /api/ontologies",
    "get": "GET /api/ontologies/{id}",
    "chat": "POST /api/chat",
}
# A small aggregate on the demo data: orders by region (6 rows).
SQL = (
    "SELECT s.region, COUNT(*) AS orders FROM orders o "
    "JOIN stores s ON s.id = o.store_id GROUP BY s.region ORDER BY s.region"
)
CHAT_QUESTIONS = offline.QUESTIONS[:2]
Timed = tuple[bool, float]  # whether the request answered as it should, and its milliseconds


@dataclass(frozen=True)
class Sample:
    """One request: which path, by whom, whether it answered as it should, and its time."""

    path: str
    caller: str
    ok: bool
    ms: float


def callers_in_round(round_: int) -> tuple[str, ...]:
    """The three callers in this round's order: turned by one each round."""
    shift = round_ % len(CALLERS)
    return CALLERS[shift:] + CALLERS[:shift]


def ratio(grantee_ms: float | None, owner_ms: float | None) -> float | None:
    """A grantee's p50 over the owner's, or None when either is missing."""
    if grantee_ms is None or not owner_ms:
        return None
    return round(grantee_ms / owner_ms, 2)


def summarize(samples: Sequence[Sample]) -> dict[str, Any]:
    """Per path: each caller's answered count, p50 and p90 (of answered requests only), and
    each grantee's p50 as a ratio of the owner's and as milliseconds more."""
    summary: dict[str, Any] = {}
    for path in PATHS:
        of_path = [s for s in samples if s.path == path]
        if not of_path:
            continue
        callers: dict[str, Any] = {}
        for caller in CALLERS:
            mine = [s for s in of_path if s.caller == caller]
            times = [s.ms for s in mine if s.ok]
            callers[caller] = {
                "answered": f"{len(times)}/{len(mine)}",
                **(offline.spread(times) if times else {"p50_ms": None, "p90_ms": None}),
            }
        owner = callers["owner"]["p50_ms"]
        summary[path] = {
            "route": ROUTES[path],
            "callers": callers,
            "ratio_p50": {g: ratio(callers[g]["p50_ms"], owner) for g in GRANTEES},
            "extra_p50_ms": {
                g: None
                if callers[g]["p50_ms"] is None or owner is None
                else round(callers[g]["p50_ms"] - owner, 1)
                for g in GRANTEES
            },
        }
    return summary


# --- set-up over the API ----------------------------------------------------------------


def server_env(settings: Settings, url: str) -> dict[str, str]:
    """offline_bench's environment (no model at all), importing this checkout's `src` first,
    so the server runs the code being measured whatever package the interpreter has."""
    env = offline.server_env(settings, url)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(SRC), env.get("PYTHONPATH")]))
    return env


async def checked(response: Awaitable[httpx.Response]) -> dict[str, Any]:
    """The `data` of a 2xx answer; an error naming the request otherwise."""
    answered = await response
    if not answered.is_success:
        request = answered.request
        raise RuntimeError(
            f"{request.method} {request.url.path}: {answered.status_code} {answered.text[:300]}"
        )
    data: dict[str, Any] = answered.json()["data"]
    return data


async def contributor(
    client: httpx.AsyncClient, admin: Account, email: str, ontology_id: uuid.UUID
) -> Account:
    """A new contributor, made by the admin and signed in, pointed at the shared ontology."""
    body = {"email": email, "password": offline.PASSWORD, "role": "contributor"}
    await checked(client.post("/api/users", json=body, headers=admin.headers))
    signed_in = await checked(
        client.post("/api/auth/login", json={"email": email, "password": offline.PASSWORD})
    )
    headers = {"Authorization": f"Bearer {signed_in['accessToken']}"}
    return Account(uuid.UUID(signed_in["user"]["id"]), ontology_id, headers)


async def share_two_ways(client: httpx.AsyncClient, settings: Settings) -> dict[str, Account]:
    """The demo's admin (the owner), a direct grantee and a grantee through a group."""
    demo = await offline.demo_account(client, settings)
    ontology_id = uuid.UUID(str(demo.ontology_id))
    admin = Account(uuid.UUID(str(demo.user_id)), ontology_id, demo.headers)
    direct = await contributor(client, admin, "direct@sharing-bench.example", ontology_id)
    member = await contributor(client, admin, "member@sharing-bench.example", ontology_id)
    group = await checked(
        client.post("/api/groups", json={"name": "Sharing bench"}, headers=admin.headers)
    )
    await checked(
        client.put(
            f"/api/groups/{group['id']}/members",
            json={"userIds": [str(member.user_id)]},
            headers=admin.headers,
        )
    )
    shares = f"/api/ontologies/{ontology_id}/shares"
    for grantee in ({"userId": str(direct.user_id)}, {"groupId": group["id"]}):
        await checked(client.post(shares, json=grantee, headers=admin.headers))
    client.cookies.clear()  # each caller is its bearer token, never the last sign-in's cookie
    accounts = {"owner": admin, "direct": direct, "group": member}
    for caller, account in accounts.items():
        seen = await checked(client.get(f"/api/ontologies/{ontology_id}", headers=account.headers))
        expected = "owner" if caller == "owner" else "shared"
        if seen["access"] != expected:
            raise RuntimeError(f"{caller} reaches the ontology as {seen['access']!r}")
    return accounts


# --- the requests measured ---------------------------------------------------------------


async def timed(request: Awaitable[httpx.Response]) -> tuple[httpx.Response, float]:
    """The response and its wall time in milliseconds."""
    started = time.perf_counter()
    response = await request
    return response, (time.perf_counter() - started) * 1000


async def run_query(client: httpx.AsyncClient, account: Account, round_: int) -> Timed:
    body = {"ontologyId": str(account.ontology_id), "sql": SQL}
    response, ms = await timed(client.post("/api/query", json=body, headers=account.headers))
    return response.status_code == 200 and response.json()["data"]["rowCount"] > 0, ms


async def list_ontologies(client: httpx.AsyncClient, account: Account, round_: int) -> Timed:
    response, ms = await timed(client.get("/api/ontologies", headers=account.headers))
    listed = response.json()["data"] if response.status_code == 200 else []
    return any(o["id"] == str(account.ontology_id) for o in listed), ms


async def get_ontology(client: httpx.AsyncClient, account: Account, round_: int) -> Timed:
    url = f"/api/ontologies/{account.ontology_id}"
    response, ms = await timed(client.get(url, headers=account.headers))
    return response.status_code == 200, ms


async def agent_server_chat(client: httpx.AsyncClient, account: Account, round_: int) -> Timed:
    question = CHAT_QUESTIONS[round_ % len(CHAT_QUESTIONS)]
    chat = await offline.agent_server_chat(client, account, question)
    return chat["http"] == 200 and chat["status"] == "succeeded", float(chat["wall_ms"])


MEASURES: dict[str, Callable[[httpx.AsyncClient, Account, int], Awaitable[Timed]]] = {
    "query": run_query,
    "list": list_ontologies,
    "get": get_ontology,
    "chat": agent_server_chat,
}


async def measure(
    client: httpx.AsyncClient, accounts: dict[str, Account], rounds: int
) -> list[Sample]:
    """Every path by the three callers in turn, round after round; the first round warms
    the caches up and is not kept."""
    samples: list[Sample] = []
    for round_ in range(rounds + 1):
        for path in PATHS:
            for caller in callers_in_round(round_):
                ok, ms = await MEASURES[path](client, accounts[caller], round_)
                if round_:
                    samples.append(Sample(path, caller, ok, ms))
    return samples


async def main(rounds: int, database_url: str | None) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as scratch_dir:
        scratch = Path(scratch_dir)
        with bench.app_database(database_url, scratch, "sharing") as url:
            settings = Settings(
                data_dir=scratch / "data",
                file_roots=[scratch],
                database_url=url,
                secret_key=bench.SECRET,
                _env_file=None,
            )
            # What `make demo` sets up: the demo's DuckDB file and its curated ontology.
            await seed_demo(settings, offline.PASSWORD)
            async with (
                offline.server(server_env(settings, url), scratch) as base_url,
                httpx.AsyncClient(base_url=base_url, timeout=120) as client,
            ):
                accounts = await share_two_ways(client, settings)
                samples = await measure(client, accounts, rounds)
                load = [round(value, 2) for value in os.getloadavg()]
    return {
        "rounds": rounds,
        "app_database": "postgresql" if database_url else "sqlite",
        "machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0]},
        "load_average": load,
        "sql": SQL,
        "chat_questions": list(CHAT_QUESTIONS),
        "paths": summarize(samples),
    }


def report(figures: dict[str, Any]) -> str:
    """The figures as a table a person reads."""
    lines = [
        f"Shared ontologies on the demo, {figures['rounds']} rounds, "
        f"{figures['app_database']} app database, {figures['machine']['cpus']} CPUs "
        f"(load {figures['load_average']})",
        "",
        f"{'path':26} {'caller':7} {'answered':>9} {'p50 ms':>8} {'p90 ms':>8} {'/ owner':>8}",
    ]
    for path in figures["paths"].values():
        for caller, spread in path["callers"].items():
            ratio_ = path["ratio_p50"].get(caller)
            lines.append(
                f"{path['route']:26} {caller:7} {spread['answered']:>9} "
                f"{_ms(spread['p50_ms']):>8} {_ms(spread['p90_ms']):>8} "
                f"{'' if ratio_ is None else f'{ratio_:.2f}':>8}"
            )
    return "\n".join(lines)


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def parse_arguments(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--rounds", type=int, default=30, help="Rounds kept, after one warm-up round."
    )
    parser.add_argument(
        "--database-url", help="A PostgreSQL server for the app database (default: SQLite)."
    )
    arguments = parser.parse_args(argv)
    if arguments.rounds < 1:
        parser.error("--rounds must be at least 1")
    return arguments


if __name__ == "__main__":
    arguments = parse_arguments()
    result = asyncio.run(main(arguments.rounds, arguments.database_url))
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(report(result))
