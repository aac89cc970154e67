"""docs/events.md documents every event type the product streams, and nothing else."""

from __future__ import annotations

import re
from pathlib import Path

from dataagent.agent.events import RUN_EVENTS, STATELESS_EVENTS

ROOT = Path(__file__).resolve().parents[3]
DOCS = ROOT / "docs" / "events.md"
SOURCE = ROOT / "src" / "dataagent"
# `emit("x"`, `self.emit("x"`, `run.emit(\n "x"`, and a run's last, `run.end("x"`: every
# literal event type in the code.
EMITTED = re.compile(r"""\b(?:emit|end)\(\s*["']([a-z_]+)["']""")
# `return "build_error", {...}`: the terminal events a failing run hands back.
RETURNED = re.compile(r"""return\s+["']((?:message|build)_[a-z_]+)["'],""")
# `add_first_event(session, run.id, "message_start", ...)`: the event stored with a claim.
FIRST = re.compile(r"""add_first_event\([^"']*["']([a-z_]+)["']""")


def _documented() -> set[str]:
    return set(re.findall(r"^### ([a-z_]+)$", DOCS.read_text(), flags=re.MULTILINE))


def _emitted() -> set[str]:
    found: set[str] = set()
    for path in SOURCE.rglob("*.py"):
        text = path.read_text()
        found |= set(EMITTED.findall(text)) | set(RETURNED.findall(text))
        found |= set(FIRST.findall(text))
    return found


def test_the_page_documents_exactly_the_catalog() -> None:
    assert _documented() == RUN_EVENTS | STATELESS_EVENTS


def test_the_code_emits_only_catalogued_events() -> None:
    emitted = _emitted()
    assert emitted, "the scan found no events: the pattern is stale"
    assert emitted - (RUN_EVENTS | STATELESS_EVENTS) == set()
    # And the catalog holds nothing the code never sends.
    assert (RUN_EVENTS | STATELESS_EVENTS) - emitted == set()
