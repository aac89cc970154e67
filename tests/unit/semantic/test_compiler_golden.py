"""Golden SQL: every plan in tests/fixtures/compiler/cases compiles to exactly the stored SQL.

Run with DATAAGENT_UPDATE_GOLDEN=1 to rewrite the stored SQL after an intended change
(then read the diff: it is the review of the change).
"""

from __future__ import annotations

from typing import Any

import pytest
import sqlglot
from tests.fixtures.compiler.compiler_golden import (
    DIALECTS,
    load_cases,
    retail_model,
    update_golden,
    write_case,
)

from dataagent.dialects import sqlglot_name as sqlglot_dialect
from dataagent.semantic.compiler import compile_plan
from dataagent.semantic.plan import QueryPlan

CASES = load_cases()


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_plan_compiles_to_golden_sql(case: dict[str, Any]) -> None:
    plan = QueryPlan.model_validate(case["plan"])
    compiled = {d: compile_plan(plan, retail_model(d), d) for d in DIALECTS}
    flags = {c.pre_aggregated for c in compiled.values()}
    assert len(flags) == 1, "pre-aggregation must not depend on the dialect"
    if update_golden():
        case["sql"] = {d: c.sql for d, c in compiled.items()}
        case["pre_aggregated"] = flags.pop()
        write_case(case)
        return
    assert case.get("pre_aggregated") == flags.pop()
    for dialect, query in compiled.items():
        assert query.sql.strip() == case["sql"][dialect].strip(), f"{case['name']} / {dialect}"


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_golden_sql_parses_in_its_dialect(case: dict[str, Any]) -> None:
    # The SQL guard parses compiled SQL before it runs; it must read what we write.
    for dialect in DIALECTS:
        sql = case["sql"][dialect]
        parsed = sqlglot.parse(sql, read=sqlglot_dialect(dialect))
        assert len(parsed) == 1 and parsed[0] is not None


def test_every_case_has_reference_sql_and_all_dialects() -> None:
    assert len(CASES) >= 15
    for case in CASES:
        assert case.get("reference_sql"), case["name"]
        assert set(case.get("sql", {})) == set(DIALECTS), case["name"]
