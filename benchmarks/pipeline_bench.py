"""The pipeline's cost: model calls and prompt tokens per question, by complexity, and the
prompt tokens of the same question on the demo model and on a model of 1,000 more tables.

Seed 001's design makes six or more model calls per question (one per phase, more in the
navigator's ReAct loop and the verifier's generated checks). Ours asks the model only for
what code cannot do: a simple question the semantic model can express costs the planner and
the explainer. The model is a `ScriptedChatModel` that counts calls and estimates prompt
tokens (four characters a token); the database, compiler, executor, verifier and sandbox are
the real ones.

    .venv/bin/python benchmarks/pipeline_bench.py [--tables 1000]

Prints a table and writes benchmarks/results/pipeline.json.
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
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # for tests.fakes

from tests.fakes.scripted_model import Reply, ScriptedChatModel  # noqa: E402

from dataagent.agent.pipeline.answer import answer_message  # noqa: E402
from dataagent.agent.react import AnswerRequest  # noqa: E402
from dataagent.config import Settings  # noqa: E402
from dataagent.demo.generator import generate  # noqa: E402
from dataagent.demo.loaders import write_duckdb  # noqa: E402
from dataagent.demo.semantic_model import curated_model_yaml  # noqa: E402
from dataagent.llm.calls import ChatClient, ModelInfo  # noqa: E402
from dataagent.runs.system import RunSystem  # noqa: E402
from dataagent.semantic.yaml_io import dump_yaml, load_yaml  # noqa: E402
from dataagent.services import chats, connections, ontologies, semantic_models, users  # noqa: E402
from dataagent.services.context import AppContext  # noqa: E402
from dataagent.store.migrations import upgrade  # noqa: E402
from dataagent.store.models import AgentRun  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results" / "pipeline.json"
SEED_001_CALLS = 6


async def _noop(event: str, data: dict[str, Any]) -> None:
    if event == "tool_error":
        print("  tool_error:", str(data)[:400])


def extra_tables(path: Path, count: int) -> None:
    """`count` more tables in the demo file, each with a few columns and a link to another."""
    with duckdb.connect(str(path)) as db:
        for i in range(count):
            parent = f", ref_{i - 1}_id INTEGER" if i else ""
            db.execute(
                f"CREATE TABLE ledger_item_{i} (id INTEGER PRIMARY KEY, label VARCHAR, "
                f"status VARCHAR, amount DECIMAL(12,2), booked_at TIMESTAMP{parent})"
            )


@dataclass
class Demo:
    """A ready ontology over the demo file (and its extra tables), and its owner."""

    context: AppContext
    owner_id: uuid.UUID
    ontology_id: uuid.UUID


async def build(context: AppContext, path: Path, name: str) -> Demo:
    """Connection → generated model, the curated datasets laid over it → ontology."""
    async with context.database.session() as session:
        owner = await users.create_user(session, f"{name}@example.com", "a-long-password", "admin")
        connection = await connections.create_connection(
            context, session, owner.id, name, {"dialect": "duckdb", "database": str(path)}
        )
        model = await semantic_models.create_from_connection(
            context, session, owner.id, connection.id, name, None
        )
        generated = load_yaml(model.yaml)
        curated = load_yaml(curated_model_yaml())
        known = {d.name for d in curated.datasets}
        merged = curated.model_copy(
            update={
                "datasets": [
                    *curated.datasets,
                    *(d for d in generated.datasets if d.name not in known),
                ],
                "relationships": [
                    *curated.relationships,
                    *(
                        r
                        for r in generated.relationships
                        if r.from_dataset not in known and r.to_dataset not in known
                    ),
                ],
            }
        )
        await semantic_models.update_semantic_model(
            session, owner.id, model.id, None, None, dump_yaml(merged)
        )
        ontology = await ontologies.create_ontology(
            context, session, owner.id, model.id, name, None
        )
        await ontologies.wait_for_build(context, ontology.id)
        return Demo(context, owner.id, ontology.id)


async def ask(demo: Demo, question: str, script: list[Reply]) -> dict[str, Any]:
    """One answer with the scripted model: its calls, prompt tokens by phase, its time."""
    context = demo.context
    async with context.database.session() as session:
        chat = await chats.create_chat(context, session, demo.owner_id, "Bench", demo.ontology_id)
        _, reply = await chats.send_message(context, session, demo.owner_id, chat.id, question)
        run = AgentRun(
            kind="chat_message",
            owner_id=demo.owner_id,
            chat_id=chat.id,
            message_id=reply.id,
            status="running",
        )
        session.add(run)
        await session.commit()
        conversation = await chats.load_conversation(
            context, session, demo.owner_id, chat.id, reply.id
        )
    model = ScriptedChatModel(script=script)
    client = ChatClient(model, ModelInfo("openai", "scripted"), max_retries=0)
    started = time.perf_counter()
    try:
        answer = await answer_message(
            context, AnswerRequest(demo.owner_id, conversation, run.id), _noop, client
        )
    except Exception:
        for made in client.calls:
            print("  call:", made.phase, made.purpose, (made.response_content or "")[:300])
        raise
    by_phase: dict[str, int] = {}
    for call in client.calls:
        by_phase[call.phase] = by_phase.get(call.phase, 0) + call.usage.prompt
    return {
        "calls": len(client.calls),
        "promptTokens": client.usage.prompt,
        "promptTokensByPhase": by_phase,
        "seconds": round(time.perf_counter() - started, 3),
        "status": answer.status,
        "verified": (answer.metadata.get("verificationReport") or {}).get("passed"),
    }


Questions = dict[str, tuple[str, Callable[[], list[Reply]]]]


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=1000)
    args = parser.parse_args()
    from benchmarks.pipeline_scripts import QUESTIONS  # the scripted answers, by complexity

    results: dict[str, Any] = {"seed001CallsPerQuestion": SEED_001_CALLS}
    with tempfile.TemporaryDirectory() as tmp_dir:
        tmp = Path(tmp_dir)
        settings = Settings(
            _env_file=None,  # type: ignore[call-arg]
            data_dir=tmp / "data",
            file_roots=[tmp],
            database_url=f"sqlite:///{tmp / 'app.db'}",
            secret_key="bench-secret-key-that-is-long-enough-for-hs256",
            # A provider must be configured for a question to be taken; the answers come
            # from the scripted model handed to the pipeline.
            openai_api_key="sk-bench-scripted",
            query_memory_mb=int(os.environ.get("BENCH_QUERY_MEMORY_MB", "1536")),
        )
        upgrade(settings.database_url)
        small, large = tmp / "demo.duckdb", tmp / "large.duckdb"
        write_duckdb(generate(), small)
        write_duckdb(generate(), large)
        extra_tables(large, args.tables)
        async with RunSystem.in_process(settings) as system:
            context = system.app
            demo = await build(context, small, "demo")
            started = time.perf_counter()
            wide = await build(context, large, "wide")
            results["wideBuildSeconds"] = round(time.perf_counter() - started, 1)
            by_kind: dict[str, Any] = {}
            for kind, (question, script) in QUESTIONS.items():
                by_kind[kind] = {"question": question, **await ask(demo, question, script())}
            results["byComplexity"] = by_kind
            question, script = QUESTIONS["simple"]
            on_wide = await ask(wide, question, script())
            results["simpleOnWideModel"] = on_wide
            results["wideToDemoPromptRatio"] = round(
                on_wide["promptTokens"] / by_kind["simple"]["promptTokens"], 3
            )
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=2) + "\n")
    print(f"{'complexity':<16}{'calls':>6}{'prompt tokens':>15}  (seed 001: >= {SEED_001_CALLS})")
    for kind, row in results["byComplexity"].items():
        print(f"{kind:<16}{row['calls']:>6}{row['promptTokens']:>15}")
    print(
        f"simple question, demo + {args.tables} tables: {on_wide['promptTokens']} prompt tokens, "
        f"{results['wideToDemoPromptRatio']}x the demo model's"
    )


if __name__ == "__main__":
    asyncio.run(main())
