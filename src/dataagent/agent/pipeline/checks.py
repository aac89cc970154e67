"""The verifier's deterministic checks: pure functions over what a step promised
(`Expectations`), the SQL that ran (its `SqlFacts`), the semantic model and the rows.

Each check returns the problems it found, one sentence each; `run_checks` turns them into
`Check`s (one passing `Check` per kind when nothing is wrong) with the phase a failure
sends the answer back to. Where a check cannot be sure it stays silent: a correct query
must never be flagged (precision over recall), and the fault-injection set
(`evals/faults/`, `dataagent eval faults`) holds every check to that.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence

from dataagent.agent.pipeline.expectations import Expectations, ExpectedMeasure
from dataagent.agent.pipeline.sql_facts import (
    REPEAT_SENSITIVE,
    ColumnUse,
    SqlFacts,
    labels,
)
from dataagent.agent.pipeline.sql_reader import read_sql
from dataagent.agent.pipeline.state import Check, RevisionTarget, SqlResult
from dataagent.semantic.fanout import fan_out_edge, primary_key
from dataagent.semantic.joins import make_path
from dataagent.semantic.model import Cardinality, SemanticModel

# Every check kind, in report order, and the phase its failure sends the answer back to.
TARGETS: dict[str, RevisionTarget] = {
    "unknown_column": "sql_builder",
    "join_key": "navigator",
    "fan_out": "navigator",
    "null_key_loss": "sql_builder",
    "dropped_filter": "sql_builder",
    "grain": "sql_builder",
    "wrong_aggregate": "sql_builder",
    "empty_result": "navigator",
    "duplicate_rows": "sql_builder",
    "totals_disagree": "sql_builder",
}
# What each kind checks, for a passing `Check`'s message.
PASSED: dict[str, str] = {
    "unknown_column": "Every table and column is in the semantic model.",
    "join_key": "Every join uses a relationship's columns.",
    "fan_out": "No aggregate counts a row more than once.",
    "null_key_loss": "No inner join or filter drops rows with NULL keys the plan counts.",
    "dropped_filter": "Every filter of the plan is applied.",
    "grain": "The SQL groups by the plan's grain.",
    "wrong_aggregate": "Each measure uses its definition's aggregation.",
    "empty_result": "The query returned rows.",
    "duplicate_rows": "One row per value of the grain.",
    "totals_disagree": "Totals of the same measure agree between steps.",
}

SqlCheck = Callable[[SqlFacts, Expectations, SemanticModel], list[str]]


# --- over the SQL ----------------------------------------------------------------------------


def unknown_column(facts: SqlFacts, expect: Expectations, model: SemanticModel) -> list[str]:
    """Tables and columns the semantic model does not have."""
    return [f"The SQL uses something the semantic model lacks: {u}." for u in facts.unknown]


def join_key(facts: SqlFacts, expect: Expectations, model: SemanticModel) -> list[str]:
    """Joins whose ON columns are not a declared relationship's columns."""
    problems = []
    for scope in facts.scopes:
        for join in scope.joins:
            if join.edge is None or join.edge.relationship:
                continue
            left, right = join.left_dataset, join.right_dataset
            assert left is not None and right is not None
            written = frozenset(frozenset({f"{left}.{a}", f"{right}.{b}"}) for a, b in join.pairs)
            if written <= expect.joins:
                continue
            on = " AND ".join(f"{left}.{a} = {right}.{b}" for a, b in join.pairs)
            declared = [
                r for r in model.relationships if {r.from_dataset, r.to_dataset} == {left, right}
            ]
            if declared:
                keys = " or ".join(
                    " AND ".join(
                        f"{r.from_dataset}.{a} = {r.to_dataset}.{b}"
                        for a, b in zip(r.from_columns, r.to_columns, strict=True)
                    )
                    for r in declared
                )
                problems.append(f"The join {on} is not the relationship's key ({keys}).")
            elif join.edge.cardinality is Cardinality.ONE_TO_ONE and left != right:
                problems.append(
                    f"The join {on} matches two primary keys that no relationship links."
                )
    return problems


def fan_out(facts: SqlFacts, expect: Expectations, model: SemanticModel) -> list[str]:
    """Aggregates (SUM, AVG, COUNT) over a dataset whose rows the joins repeat."""
    problems = []
    for scope in facts.scopes:
        if not scope.duplicated:
            continue
        edges = [j.edge for j in scope.joins if j.edge is not None]
        tree = make_path(edges[0].from_dataset, edges)
        for aggregate in scope.aggregates:
            if aggregate.function not in REPEAT_SENSITIVE:
                continue
            if aggregate.counts_rows:
                hit = sorted(a for a in scope.duplicated if scope.aliases.get(a) in expect.counted)
            elif aggregate.aliases <= scope.duplicated:
                hit = sorted(aggregate.aliases)
            else:
                # A value that also reads a dataset the joins do not repeat is computed
                # per row of that dataset (a line's quantity times its product's cost).
                hit = []
            for alias in hit:
                dataset = scope.aliases.get(alias)
                if dataset is None or dataset in expect.allowed_fan_out:
                    continue
                edge = fan_out_edge(tree, alias)
                via = (
                    f"joining {scope.aliases.get(edge.to_dataset, edge.to_dataset)} "
                    f"({edge.cardinality.value})"
                    if edge is not None
                    else "the joins"
                )
                what = "COUNT(*)" if aggregate.counts_rows else aggregate.function.upper()
                problems.append(
                    f"{what} over {dataset} is inflated: {via} repeats each {dataset} row; "
                    f"aggregate {dataset} before the join or count distinct keys."
                )
    return list(dict.fromkeys(problems))


def _nullable_keys(model: SemanticModel) -> dict[ColumnUse, str]:
    keys = {}
    for rel in model.relationships:
        dataset = model.dataset(rel.from_dataset)
        assert dataset is not None
        for column in rel.from_columns:
            found = dataset.field(column)
            if found is not None and found.nullable:
                keys[ColumnUse(rel.from_dataset, column)] = rel.to_dataset
    return keys


def null_key_loss(facts: SqlFacts, expect: Expectations, model: SemanticModel) -> list[str]:
    """Inner joins and filters that drop rows with NULL keys the plan counts."""
    problems = []
    nullable = _nullable_keys(model)
    if expect.inner_joins is not None:
        for scope in facts.scopes:
            for join in scope.joins:
                if join.kind != "inner" or join.edge is None or not join.edge.relationship:
                    continue
                rel = next(r for r in model.relationships if r.name == join.edge.relationship)
                keys = [ColumnUse(rel.from_dataset, c) for c in rel.from_columns]
                if rel.from_dataset == rel.to_dataset or not any(k in nullable for k in keys):
                    continue
                if rel.to_dataset in expect.inner_joins:
                    continue
                if rel.from_dataset not in expect.datasets:
                    continue
                problems.append(
                    f"The inner join of {rel.from_dataset} to {rel.to_dataset} drops the "
                    f"{rel.from_dataset} rows whose {labels(keys)} is NULL, which the plan "
                    "counts; use a LEFT JOIN."
                )
    if expect.filters_known:
        asked = {f.column for f in expect.filters}
        for predicate in facts.predicates:
            if predicate.op != "is_not_null" or predicate.column in asked:
                continue
            if predicate.column in nullable:
                problems.append(
                    f"The filter {predicate.column.label} IS NOT NULL drops rows the plan "
                    "counts; the plan asks for no such filter."
                )
    return list(dict.fromkeys(problems))


def dropped_filter(facts: SqlFacts, expect: Expectations, model: SemanticModel) -> list[str]:
    """Filters the plan asked for that the SQL does not apply (or applies to other values)."""
    problems = []
    for wanted in expect.filters:
        found = [p for p in facts.predicates if p.column == wanted.column]
        if not found:
            problems.append(
                f"The plan filters {wanted.describe()}, but the SQL has no condition on "
                f"{wanted.column.label}."
            )
            continue
        if wanted.op not in ("=", "in") or not wanted.values:
            continue
        values = set(wanted.values)  # numbers are floats on both sides, text is text
        if any(p.op == "other" or (p.op in ("=", "in") and values <= set(p.values)) for p in found):
            continue
        problems.append(
            f"The plan filters {wanted.describe()}, but the SQL keeps other values of "
            f"{wanted.column.label}."
        )
    return problems


def _canonical(model: SemanticModel, use: ColumnUse) -> ColumnUse:
    # A foreign key groups like the key it points to (orders.store_id ~ stores.id).
    for rel in model.relationships:
        if (
            rel.from_dataset == use.dataset
            and rel.from_columns == [use.field]
            and rel.cardinality in (Cardinality.MANY_TO_ONE, Cardinality.ONE_TO_ONE)
        ):
            return ColumnUse(rel.to_dataset, rel.to_columns[0])
    return use


def _same_grain(model: SemanticModel, actual: set[ColumnUse], wanted: set[ColumnUse]) -> bool:
    by_dataset: dict[str, tuple[set[str], set[str]]] = {}
    for use in actual:
        by_dataset.setdefault(use.dataset, (set(), set()))[0].add(use.field)
    for use in wanted:
        by_dataset.setdefault(use.dataset, (set(), set()))[1].add(use.field)
    for name, (got, want) in by_dataset.items():
        if got == want:
            continue
        dataset = model.dataset(name)
        key = set(primary_key(dataset)) if dataset is not None else set()
        # Both group by the dataset's whole key (with or without its other columns).
        if key and key <= got and key <= want:
            continue
        return False
    return True


def grain(facts: SqlFacts, expect: Expectations, model: SemanticModel) -> list[str]:
    """GROUP BY columns other than the plan's grain."""
    if expect.grain is None:
        return []
    actual = facts.grain
    if actual is None:
        return [f"The plan aggregates by {labels(expect.grain)}, but the SQL does not aggregate."]
    got = {_canonical(model, u) for u in actual}
    want = {_canonical(model, u) for u in expect.grain}
    if _same_grain(model, got, want):
        return []
    return [f"The SQL groups by {labels(actual)}, but the plan's grain is {labels(expect.grain)}."]


def _is_key(model: SemanticModel, columns: frozenset[ColumnUse]) -> bool:
    """True when the columns are one dataset's whole primary key."""
    datasets = {c.dataset for c in columns}
    if len(datasets) != 1:
        return False
    found = model.dataset(next(iter(datasets)))
    key = set(primary_key(found)) if found is not None else set()
    return bool(key) and {c.field for c in columns} == key


def _equivalent(
    model: SemanticModel, wanted: str, function: str, columns: frozenset[ColumnUse]
) -> bool:
    if wanted == function:
        return True
    # Over a primary key, COUNT and COUNT(DISTINCT) are one count (the compiler's fan-out fix).
    return {wanted, function} == {"count", "count_distinct"} and _is_key(model, columns)


def _counts_rows(
    model: SemanticModel, measure: ExpectedMeasure, function: str, columns: frozenset[ColumnUse]
) -> bool:
    if function == "count" and not columns:
        return True
    return (
        function in ("count", "count_distinct")
        and _is_key(model, columns)
        and next(iter(columns)).dataset == measure.dataset
    )


def wrong_aggregate(facts: SqlFacts, expect: Expectations, model: SemanticModel) -> list[str]:
    """Aggregations other than the measure's definition (AVG for a sum, COUNT for a
    COUNT DISTINCT, ...)."""
    problems = []
    aggregates = facts.aggregates
    for measure in expect.measures:
        if measure.counts_rows:
            if not aggregates or any(
                a.counts_rows or _counts_rows(model, measure, a.function, a.columns)
                for a in aggregates
            ):
                continue
            used = ", ".join(sorted({a.function.upper() for a in aggregates}))
            problems.append(f"The plan counts {measure.dataset} rows, but the SQL uses {used}.")
            continue
        if not measure.columns:
            continue
        same = [a for a in aggregates if a.columns == measure.columns]
        if not same or any(
            _equivalent(model, measure.function, a.function, a.columns) for a in same
        ):
            continue
        used = ", ".join(sorted({a.function.upper() for a in same}))
        problems.append(
            f"{measure.label} is defined as {measure.function.upper()}, but the SQL uses {used}."
        )
    return list(dict.fromkeys(problems))


SQL_CHECKS: tuple[tuple[str, SqlCheck], ...] = (
    ("unknown_column", unknown_column),
    ("join_key", join_key),
    ("fan_out", fan_out),
    ("null_key_loss", null_key_loss),
    ("dropped_filter", dropped_filter),
    ("grain", grain),
    ("wrong_aggregate", wrong_aggregate),
)
SQL_CHECKS_NAMES: tuple[str, ...] = tuple(name for name, _ in SQL_CHECKS)


# --- over the results ------------------------------------------------------------------------


def empty_result(result: SqlResult) -> list[str]:
    """No rows."""
    if result.rows or result.row_count:
        return []
    return ["The query returned no rows: the datasets, joins or filters match nothing."]


def _grain_columns(facts: SqlFacts, result: SqlResult, grain: frozenset[ColumnUse]) -> list[int]:
    root = facts.root
    if root is None or len(root.projections) != len(result.columns) or not grain:
        return []
    positions = [
        i
        for i, (_, uses, is_aggregate) in enumerate(root.projections)
        if not is_aggregate and uses and uses <= grain
    ]
    covered = {u for i in positions for u in root.projections[i][1]}
    return positions if covered == grain else []


def duplicate_rows(facts: SqlFacts, expect: Expectations, result: SqlResult) -> list[str]:
    """More than one row for one value of the grain."""
    grain_ = expect.grain if expect.grain is not None else facts.grain
    if grain_ is None:
        return []
    positions = _grain_columns(facts, result, grain_)
    if not positions:
        return []
    keys = Counter(tuple(repr(row[i]) for i in positions) for row in result.rows)
    repeated = sum(1 for n in keys.values() if n > 1)
    if not repeated:
        return []
    names = ", ".join(result.columns[i] for i in positions)
    return [f"{repeated} value(s) of the grain ({names}) appear on more than one row."]


def _total(result: SqlResult, column: str) -> float | None:
    if column not in result.columns or result.truncated:
        return None
    i = result.columns.index(column)
    values = [row[i] for row in result.rows]
    if any(v is not None and not isinstance(v, int | float) for v in values):
        return None
    return float(sum(v for v in values if v is not None))


def totals_disagree(
    steps: Sequence[tuple[Expectations, SqlResult]],
) -> list[tuple[int | None, str]]:
    """Totals of the same measure, under the same filters, that differ between steps."""
    seen: dict[tuple[object, ...], tuple[int | None, str, float]] = {}
    problems: list[tuple[int | None, str]] = []
    for expect, result in steps:
        if expect.source != "plan" or not expect.complete:
            continue
        for measure in expect.measures:
            if measure.output is None or measure.function not in ("sum", "count"):
                continue
            total = _total(result, measure.output)
            if total is None:
                continue
            key = (
                measure.function,
                measure.columns,
                measure.dataset,
                measure.label,
                frozenset(expect.filters),
            )
            if key not in seen:
                seen[key] = (expect.step_id, measure.output, total)
                continue
            first_step, first_output, first = seen[key]
            if abs(total - first) > max(1e-6, 0.005 * max(abs(total), abs(first))):
                problems.append(
                    (
                        expect.step_id,
                        f"The total of {measure.label} is {total:g} in step {expect.step_id} "
                        f"but {first:g} in step {first_step} ({first_output}).",
                    )
                )
    return problems


# --- one step --------------------------------------------------------------------------------


def _checks(name: str, problems: list[str], step_id: int | None) -> list[Check]:
    if not problems:
        return [Check(name=name, passed=True, message=PASSED[name], step_id=step_id)]
    return [
        Check(name=name, passed=False, message=p, step_id=step_id, target=TARGETS[name])
        for p in problems
    ]


def run_checks(
    sql: str,
    expect: Expectations,
    model: SemanticModel,
    result: SqlResult | None = None,
) -> tuple[list[Check], list[str]]:
    """Every deterministic check of one step's SQL (and rows, when it ran): the checks, and
    caveats about what could not be checked."""
    facts = read_sql(sql, model)
    step_id = expect.step_id
    caveats = [f"Step {step_id}: {note}" for note in expect.notes]
    checks: list[Check] = []
    if facts.error is not None:
        # What made the SQL unreadable may be the unknown column itself: that is still found.
        if facts.unknown:
            checks += _checks("unknown_column", unknown_column(facts, expect, model), step_id)
        caveats.append(f"Step {step_id}: {facts.error}; its SQL was not checked further.")
    else:
        for name, check in SQL_CHECKS:
            checks += _checks(name, check(facts, expect, model), step_id)
    if result is not None:
        checks += _checks("empty_result", empty_result(result), step_id)
        if facts.error is None:
            checks += _checks("duplicate_rows", duplicate_rows(facts, expect, result), step_id)
    return checks, caveats
