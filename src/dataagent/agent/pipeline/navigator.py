"""Phase 2, the navigator: the plan's datasets and the join paths among them.

Contract: `navigate(state, run)` returns `{"join_plan": JoinPlanArtifact}` or
`{"cannot_answer": CannotAnswer}`. Join paths come from `semantic.joins.join_paths` with no
model call; the model's mini-ReAct runs only when the plan names no dataset, or names ones
the ontology lacks (an offline answer then cannot be answered: it has no model).

The plan's datasets are those its database steps name and those their QueryPlans reference
(fields, metrics, windows), matched to the model case-insensitively (by name, or by source
table). Datasets that no relationship connects get a note and a tree per connected group.
On a revision sent here, a two-dataset join takes the next of its alternative paths (one
without a fan-out first when the diagnosis is about one), and the diagnosis is passed on.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from langchain_core.tools import BaseTool, StructuredTool
from pydantic import BaseModel, Field

from dataagent.agent.grounding import join_hints
from dataagent.agent.pipeline.prompts import navigator_prompt
from dataagent.agent.pipeline.state import (
    CannotAnswer,
    JoinPlanArtifact,
    PipelineRun,
    PipelineState,
    PlanArtifact,
    PlanStep,
    RelevantDataset,
)
from dataagent.agent.prompts import join_line
from dataagent.agent.tool_calls import ToolOutcome, run_turn
from dataagent.agent.tools import make_tools
from dataagent.errors import DataAgentError
from dataagent.llm.calls import bounded_json, clip_text, text_of
from dataagent.ontology.metrics import metric_datasets
from dataagent.semantic.joins import JoinGraph, JoinPath, join_paths, make_path
from dataagent.semantic.model import SemanticModel
from dataagent.semantic.plan import Filter, QueryPlan
from dataagent.semantic.yaml_io import dump_dataset_yaml

MAX_SEARCH_ROUNDS = 8
# Names a refusal lists of what the ontology covers.
AVAILABLE_LISTED = 100
SEARCH_TOOLS = ("list_datasets", "get_dataset_details")
CHOOSE = "choose_datasets"
SQL_STRATEGIES = ("sql", "sql_then_python")


# --- the plan's datasets ---------------------------------------------------------------------


def _dataset_of(field: str) -> str | None:
    head, dot, _ = field.partition(".")
    return head if dot and head else None


def query_plan_datasets(query_plan: QueryPlan, model: SemanticModel) -> list[str]:
    """The datasets a QueryPlan references, as written: its list, fields and metrics."""
    names = list(query_plan.datasets)
    fields = [m.field for m in query_plan.measures] + [d.field for d in query_plan.dimensions]
    for item in query_plan.filters:
        conditions: Sequence[Filter] = item.any if not isinstance(item, Filter) else [item]
        fields += [f.field for f in conditions]
    if query_plan.time_window is not None:
        fields.append(query_plan.time_window.field)
    names += [d for f in fields if (d := _dataset_of(f)) is not None]
    for ref in query_plan.metrics:
        metric = model.metric(ref.name)
        if metric is not None:
            names += metric_datasets(model, metric)
    return list(dict.fromkeys(names))


def step_names(step: PlanStep, model: SemanticModel) -> list[str]:
    """The datasets a step names, as written (its list, then its QueryPlan's)."""
    names = list(step.datasets)
    if step.query_plan is not None:
        names += query_plan_datasets(step.query_plan, model)
    return list(dict.fromkeys(n.strip() for n in names if n.strip()))


class Resolver:
    """Names as a plan writes them, matched to the model's datasets without regard to case:
    by name, then by source table (qualified or not)."""

    def __init__(self, model: SemanticModel) -> None:
        self.by_name = {d.name.lower(): d.name for d in model.datasets}
        self.by_source: dict[str, str] = {}
        for d in model.datasets:
            source = d.source.lower()
            self.by_source.setdefault(source, d.name)
            self.by_source.setdefault(source.rsplit(".", 1)[-1], d.name)

    def __call__(self, name: str) -> str | None:
        """The dataset `name` stands for, or None."""
        key = name.strip().strip('"`[]').lower()
        return self.by_name.get(key) or self.by_source.get(key)


def database_steps(plan: PlanArtifact) -> list[PlanStep]:
    """The steps that read the database."""
    return [s for s in plan.steps if s.strategy in SQL_STRATEGIES]


# --- join paths ------------------------------------------------------------------------------


def groups_of(model: SemanticModel, names: Sequence[str]) -> list[list[str]]:
    """`names` split by the connected parts of the relationship graph (in the given order)."""
    parent = {d.name: d.name for d in model.datasets}

    def root(n: str) -> str:
        while parent[n] != n:
            parent[n] = parent[parent[n]]
            n = parent[n]
        return n

    for r in model.relationships:
        if r.from_dataset != r.to_dataset:
            parent[root(r.from_dataset)] = root(r.to_dataset)
    groups: dict[str, list[str]] = {}
    for name in names:
        groups.setdefault(root(name), []).append(name)
    return list(groups.values())


def _edges(paths: Iterable[JoinPath]) -> set[tuple[str, str, str]]:
    return {
        (min(e.from_dataset, e.to_dataset), max(e.from_dataset, e.to_dataset), e.relationship)
        for p in paths
        for e in p.edges
    }


def _another_path(
    model: SemanticModel, pair: list[str], previous: Sequence[JoinPath], diagnosis: str
) -> JoinPath | None:
    """On a revision: the first alternative path for two datasets that differs from the
    previous join (without a fan-out first, when the diagnosis is about one)."""
    try:
        options = JoinGraph.from_model(model).shortest_paths(pair[0], pair[1])
    except DataAgentError:
        return None
    used = _edges(previous)
    fresh = [p for p in options if not _edges([p]) <= used or not p.edges]
    if re.search(r"fan.?out|double.?count|duplicat|inflat", diagnosis, re.IGNORECASE):
        fresh.sort(key=lambda p: p.fan_out)
    return fresh[0] if fresh else None


def connect(
    model: SemanticModel,
    names: Sequence[str],
    *,
    diagnosis: str = "",
    previous: Sequence[JoinPath] = (),
) -> tuple[list[JoinPath], list[str]]:
    """A join tree per connected group of `names`, and notes on what did not connect."""
    paths: list[JoinPath] = []
    notes: list[str] = []
    groups = groups_of(model, names)
    if len(groups) > 1:
        listed = " and ".join("{" + ", ".join(g) + "}" for g in groups)
        notes.append(
            f"No relationship connects {listed}: each group is joined on its own, so a step "
            "must not join across them."
        )
    for group in groups:
        if diagnosis and len(group) == 2:
            other = _another_path(model, group, previous, diagnosis)
            if other is not None:
                paths.append(other)
                notes.append(
                    f"Revision: {group[0]} and {group[1]} are joined along another path "
                    f"({' -> '.join(other.datasets)})."
                )
                continue
        try:
            paths.append(join_paths(model, group, k=1)[0])
        except DataAgentError as exc:
            notes.append(exc.message)
            paths.extend(make_path(name, []) for name in group)
    return paths, notes


def relevant(model: SemanticModel, paths: Sequence[JoinPath]) -> list[RelevantDataset]:
    """Every dataset on the paths, with its YAML (the relationships that touch it included)."""
    found = []
    for name in dict.fromkeys(n for p in paths for n in p.datasets):
        dataset = model.dataset(name)
        if dataset is not None:
            found.append(
                RelevantDataset(
                    name=dataset.name,
                    description=dataset.description or "",
                    source=dataset.source,
                    yaml=dump_dataset_yaml(dataset, model.relationships),
                )
            )
    return found


# --- the model's search ----------------------------------------------------------------------


class RelationshipArgs(BaseModel):
    """Arguments of get_relationships."""

    datasetNames: list[str] = Field(
        default_factory=list,
        description="Only relationships touching these datasets (none: every relationship).",
    )


class ChooseArgs(BaseModel):
    """Arguments of choose_datasets."""

    datasets: list[str] = Field(description="Exact names of the datasets that serve the plan.")
    reason: str = Field("", description="Why these; or why nothing in the model fits.")


def search_tools(run: PipelineRun) -> list[BaseTool]:
    """The search's tools: `list_datasets` and `get_dataset_details` (the answer's own),
    `get_relationships`, and `choose_datasets`, which ends the search."""
    model = run.model

    async def get_relationships(datasetNames: list[str] | None = None) -> str:
        wanted = {n.lower() for n in datasetNames or []}
        hints = [
            h
            for h in join_hints(model)
            if not wanted or h.from_dataset.lower() in wanted or h.to_dataset.lower() in wanted
        ]
        if not hints:
            return "No relationships found."
        return f"{len(hints)} relationships:\n\n" + "\n".join(join_line(h) for h in hints)

    async def choose_datasets(datasets: list[str], reason: str = "") -> str:
        return "Chosen."

    own = [t for t in make_tools(run.scope) if t.name in SEARCH_TOOLS]
    return [
        *own,
        StructuredTool.from_function(
            coroutine=get_relationships,
            name="get_relationships",
            description="List how datasets join: `from.column = to.column` with cardinality.",
            args_schema=RelationshipArgs,
        ),
        StructuredTool.from_function(
            coroutine=choose_datasets,
            name=CHOOSE,
            description=(
                "End the search: the datasets (exact names) that serve the plan, or none "
                "with the reason when nothing in the semantic model fits."
            ),
            args_schema=ChooseArgs,
        ),
    ]


class _SearchEvents:
    """The search's tool events (`tool_start`, `tool_end`, `tool_error`) and metadata."""

    def __init__(self, run: PipelineRun) -> None:
        self.run = run
        self.chars = run.ctx.settings.agent_tool_result_chars

    async def on_call(self, call: dict[str, Any]) -> None:
        args = bounded_json(call.get("args"), self.chars)
        await self.run.emit(
            "tool_start", {"phase": "navigator", "name": call.get("name"), "args": args}
        )

    async def on_outcome(self, outcome: ToolOutcome) -> None:
        text = clip_text(outcome.text, self.chars)
        key = "error" if outcome.is_error else "result"
        payload = {"phase": "navigator", "name": outcome.name, key: text}
        await self.run.emit("tool_error" if outcome.is_error else "tool_end", payload)
        self.run.tool_calls.append(
            {
                "phase": "navigator",
                "name": outcome.name,
                "args": bounded_json(outcome.args, self.chars),
                "result": text,
                "isError": outcome.is_error,
                "durationMs": outcome.duration_ms,
            }
        )


def _named_in(text: str, model: SemanticModel) -> list[str]:
    return [
        d.name
        for d in model.datasets
        if re.search(rf"\b{re.escape(d.name)}\b", text, re.IGNORECASE)
    ]


async def search(
    state: PipelineState, run: PipelineRun, plan: PlanArtifact, missing: Sequence[str]
) -> tuple[list[str], str]:
    """The model's mini-ReAct over the ontology: the datasets it chose, and its reason."""
    model = run.model
    tools = search_tools(run)
    by_name = {t.name: t for t in tools}
    events = _SearchEvents(run)
    steps = [(s.id, s.description, step_names(s, model)) for s in database_steps(plan)]
    prompt = navigator_prompt(state["question"], steps, missing, MAX_SEARCH_ROUNDS)
    messages: list[BaseMessage] = [
        SystemMessage(prompt),
        HumanMessage("Find the datasets for this plan, then call choose_datasets."),
    ]
    looked_at: list[str] = []
    for _ in range(MAX_SEARCH_ROUNDS):
        reply = await run.client.stream(
            messages, tools=tools, phase="navigator", purpose="dataset_search"
        )
        turn = await run_turn(
            run.scope.budget, by_name, reply, on_call=events.on_call, on_outcome=events.on_outcome
        )
        for call in reply.tool_calls:
            if call["name"] == CHOOSE:
                args = call.get("args") or {}
                names = [str(n) for n in args.get("datasets") or [] if isinstance(n, str)]
                return names, str(args.get("reason") or "")
            if call["name"] == "get_dataset_details":
                looked_at += [str(n) for n in (call.get("args") or {}).get("datasetNames") or []]
        if not reply.tool_calls and not reply.invalid_tool_calls:
            text = text_of(reply.content)
            return _named_in(text, model), text.strip()
        messages += [turn.reply, *turn.messages]
    return looked_at, f"The search ended after {MAX_SEARCH_ROUNDS} rounds without a choice."


# --- the phase -------------------------------------------------------------------------------


def _cannot_answer(model: SemanticModel, reason: str, missing: Sequence[str]) -> CannotAnswer:
    return CannotAnswer(
        reason=reason,
        missing_datasets=list(missing),
        available_datasets=[d.name for d in model.datasets][:AVAILABLE_LISTED],
    )


def named_datasets(
    steps: Sequence[PlanStep], model: SemanticModel, resolve: Resolver
) -> tuple[dict[int, list[str]], list[str]]:
    """Each step's datasets the model has, and the names it lacks (each once)."""
    step_datasets: dict[int, list[str]] = {}
    missing: list[str] = []
    for step in steps:
        found = []
        for name in step_names(step, model):
            dataset = resolve(name)
            if dataset is None:
                missing.append(name)
            else:
                found.append(dataset)
        step_datasets[step.id] = list(dict.fromkeys(found))
    return step_datasets, list(dict.fromkeys(missing))


async def navigate(state: PipelineState, run: PipelineRun) -> dict[str, Any]:
    """The join plan of the plan's steps, or why nothing fits."""
    plan = state["plan"]
    model = run.model
    resolve = Resolver(model)
    steps = database_steps(plan)
    if not steps:
        return {"join_plan": JoinPlanArtifact(notes="No step of the plan reads the database.")}
    revising = state.get("revision_target") == "navigator"
    earlier = state.get("join_plan")
    step_datasets, missing = named_datasets(steps, model, resolve)
    notes: list[str] = []
    searched = False
    if revising and earlier is not None and earlier.searched:
        # What the search chose stands: a revision changes the joins, not the datasets.
        step_datasets, searched = dict(earlier.step_datasets), True
    elif run.offline is not None and (missing or not any(step_datasets.values())):
        # No model to search with: the offline plan names datasets the model lacks.
        why = "The offline plan names no dataset of the semantic model."
        return {"cannot_answer": _cannot_answer(model, why, missing)}
    elif missing or not any(step_datasets.values()):
        searched = True
        chosen, reason = await search(state, run, plan, missing)
        found = [d for n in chosen if (d := resolve(n)) is not None]
        if not found and not any(step_datasets.values()):
            why = reason or "No dataset of the semantic model fits the question."
            return {"cannot_answer": _cannot_answer(model, why, missing)}
        for step in steps:
            if not step_datasets[step.id] or any(
                resolve(n) is None for n in step_names(step, model)
            ):
                step_datasets[step.id] = list(dict.fromkeys([*step_datasets[step.id], *found]))
        if missing:
            chose = (
                f"the search chose {', '.join(found)}." if found else "the search found nothing."
            )
            notes.append(
                f"The plan named {', '.join(missing)}, which the semantic model lacks; {chose}"
            )
    names = list(dict.fromkeys(n for names in step_datasets.values() for n in names))
    diagnosis = state.get("revision_diagnosis", "") if revising else ""
    previous = earlier.join_paths if earlier is not None else []
    paths, path_notes = connect(model, names, diagnosis=diagnosis, previous=previous)
    notes += path_notes
    if diagnosis:
        notes.append(f"Revision asked by the verifier: {diagnosis}")
    artifact = JoinPlanArtifact(
        relevant_datasets=relevant(model, paths),
        join_paths=paths,
        notes=" ".join(notes),
        searched=searched,
        step_datasets=step_datasets,
    )
    return {"join_plan": artifact}
