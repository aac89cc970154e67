"""Execution accuracy: is a predicted result the gold one? As Spider and BIRD compare them.

Pure module: result sets in, an outcome out. The rules (docs/cli.md#how-answers-are-scored):

* **Rows are a multiset.** Duplicates count; order does not, unless the gold query orders
  its rows (a top-level `ORDER BY`), and then the rows must come in the gold order.
* **Columns are matched by their values, not their names or places.** Each gold column
  must be found among the predicted columns (each predicted column used once); extra
  predicted columns are allowed, as BIRD's and defog's relaxed comparisons allow them (a
  label beside the value, the previous period beside this one). The row count must match.
* **Values compare by value.** Numbers (ints, floats, decimals, booleans as 0/1, numeric
  text) are equal when they agree to `DECIMALS` decimal places or within a relative
  tolerance of `REL_TOL`; text dates and timestamps equal the dates and datetimes they
  spell (midnight is the date itself); NULL equals NULL and nothing else; other text is
  compared exactly, after trimming spaces.
* **Alternatives.** A question may have several gold queries; matching any is correct.
* **Abstentions.** Abstaining on an answerable question is `abstained`; on a question
  marked `answerable: false` it is `correct`, and answering one is `wrong`.
"""

from __future__ import annotations

import datetime as dt
import decimal
import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any, Literal

import sqlglot
from sqlglot import exp

from dataagent.dialects import sqlglot_name

Outcome = Literal["correct", "wrong", "abstained", "error"]
OUTCOMES: tuple[Outcome, ...] = ("correct", "wrong", "abstained", "error")

DECIMALS = 4
REL_TOL = 1e-6
# Above this many gold x predicted column assignments, stop searching (none is correct).
MAX_ASSIGNMENTS = 50_000

Value = None | float | str | dt.date | dt.datetime


@dataclass(frozen=True)
class ResultSet:
    """Columns and rows of one query's result."""

    columns: list[str]
    rows: list[Sequence[Any]]

    @property
    def width(self) -> int:
        """The number of columns (of the first row when no names are given)."""
        if self.columns:
            return len(self.columns)
        return len(self.rows[0]) if self.rows else 0


@dataclass(frozen=True)
class Gold:
    """One acceptable answer: its SQL, and the rows it returned (or why it failed)."""

    sql: str
    result: ResultSet | None = None
    error: str | None = None


@dataclass(frozen=True)
class Prediction:
    """What the agent answered: its result, or an abstention, or an error."""

    result: ResultSet | None = None
    abstained: bool = False
    error: str | None = None


@dataclass(frozen=True)
class Score:
    """The outcome and, for `wrong` or `error`, why."""

    outcome: Outcome
    reason: str = ""
    matched_gold: int | None = None  # which gold (0: gold_sql, 1..: alternatives)
    notes: list[str] = field(default_factory=list)


# --- values -------------------------------------------------------------------------------


def normalise(value: Any) -> Value:
    """A value in comparable form: a float, a date or datetime, trimmed text, or None."""
    if value is None:
        return None
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, int | float | decimal.Decimal):
        number = float(value)
        return None if math.isnan(number) else number
    if isinstance(value, dt.datetime):
        naive = value.replace(tzinfo=None)
        return naive.date() if naive.time() == dt.time() else naive
    if isinstance(value, dt.date):
        return value
    if isinstance(value, bytes):
        return value.hex()
    text = str(value).strip()
    return _from_text(text)


def _from_text(text: str) -> Value:
    """Numeric text as a number, ISO date or timestamp text as a date or datetime."""
    if not text:
        return text
    if text[0].isdigit() or text[0] in "+-.":
        try:
            number = float(text)
        except ValueError:
            pass
        else:
            if math.isfinite(number):
                return number
        if len(text) >= 10 and text[4] == "-" and text[7] == "-":
            try:
                moment = dt.datetime.fromisoformat(text)
            except ValueError:
                return text
            return normalise(moment)
    return text


def values_equal(a: Value, b: Value) -> bool:
    """Equal under the rules: numbers with tolerance, others exactly (NULL equals NULL)."""
    if isinstance(a, float) and isinstance(b, float):
        if round(a, DECIMALS) == round(b, DECIMALS):
            return True
        return math.isclose(a, b, rel_tol=REL_TOL, abs_tol=0.0)
    if isinstance(a, float) or isinstance(b, float):
        return False
    return type(a) is type(b) and a == b


def _sort_key(value: Value) -> tuple[int, Any]:
    """A total order over normalised values; numbers rounded so close ones sort together."""
    if value is None:
        return (0, 0)
    if isinstance(value, float):
        return (1, round(value, DECIMALS - 1))
    if isinstance(value, dt.datetime):
        return (3, value.isoformat())
    if isinstance(value, dt.date):
        return (2, value.isoformat())
    return (4, value)


# --- result sets --------------------------------------------------------------------------


def _columns(result: ResultSet) -> list[list[Value]]:
    """The result's values column by column, normalised."""
    width = result.width
    return [[normalise(row[i]) for row in result.rows] for i in range(width)]


def _same_multiset(a: list[Value], b: list[Value]) -> bool:
    if len(a) != len(b):
        return False
    return all(
        values_equal(x, y)
        for x, y in zip(sorted(a, key=_sort_key), sorted(b, key=_sort_key), strict=True)
    )


def _rows_match(
    gold: list[tuple[Value, ...]], predicted: list[tuple[Value, ...]], ordered: bool
) -> bool:
    if len(gold) != len(predicted):
        return False
    if not ordered:

        def key(row: tuple[Value, ...]) -> tuple[tuple[int, Any], ...]:
            return tuple(_sort_key(v) for v in row)

        gold, predicted = sorted(gold, key=key), sorted(predicted, key=key)
    return all(
        all(values_equal(x, y) for x, y in zip(g, p, strict=True))
        for g, p in zip(gold, predicted, strict=True)
    )


def results_match(gold: ResultSet, predicted: ResultSet, *, ordered: bool) -> bool:
    """Whether `predicted` holds the gold result: the same rows (in order when `ordered`),
    each gold column matched by its values to a distinct predicted column."""
    if len(gold.rows) != len(predicted.rows):
        return False
    gold_columns, predicted_columns = _columns(gold), _columns(predicted)
    if len(gold_columns) > len(predicted_columns):
        return False
    if not gold.rows:
        return True
    # Candidates: predicted columns holding the same multiset of values as the gold column.
    candidates = [
        [i for i, column in enumerate(predicted_columns) if _same_multiset(g, column)]
        for g in gold_columns
    ]
    if any(not found for found in candidates):
        return False
    gold_rows = list(zip(*gold_columns, strict=True))
    tried = 0
    for assignment in itertools.product(*candidates):
        if len(set(assignment)) != len(assignment):
            continue
        tried += 1
        if tried > MAX_ASSIGNMENTS:
            return False
        predicted_rows = list(zip(*(predicted_columns[i] for i in assignment), strict=True))
        if _rows_match(gold_rows, predicted_rows, ordered):
            return True
    return False


@cache
def gold_orders_rows(sql: str, dialect: str = "sqlite") -> bool:
    """Whether the query's outermost SELECT (or set operation) has an ORDER BY, so the
    order of its rows is part of the answer. A query that does not parse: False."""
    try:
        tree = sqlglot.parse_one(sql, read=sqlglot_name(dialect))
    except (sqlglot.errors.ParseError, sqlglot.errors.TokenError):
        return False
    return isinstance(tree, exp.Query) and tree.args.get("order") is not None


def score(
    golds: Sequence[Gold],
    prediction: Prediction,
    *,
    answerable: bool = True,
    dialect: str = "sqlite",
) -> Score:
    """The outcome of one question: the prediction against every acceptable gold."""
    if not answerable:
        if prediction.abstained:
            return Score("correct", "abstained on an unanswerable question")
        if prediction.error is not None:
            return Score("error", prediction.error)
        return Score("wrong", "answered a question marked unanswerable")
    if prediction.abstained:
        return Score("abstained")
    if prediction.error is not None or prediction.result is None:
        return Score("error", prediction.error or "no result")
    usable = [(i, g) for i, g in enumerate(golds) if g.result is not None]
    if not usable:
        reasons = "; ".join(g.error or "no result" for g in golds)
        return Score("error", f"the gold query failed: {reasons}")
    for index, gold in usable:
        assert gold.result is not None
        if results_match(
            gold.result, prediction.result, ordered=gold_orders_rows(gold.sql, dialect)
        ):
            return Score("correct", matched_gold=index)
    first = usable[0][1].result
    assert first is not None
    return Score("wrong", _difference(first, prediction.result))


def _difference(gold: ResultSet, predicted: ResultSet) -> str:
    """A short sentence on how the prediction differs from the (first) gold result."""
    if len(gold.rows) != len(predicted.rows):
        return f"{len(predicted.rows)} rows where the gold query returns {len(gold.rows)}"
    if gold.width > predicted.width:
        return f"{predicted.width} columns where the gold query returns {gold.width}"
    return "the values differ from the gold query's"
