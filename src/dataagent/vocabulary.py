"""The closed sets of words the product uses: roles, statuses and kinds.

A leaf module. The app database's columns, the API schemas (and so the TypeScript client's
types) and the code all take these `Literal`s from here, so a status is never free text.
"""

from __future__ import annotations

from typing import Final, Literal, get_args

Role = Literal["admin", "contributor", "viewer"]
ROLES: Final[tuple[Role, ...]] = get_args(Role)

OntologyStatus = Literal["building", "ready", "failed"]
# How the caller reaches an ontology: their own, or shared with them (directly or through a
# group). A chat whose ontology is no longer shared with its owner is `withdrawn`.
OntologyAccessKind = Literal["owner", "shared"]
ChatOntologyAccess = Literal["owner", "shared", "withdrawn"]

MessageRole = Literal["user", "assistant"]
MessageStatus = Literal["generating", "complete", "failed", "clarification_needed"]

# How a query record ended (seed 004's run capsule status).
QueryStatus = Literal["succeeded", "failed"]
# What asked for a query: SQL as written, or a QueryPlan compiled to SQL.
QueryMode = Literal["sql", "plan"]

# `database`: a user's own; `files`: made for an upload; `demo`: made for the demo data.
ConnectionKind = Literal["database", "files", "demo"]
MANAGED_CONNECTION_KINDS: Final[frozenset[ConnectionKind]] = frozenset({"files", "demo"})

LlmProvider = Literal["openai", "anthropic", "azure", "openai_compatible"]
LLM_PROVIDERS: Final[tuple[LlmProvider, ...]] = get_args(LlmProvider)

# How a chat answers: the ReAct agent of seed 000, seed 001's six-phase pipeline, or the
# pipeline with the offline planner and no model call at all.
AgentMode = Literal["react", "pipeline", "offline"]
AGENT_MODES: Final[tuple[AgentMode, ...]] = get_args(AgentMode)

# A stored preference (seed 001): written by its user, or saved from a clarification's answer.
PreferenceSource = Literal["manual", "auto_captured"]
# Which preferences a listing returns: global ones (no ontology), one ontology's, or all.
PreferenceScope = Literal["global", "ontology", "all"]
# What the agent does with the answers to its clarifying questions (the `auto_capture_mode`
# preference): nothing, save them as preferences, or suggest saving them.
AutoCaptureMode = Literal["off", "auto", "ask"]
AUTO_CAPTURE_MODES: Final[tuple[AutoCaptureMode, ...]] = get_args(AutoCaptureMode)

# What a durable run does, and where it is. A cancelled or interrupted run is `failed`
# with the code CANCELLED or INTERRUPTED.
# `agent_server`: one request of seed 004's agent server (`POST /api/chat`).
RunKind = Literal["chat_message", "ontology_build", "agent_server"]
RunStatus = Literal["queued", "running", "succeeded", "failed"]
FINISHED_RUN_STATUSES: Final[frozenset[RunStatus]] = frozenset({"succeeded", "failed"})
