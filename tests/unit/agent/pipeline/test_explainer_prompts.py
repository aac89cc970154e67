"""The explainer's and the executor's prompt material, rendered from fixed artifacts: golden
files (DATAAGENT_UPDATE_GOLDEN=1 rewrites them after an intended change; CI refuses that)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from tests.fixtures.compiler.compiler_golden import update_golden

from dataagent.agent.pipeline.executor import fenced, render_python_request, render_repair
from dataagent.agent.pipeline.explainer import (
    NARRATIVE_PROMPT,
    assumptions_section,
    preferences_section,
    render_results,
)
from dataagent.agent.pipeline.state import (
    PlanArtifact,
    PlanStep,
    PythonResult,
    SqlResult,
    StepResult,
)

GOLDEN = Path(__file__).parents[3] / "fixtures" / "prompts"

PLAN = PlanArtifact(
    complexity="analytical",
    intent="Compare the regions' store counts",
    steps=[
        PlanStep(id=1, description="Stores per region"),
        PlanStep(id=2, description="Share of each region", strategy="python", depends_on=[1]),
        PlanStep(id=3, description="Revenue"),
    ],
)
RESULTS = [
    StepResult(
        step_id=1,
        description="Stores per region",
        sql_result=SqlResult(
            sql="SELECT region, COUNT(*) AS stores FROM stores GROUP BY region",
            columns=["region", "stores"],
            rows=[["Midwest", 2], ["South", 3], ["Southeast", 2], ["West | Pacific", 3]],
            row_count=4,
        ),
    ),
    StepResult(
        step_id=2,
        description="Share of each region",
        strategy="python",
        python_result=PythonResult(code="print(1)", stdout="West: 30%\nSouth: 30%\n"),
    ),
    StepResult(step_id=3, description="Revenue", error="no such column: revenue"),
]


def _golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if update_golden():
        path.write_text(text)
    assert text == path.read_text()


def test_the_narrative_call_golden() -> None:
    material = render_results(
        "How are stores spread over regions?",
        PLAN,
        RESULTS,
        ["Step 3 (Revenue) failed: no such column: revenue"],
        ["Every store counts, open or not."],
    )
    system = NARRATIVE_PROMPT + preferences_section({"preferred_output_format": "bullets"})
    _golden("pipeline_narrative.md", f"{system}\n\n=====\n\n{material}\n")


def test_the_repair_and_python_calls_golden() -> None:
    repair = render_repair(
        "SELECT regionn FROM stores",
        "QUERY_FAILED: no such column: regionn",
        "name: stores\nsource: main.stores\nfields:\n- name: region\n",
    )
    step = PlanStep(
        id=2,
        description="Share of each region",
        strategy="python",
        depends_on=[1],
        analysis="Divide each count by the total.",
    )
    frame = pd.DataFrame({"region": ["Midwest", "South"], "stores": [2, 3]})
    python = render_python_request("How are stores spread?", step, {"step_1_data": frame}, "")
    _golden("pipeline_executor.md", f"{repair}\n\n=====\n\n{python}\n")


def test_the_assumptions_section() -> None:
    assert assumptions_section(["A.", "B."]) == "\n\n## Assumptions\n\n- A.\n- B."
    assert preferences_section({}) == ""


def test_code_is_read_from_its_fenced_block() -> None:
    assert fenced("Here:\n```sql\nSELECT 1\n```\nDone.", "sql") == "SELECT 1"
    assert fenced("```python\nx = 1\n```\n```sql\nSELECT 2\n```", "sql") == "SELECT 2"
    assert fenced("```\nSELECT 3\n```", "sql") == "SELECT 3"
    assert fenced("SELECT 4;", "sql") == "SELECT 4;"
    assert fenced("```sql\nSELECT 5", "sql") == "SELECT 5"  # an unclosed block
