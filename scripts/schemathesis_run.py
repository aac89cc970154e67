"""Schemathesis against a real `dataagent serve`: is the OpenAPI document the contract?

Starts the scripted OpenAI-compatible model (tests/fakes/openai_server.py), a real server on
a free port with a fresh data directory in a temporary folder and an admin made with the
command line; makes, over the API, one of everything the routes serve (an ontology over a
small SQLite database, so the chat and stateless-chat routes answer, a chat with an answered
question, a chart, a query record, a file dataset, a user, a group and shares of the
ontology; spares for the operations that delete or change them) and hands their ids to st
as dictionaries; then runs

    st --config-file <those ids> run http://127.0.0.1:PORT/openapi.json --checks all \
        --seed 22 --max-examples 40 --baseline scripts/schemathesis-baseline.json ...

with scripts/schemathesis_hooks.py signing the requests in as that admin. The baseline lists
the failures that are not (rules a schema cannot state, each with its reason). Schemathesis
is not a dependency of the project: install it in a venv of its own and say where its `st` is:

    python3 -m venv /tmp/st-venv && /tmp/st-venv/bin/pip install 'schemathesis>=4,<5'
    PYTHONPATH=src .venv/bin/python scripts/schemathesis_run.py --st /tmp/st-venv/bin/st

Arguments after `--` go to `st run` as they are (`-- --include-path-regex /api/agent`).
The exit status is st's. Not part of `make test`: a full run takes about five minutes.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src"), str(ROOT)]

import httpx  # noqa: E402
from tests.e2e.servers import PASSWORD, Server, shop_database, until  # noqa: E402
from tests.fakes.openai_server import (  # noqa: E402
    FakeOpenAIServer,
    Step,
    question_and_tool_results,
    tool,
)

ADMIN_EMAIL = "admin@example.com"
HOOKS = ROOT / "scripts" / "schemathesis_hooks.py"
# The failures that are not: rules a schema cannot state, each with its reason.
BASELINE = ROOT / "scripts" / "schemathesis-baseline.json"


def model_turn(body: dict[str, Any]) -> Step:
    """The scripted model: one query of the shop's orders per question (a chart when the
    question asks for one), then an answer."""
    question, results = question_and_tool_results(body)
    tools = {t.get("function", {}).get("name") for t in body.get("tools") or []}
    if results or not tools:
        return Step(text="There is one order, from Ana in Oslo.")
    if "chart" in question and "create_chart" in tools:
        data = [{"city": "Oslo", "amount": 9.5}, {"city": "Bergen", "amount": 4.0}]
        chart = tool(
            "create_chart", chart_type="bar", title="Orders", data=data, x="city", y=["amount"]
        )
        return Step(tool_calls=[chart])
    return Step(tool_calls=[tool("query_database", sql="SELECT COUNT(*) AS n FROM t0000_orders")])


def _data(response: httpx.Response, status: int = 200) -> Any:
    if response.status_code != status:
        raise SystemExit(f"{response.request.method} {response.request.url}: {response.text}")
    return response.json()["data"]


def _events(client: httpx.Client, method: str, url: str, **kwargs: Any) -> list[tuple[str, str]]:
    """An event stream read to its end: its (event, data) pairs."""
    events, name = [], "message"
    with client.stream(method, url, **kwargs) as response:
        if response.status_code != 200:
            raise SystemExit(f"{method} {url}: {response.read().decode()}")
        for line in response.iter_lines():
            if line.startswith("event: "):
                name = line[7:]
            elif line.startswith("data: "):
                events.append((name, line[6:]))
    return events


def _ontology(client: httpx.Client, server: Server, name: str) -> dict[str, str]:
    """Connection -> semantic model -> ontology over a small SQLite database, built."""
    database = shop_database(server.home / f"{name}.db", tables=2)
    body = {"name": name, "dialect": "sqlite", "database": str(database)}
    connection = _data(client.post("/api/connections", json=body), 201)
    body = {"connectionId": connection["id"], "name": name}
    model = _data(client.post("/api/semantic-models", json=body), 201)
    body = {"semanticModelId": model["id"], "name": name}
    ontology_id = client.post("/api/ontologies", json=body).json()["data"]["id"]

    def built() -> bool:
        status = _data(client.get(f"/api/ontologies/{ontology_id}"))["status"]
        if status == "failed":
            raise SystemExit("the ontology build failed:\n" + "".join(server.output))
        return bool(status == "ready")

    until(built, "the ontology is built", timeout_s=300)
    return {"connection_id": connection["id"], "model_id": model["id"], "ontology_id": ontology_id}


def _dataset(client: httpx.Client, name: str) -> str:
    csv = (f"{name}.csv", b"city,people\nOslo,700000\n", "text/csv")
    dataset_id: str = _data(
        client.post("/api/datasets", data={"name": name}, files={"files": csv}), 201
    )["id"]
    return dataset_id


def _user(client: httpx.Client, email: str) -> str:
    body = {"email": email, "password": PASSWORD, "role": "contributor"}
    user_id: str = _data(client.post("/api/users", json=body), 201)["id"]
    return user_id


def _group(client: httpx.Client, name: str, members: list[str]) -> str:
    group_id: str = _data(client.post("/api/groups", json={"name": name}), 201)["id"]
    _data(client.put(f"/api/groups/{group_id}/members", json={"userIds": members}))
    return group_id


def seed(server: Server) -> tuple[dict[str, str], dict[str, str]]:
    """One of each thing the API serves, made as the admin, so st gets past the 404s of
    made-up ids: ({path, query or body parameter name: an id}, the spare ids that deleting
    and changing operations get, so the others keep theirs for the whole run)."""
    with server.client(ADMIN_EMAIL) as client:
        client.timeout = httpx.Timeout(120)
        ids = _ontology(client, server, "shop")
        spare = _ontology(client, server, "spare")
        ontology_id = ids["ontology_id"]
        body = {"ontologyId": ontology_id}
        chat_id = _data(client.post("/api/data-agent/chats", json=body), 201)["id"]
        spare["chat_id"] = _data(client.post("/api/data-agent/chats", json=body), 201)["id"]
        question = {"content": "How many orders are there?"}
        url = f"/api/data-agent/chats/{chat_id}/messages"
        message_id = _data(client.post(url, json=question), 201)["assistantMessage"]["id"]
        _events(client, "POST", f"{url}/{message_id}/stream")
        conversation = [{"role": "user", "content": "A chart of orders by city"}]
        stateless = _events(
            client,
            "POST",
            "/api/agent/chat",
            json={"ontologyId": ontology_id, "messages": conversation},
        )
        charts = [json.loads(data)["id"] for event, data in stateless if event == "chart"]
        if not charts:
            raise SystemExit(f"the stateless chat made no chart: {stateless}")
        body = {"ontologyId": ontology_id, "sql": "SELECT * FROM t0000_orders"}
        run_id = _data(client.post("/api/query", json=body))["runId"]
        spare["dataset_id"] = _dataset(client, "spare_cities")
        spare["user_id"] = _user(client, "spare@example.com")
        ana = _user(client, "ana@example.com")
        group_id = _group(client, "analysts", [ana])
        spare["group_id"] = _group(client, "spare analysts", [])
        shares = f"/api/ontologies/{ontology_id}/shares"
        share_id = _data(client.post(shares, json={"groupId": group_id}), 201)["id"]
        spare["share_id"] = _data(client.post(shares, json={"userId": ana}), 201)["id"]
        ids |= {
            "connectionId": ids["connection_id"],
            "semanticModelId": ids["model_id"],
            "ontologyId": ontology_id,
            "chat_id": chat_id,
            "chatId": chat_id,
            "message_id": message_id,
            "chart_id": charts[0],
            "run_id": run_id,
            "dataset_id": _dataset(client, "cities"),
            "user_id": ana,
            "userId": ana,
            "group_id": group_id,
            "groupId": group_id,
            "share_id": share_id,
            "name": "t0000_orders",
        }
    return ids, spare


def mint_admin_script(server: Server) -> Path:
    """A shell script that makes another admin (`mint-admin.sh EMAIL`, the password on
    stdin), for the hooks to sign in as when the fuzzer has changed this admin's password."""
    env = " ".join(f"{name}={shlex.quote(value)}" for name, value in server.env().items())
    script = server.home / "mint-admin.sh"
    script.write_text(
        "#!/bin/sh\n"
        f"cd {shlex.quote(str(server.home))} && exec env -i {env} "
        f'{shlex.quote(sys.executable)} -m dataagent users create --email "$1" '
        "--role admin --password-stdin\n"
    )
    script.chmod(0o755)
    return script


# Operations that delete or change what the others need: they get the spare ids.
SPENDING = (
    "deleteConnection",
    "updateConnection",
    "deleteSemanticModel",
    "updateSemanticModel",
    "deleteOntology",
    "deleteChat",
    "deleteDataset",
    "deleteUser",
    "deleteGroup",
    "deleteOntologyShare",
)


def st_config(home: Path, ids: dict[str, str], spare: dict[str, str]) -> Path:
    """st's configuration: each seeded id drawn half the time for a parameter of its name
    (in the path, the query or a JSON body), so the routes get past 404 and made-up ids
    still come; the operations that spend what they are given draw the spare ids."""

    def binding(location: str, name: str, dictionary: str) -> str:
        return f'"{location}.{name}" = {{ dictionary = "{dictionary}", probability = 0.5 }}'

    lines = ["[dictionaries]"]
    lines += [f'{name} = {{ values = ["{value}"] }}' for name, value in ids.items()]
    lines += [f'spare_{name} = {{ values = ["{value}"] }}' for name, value in spare.items()]
    lines += ["", "[parameters]"]
    lines += [binding(at, name, name) for name in ids for at in ("path", "query", "body")]
    lines += ["", "[[operations]]", f"include-operation-id = {json.dumps(SPENDING)}"]
    lines += ["[operations.parameters]"]
    lines += [binding("path", name, f"spare_{name}") for name in spare]
    config = home / "schemathesis.toml"
    config.write_text("\n".join(lines) + "\n")
    return config


def st_command(args: argparse.Namespace, url: str, config: Path) -> list[str]:
    """The `st run` command line."""
    return [
        args.st,
        "--config-file",
        str(config),
        "run",
        f"{url}/openapi.json",
        "--checks",
        "all",
        "--seed",
        str(args.seed),
        "--max-examples",
        str(args.max_examples),
        "--workers",
        str(args.workers),
        "--request-timeout",
        "120",
        # Response time is no part of the contract; st's default budget (10 s) trips on a
        # machine whose cores are shared (a 400 took 11.6 s at a load average of 9).
        "--max-response-time",
        "30",
        "--report",
        "junit,ndjson",
        "--report-dir",
        str(args.report_dir),
        "--baseline",
        str(BASELINE),
        *args.st_args,
    ]


def main() -> int:
    """Start the stack, run st against it, stop the stack; st's exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--st", default=shutil.which("st") or "st", help="schemathesis's `st`")
    parser.add_argument("--seed", type=int, default=22)
    parser.add_argument("--max-examples", type=int, default=40)
    parser.add_argument("--workers", default="2")
    parser.add_argument(
        "--report-dir", type=Path, default=Path("schemathesis-report"), help="st's reports"
    )
    parser.add_argument("--keep", action="store_true", help="keep the data directory")
    parser.add_argument("st_args", nargs="*", help="more `st run` arguments (after --)")
    args = parser.parse_args()
    args.report_dir = args.report_dir.resolve()

    home = Path(tempfile.mkdtemp(prefix="dataagent-st-"))
    with FakeOpenAIServer(default=model_turn) as model:
        server = Server(
            home,
            {
                "OPENAI_API_KEY": "sk-scripted",
                "OPENAI_BASE_URL": model.url,
                "DATAAGENT_LLM_MAX_RETRIES": "0",
                # The fuzzer signs in with made-up accounts all run long; the hooks must
                # still be able to sign the admin in again.
                "DATAAGENT_LOGIN_MAX_ATTEMPTS_PER_ADDRESS": "1000000",
            },
        )
        server.create_user(ADMIN_EMAIL, role="admin")
        server.start()
        server.follow_output()
        try:
            ids, spare = seed(server)
            env = {
                **os.environ,
                "SCHEMATHESIS_HOOKS": str(HOOKS),
                "DATAAGENT_ST_URL": server.url,
                "DATAAGENT_ST_EMAIL": ADMIN_EMAIL,
                "DATAAGENT_ST_PASSWORD": PASSWORD,
                "DATAAGENT_ST_MINT_ADMIN": str(mint_admin_script(server)),
            }
            command = st_command(args, server.url, st_config(home, ids, spare))
            print("$", shlex.join(command), flush=True)
            status = subprocess.run(command, env=env, check=False).returncode
        finally:
            server.stop()
            (home / "server.log").write_text("".join(server.output))
            if args.keep:
                print(f"data directory and server log kept in {home}")
            else:
                shutil.rmtree(home, ignore_errors=True)
    return status


if __name__ == "__main__":
    raise SystemExit(main())
