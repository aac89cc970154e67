"""Schemathesis against a real `dataagent serve`: is the OpenAPI document the contract?

Starts the scripted OpenAI-compatible model (tests/fakes/openai_server.py), a real server on
a free port with a fresh data directory in a temporary folder, an admin made with the
command line and an ontology of theirs over a small SQLite database (built over the API, so
the chat and stateless-chat routes answer), then runs

    st run http://127.0.0.1:PORT/openapi.json --checks all --seed ... --max-examples ...

with scripts/schemathesis_hooks.py signing the requests in as that admin. Schemathesis is
not a dependency of the project: install it in a venv of its own and say where its `st` is:

    python3 -m venv /tmp/st-venv && /tmp/st-venv/bin/pip install 'schemathesis>=4,<5'
    .venv/bin/python scripts/schemathesis_run.py --st /tmp/st-venv/bin/st

Arguments after `--` go to `st run` as they are (`-- --include-path-regex /api/agent`).
The exit status is st's. Not part of `make test`: a full run takes minutes.
"""

from __future__ import annotations

import argparse
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
from tests.e2e.servers import (  # noqa: E402
    PASSWORD,
    Server,
    shop_database,
    start_ontology,
    until,
)
from tests.fakes.openai_server import (  # noqa: E402
    FakeOpenAIServer,
    Step,
    question_and_tool_results,
    tool,
)

ADMIN_EMAIL = "admin@example.com"
HOOKS = ROOT / "scripts" / "schemathesis_hooks.py"


def model_turn(body: dict[str, Any]) -> Step:
    """The scripted model: one query of the shop's orders per question, then an answer."""
    _question, results = question_and_tool_results(body)
    if not results and body.get("tools"):
        return Step(tool_calls=[tool("query_database", sql="SELECT COUNT(*) AS n FROM t0000_orders")])
    return Step(text="There is one order, from Ana in Oslo.")


def ready_ontology(server: Server) -> str:
    """The admin's ontology over a two-table SQLite database, built; its id."""
    database = shop_database(server.home / "shop.db", tables=2)
    with server.client(ADMIN_EMAIL) as client:
        ontology_id = start_ontology(client, database)

        def built() -> bool:
            status = client.get(f"/api/ontologies/{ontology_id}").json()["data"]["status"]
            if status == "failed":
                raise SystemExit("the ontology build failed:\n" + "".join(server.output))
            return bool(status == "ready")

        until(built, "the ontology is built", timeout_s=300)
    return ontology_id


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


def st_config(home: Path, ontology_id: str) -> Path:
    """st's configuration: the ready ontology's id drawn often where one is asked for, so
    the chat, stateless-chat and ontology routes get past 404 (random ids still come)."""
    config = home / "schemathesis.toml"
    config.write_text(
        f"""\
[dictionaries]
ontology = {{ values = ["{ontology_id}"] }}

[parameters]
"body.ontologyId" = {{ dictionary = "ontology", probability = 0.7 }}
"path.ontology_id" = {{ dictionary = "ontology", probability = 0.5 }}
"query.ontologyId" = {{ dictionary = "ontology", probability = 0.5 }}
"""
    )
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
        "--report",
        "junit,ndjson",
        "--report-dir",
        str(args.report_dir),
        *args.st_args,
    ]


def main() -> int:
    """Start the stack, run st against it, stop the stack; st's exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--st", default=shutil.which("st") or "st", help="schemathesis's `st`")
    parser.add_argument("--seed", type=int, default=22)
    parser.add_argument("--max-examples", type=int, default=30)
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
            ontology_id = ready_ontology(server)
            with httpx.Client(base_url=server.url) as client:
                client.get("/api/health").raise_for_status()
            env = {
                **os.environ,
                "SCHEMATHESIS_HOOKS": str(HOOKS),
                "DATAAGENT_ST_URL": server.url,
                "DATAAGENT_ST_EMAIL": ADMIN_EMAIL,
                "DATAAGENT_ST_PASSWORD": PASSWORD,
                "DATAAGENT_ST_MINT_ADMIN": str(mint_admin_script(server)),
                "DATAAGENT_ST_ONTOLOGY_ID": ontology_id,
            }
            command = st_command(args, server.url, st_config(home, ontology_id))
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
