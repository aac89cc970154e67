"""The pipeline's state (seed 001's State, split in input / working / output) and the typed
artifact each phase writes.

Artifacts are Pydantic models with camelCase aliases: the same JSON is asked of the model
(structured output), streamed as `phase_artifact`, and kept in the message's metadata.
What is not data (the app, the model client, the emitter, the answer's tool scope) travels
beside the state in a `PipelineRun`, in the graph's config, as the agent loop's `LoopAnswer`
does.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any, Literal, TypedDict

from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic.alias_generators import to_camel

from dataagent.agent.events import Emit
from dataagent.agent.grounding import Grounding
from dataagent.agent.offline.planner import OfflinePlan
from dataagent.agent.tools import ToolScope
from dataagent.llm.calls import ChatClient
from dataagent.llm.usage import TokenUsage
from dataagent.semantic.joins import JoinPath
from dataagent.semantic.model import SemanticModel
from dataagent.semantic.plan import QueryPlan
from dataagent.services.context import AppContext

Phase = Literal["planner", "navigator", "sql_builder", "executor", "verifier", "explainer"]
PHASES: tuple[Phase, ...] = (
    "planner",
    "navigator",
    "sql_builder",
    "executor",
    "verifier",
    "explainer",
)
Complexity = Literal["simple", "analytical", "conversational"]
Strategy = Literal["sql", "python", "sql_then_python"]
RevisionTarget = Literal["navigator", "sql_builder"]
MAX_REVISIONS = 3
MAX_CLARIFICATIONS = 3


def _article(word: str) -> str:
    return "an" if word[:1] in "aeiou" else "a"


class Artifact(BaseModel):
    """An artifact's JSON: camelCase, unknown keys refused (a model's typo is an error)."""

    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, extra="forbid", frozen=False
    )

    def to_json(self) -> dict[str, Any]:
        """The artifact as events and metadata carry it."""
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)


# --- planner ---------------------------------------------------------------------------------


def _lowered(data: Any, key: str) -> Any:
    """`data` with its `key` lower-cased: `Simple` and `SQL` are what a model meant."""
    if isinstance(data, dict) and isinstance(data.get(key), str):
        return {**data, key: data[key].strip().lower()}
    return data


class Ambiguity(Artifact):
    """A question the planner could ask, and the assumption it makes if it does not."""

    question: str = Field(min_length=1, max_length=500)
    assumption: str = Field(min_length=1, max_length=500)
    # The preference this question settles (`default_time_window`, ...), for auto-capture.
    preference_key: str | None = Field(None, max_length=255)


class PreferenceSuggestion(Artifact):
    """A preference the person's reply to a clarification settles (seed 001's auto-capture)."""

    key: str = Field(min_length=1, max_length=255)
    value: str = Field(min_length=1, max_length=2000)
    question: str = Field("", max_length=500)


class AcceptanceCheck(Artifact):
    """A check the answer must pass: a sentence, and (optionally) Python that asserts it.

    `python` runs in the sandbox with `step_N_data` (each step's rows) and `current_data`
    (the last step's) as DataFrames; it fails the check by raising (an `assert`)."""

    description: str = Field(min_length=1, max_length=500)
    python: str | None = Field(None, max_length=4000)

    @model_validator(mode="before")
    @classmethod
    def _from_sentence(cls, data: Any) -> Any:
        # Seed 001 writes acceptance checks as sentences; a model that does is understood.
        return {"description": data} if isinstance(data, str) else data


class PlanStep(Artifact):
    """One sub-task: how it is done, what it needs first, and (when the semantic model can
    express it) the QueryPlan that answers it without model-written SQL."""

    id: int = Field(ge=1, le=20)
    description: str = Field(min_length=1, max_length=1000)
    strategy: Strategy = "sql"
    depends_on: list[int] = Field(default_factory=list)
    datasets: list[str] = Field(default_factory=list)
    expected_output: str = Field("", max_length=1000)
    query_plan: QueryPlan | None = None
    # For python and sql_then_python steps: what the analysis does, in words.
    analysis: str | None = Field(None, max_length=2000)

    @model_validator(mode="before")
    @classmethod
    def _lower_strategy(cls, data: Any) -> Any:
        return _lowered(data, "strategy")

    @model_validator(mode="after")
    def _consistent(self) -> PlanStep:
        if self.query_plan is not None and self.strategy == "python":
            raise ValueError(
                f"step {self.id} is a python step, which reads no database: a queryPlan needs "
                "strategy sql or sql_then_python"
            )
        if self.id in self.depends_on:
            raise ValueError(f"step {self.id} depends on itself")
        return self


class PlanArtifact(Artifact):
    """Seed 001's PlanArtifact, with clarifications and QueryPlans."""

    complexity: Complexity
    intent: str = Field("", max_length=1000)
    metrics: list[str] = Field(default_factory=list)
    dimensions: list[str] = Field(default_factory=list)
    time_window: str | None = None
    filters: list[str] = Field(default_factory=list)
    grain: str = ""
    ambiguities: list[Ambiguity] = Field(default_factory=list)
    acceptance_checks: list[AcceptanceCheck] = Field(default_factory=list)
    steps: list[PlanStep] = Field(default_factory=list, max_length=10)
    should_clarify: bool = False
    clarification_questions: list[Ambiguity] = Field(
        default_factory=list, max_length=MAX_CLARIFICATIONS
    )
    # When the question answers an earlier clarification: what it settles.
    preferences_from_clarification: list[PreferenceSuggestion] = Field(default_factory=list)

    @model_validator(mode="before")
    @classmethod
    def _lower_complexity(cls, data: Any) -> Any:
        return _lowered(data, "complexity")

    @model_validator(mode="after")
    def _invariants(self) -> PlanArtifact:
        """What a usable plan holds: a model's plan that breaks one is asked for again."""
        seen: set[int] = set()
        for step in self.steps:
            if step.id in seen:
                raise ValueError(f"step ids must be unique; {step.id} appears twice")
            later = [n for n in step.depends_on if n not in seen]
            if later:
                raise ValueError(
                    f"step {step.id} depends on {', '.join(map(str, later))}: dependsOn may "
                    "name only steps listed before it"
                )
            seen.add(step.id)
        if self.should_clarify and not self.clarification_questions:
            raise ValueError("shouldClarify needs at least one clarification question")
        if self.complexity != "conversational" and not self.should_clarify and not self.steps:
            raise ValueError(
                f"{_article(self.complexity)} {self.complexity} question needs at least one "
                "step (only a conversational one, or one that asks for clarification, has none)"
            )
        return self

    def step(self, step_id: int) -> PlanStep | None:
        """The step with this id, or None."""
        return next((s for s in self.steps if s.id == step_id), None)


# --- navigator -------------------------------------------------------------------------------


class RelevantDataset(Artifact):
    """A dataset of the ontology the plan uses, with its YAML (the authoritative schema)."""

    name: str
    description: str = ""
    source: str
    yaml: str


class JoinPlanArtifact(Artifact):
    """Seed 001's JoinPlanArtifact: the datasets and the join paths among them (computed by
    `semantic.joins.join_paths`, not asked of a model)."""

    relevant_datasets: list[RelevantDataset] = Field(default_factory=list)
    join_paths: list[JoinPath] = Field(default_factory=list)
    notes: str = ""
    # True when the model's mini-ReAct had to find the datasets (the plan named none, or
    # names the ontology lacks).
    searched: bool = False
    # Each database step's datasets (step id -> names of the model), as the plan named them
    # (resolved) or, when it named none the model has, the datasets the search chose.
    step_datasets: dict[int, list[str]] = Field(default_factory=dict)


class CannotAnswer(Artifact):
    """Why the ontology cannot answer the question, and what it does cover."""

    reason: str
    missing_datasets: list[str] = Field(default_factory=list)
    available_datasets: list[str] = Field(default_factory=list)


# --- SQL builder -----------------------------------------------------------------------------


class QuerySpec(Artifact):
    """The SQL of one step: pilot (LIMIT 10) and full forms, and where it came from."""

    step_id: int
    description: str = ""
    pilot_sql: str
    full_sql: str
    expected_columns: list[str] = Field(default_factory=list)
    notes: str = ""
    # `plan`: compiled from the step's QueryPlan (no model call); `model`: written by it.
    origin: Literal["plan", "model"] = "model"


# --- executor --------------------------------------------------------------------------------


class SqlResult(Artifact):
    """A step's query result: its columns, up to `STEP_ROWS_KEPT` rows, and its record."""

    sql: str
    columns: list[str]
    rows: list[list[Any]] = Field(default_factory=list)
    row_count: int = 0
    truncated: bool = False
    exec_time_ms: int = 0
    query_record_id: str | None = None


class PythonResult(Artifact):
    """A step's sandbox run: what it printed, its images (saved as charts), its error."""

    code: str
    stdout: str = ""
    charts: list[dict[str, Any]] = Field(default_factory=list)
    error: str | None = None


class StepResult(Artifact):
    """Seed 001's StepResult."""

    step_id: int
    description: str = ""
    strategy: Strategy = "sql"
    sql_result: SqlResult | None = None
    python_result: PythonResult | None = None
    error: str | None = None
    error_code: str | None = None
    repaired: bool = False


# --- verifier --------------------------------------------------------------------------------


class Check(Artifact):
    """One check of the verifier."""

    name: str
    passed: bool
    message: str = ""
    # `deterministic`: a pure function of plan, SQL, model and results; `acceptance`: the
    # plan's own check, run in the sandbox.
    kind: Literal["deterministic", "acceptance"] = "deterministic"
    step_id: int | None = None
    # The phase a failure sends the answer back to.
    target: RevisionTarget | None = None


class VerificationReport(Artifact):
    """Seed 001's VerificationReport."""

    passed: bool
    checks: list[Check] = Field(default_factory=list)
    diagnosis: str = ""
    recommended_target: RevisionTarget | None = None
    caveats: list[str] = Field(default_factory=list)


# --- explainer -------------------------------------------------------------------------------


class LineageJoin(Artifact):
    """A join as lineage shows it."""

    from_: str = Field(alias="from")
    to: str
    on: str


class DataLineage(Artifact):
    """Where the numbers come from, computed from the executed SQL (sqlglot)."""

    datasets: list[str] = Field(default_factory=list)
    joins: list[LineageJoin] = Field(default_factory=list)
    time_window: str | None = None
    filters: list[str] = Field(default_factory=list)
    grain: str = ""
    row_count: int | None = None
    step_id: int | None = None


class ExplainerOutput(Artifact):
    """Seed 001's ExplainerOutput, with an assumptions section (seed 002)."""

    narrative: str
    data_lineage: DataLineage | None = None
    step_lineage: list[DataLineage] = Field(default_factory=list)
    caveats: list[str] = Field(default_factory=list)
    assumptions: list[str] = Field(default_factory=list)
    charts: list[dict[str, Any]] = Field(default_factory=list)


# --- the state -------------------------------------------------------------------------------


class PipelineInput(TypedDict):
    """Set once when the answer starts."""

    question: str
    # The conversation before the question (history summary and recent turns), as text.
    conversation: str
    # The effective preferences (global, overridden by the ontology's), key -> value.
    preferences: dict[str, str]
    # When the question replies to a clarification: the questions that were asked.
    answered_clarification: list[dict[str, str]]


class PipelineWorking(TypedDict, total=False):
    """What the phases write as they go."""

    plan: PlanArtifact
    join_plan: JoinPlanArtifact
    cannot_answer: CannotAnswer
    query_specs: list[QuerySpec]
    step_results: list[StepResult]
    verification: VerificationReport
    revision_count: int
    revision_diagnosis: str
    revision_target: RevisionTarget
    # True when the answer makes no model call (the offline planner's plan): no revision.
    offline: bool


class PipelineOutput(TypedDict, total=False):
    """What the answer ends with."""

    explainer_output: ExplainerOutput
    # `complete`, or `clarification_needed` when the planner asked.
    status: Literal["complete", "clarification_needed"]


class PipelineState(PipelineInput, PipelineWorking, PipelineOutput):
    """The graph's state: input, working and output fields (each node returns the fields
    it sets)."""


@dataclass(frozen=True)
class OfflineAnswer:
    """An answer planned by the offline planner: its plan, and whether it was the fast path
    of a pipeline chat (else the chat is offline, or no model is configured)."""

    plan: OfflinePlan
    fast_path: bool = False

    def to_json(self) -> dict[str, Any]:
        """The message metadata's `offline` object."""
        return {
            "confidence": round(self.plan.confidence, 3),
            "understood": list(self.plan.understood),
            "notUnderstood": list(self.plan.not_understood),
            "suggestions": list(self.plan.suggestions),
            "notes": list(self.plan.notes),
            "fastPath": self.fast_path,
        }


@dataclass
class PipelineRun:
    """One answer's run of the pipeline: what the compiled graph works with beside its state.

    `scope` is the answer's tool scope (owner, ontology, semantic model, query target, run
    and message, budget, charts); `tool_calls` and `phase_usage` collect what the metadata
    keeps; `offline`, when set, means the answer makes no model call."""

    ctx: AppContext
    client: ChatClient
    emit: Emit
    scope: ToolScope
    grounding: Grounding
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    phase_usage: dict[str, TokenUsage] = field(default_factory=dict)
    phase_ms: dict[str, int] = field(default_factory=dict)
    answer_id: uuid.UUID | None = None
    # Set when the offline planner planned the answer: no phase may call the model.
    offline: OfflineAnswer | None = None

    @property
    def model(self) -> SemanticModel:
        """The ontology's semantic model."""
        return self.scope.model
