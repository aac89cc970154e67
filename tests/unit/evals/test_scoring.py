"""The scoring rules of `dataagent eval`: rows as a multiset, order when the gold orders,
columns matched by values, floats with tolerance, NULLs, dates by value, alternatives and
abstentions."""

from __future__ import annotations

import datetime as dt
import decimal

import pytest

from dataagent.evals.scoring import (
    Gold,
    Prediction,
    ResultSet,
    gold_orders_rows,
    normalise,
    results_match,
    score,
)


def rs(*rows: tuple[object, ...], columns: list[str] | None = None) -> ResultSet:
    width = len(rows[0]) if rows else 0
    return ResultSet(columns or [f"c{i}" for i in range(width)], list(rows))


def answered(result: ResultSet) -> Prediction:
    return Prediction(result=result)


UNORDERED = "SELECT region, SUM(x) FROM t GROUP BY region"
ORDERED = "SELECT region, SUM(x) AS s FROM t GROUP BY region ORDER BY s DESC"


def test_rows_compare_in_any_order_unless_the_gold_orders_them() -> None:
    gold = rs(("West", 3), ("South", 2))
    swapped = rs(("South", 2), ("West", 3))
    assert score([Gold(UNORDERED, gold)], answered(swapped)).outcome == "correct"
    assert score([Gold(ORDERED, gold)], answered(swapped)).outcome == "wrong"
    assert score([Gold(ORDERED, gold)], answered(gold)).outcome == "correct"


def test_only_the_outermost_order_by_counts() -> None:
    assert gold_orders_rows(ORDERED)
    assert not gold_orders_rows(UNORDERED)
    windowed = (
        "WITH r AS (SELECT g, v, ROW_NUMBER() OVER (PARTITION BY g ORDER BY v DESC) AS k "
        "FROM t) SELECT g, v FROM (SELECT * FROM r ORDER BY v) WHERE k = 1"
    )
    assert not gold_orders_rows(windowed)
    assert gold_orders_rows("SELECT a FROM t UNION SELECT a FROM u ORDER BY a")


def test_a_gold_query_is_read_in_the_product_dialect_of_its_database() -> None:
    postgres = "SELECT name FROM author ORDER BY citations DESC NULLS LAST"
    assert gold_orders_rows(postgres, "postgresql")
    assert gold_orders_rows(postgres, "postgres")
    assert not gold_orders_rows("SELECT name FROM author", "postgresql")
    assert not gold_orders_rows("SELECT 'unterminated FROM t", "postgresql")
    assert not gold_orders_rows("not sql at all (")


def test_duplicates_matter() -> None:
    gold = rs((1,), (1,), (2,))
    assert results_match(gold, rs((1,), (2,), (1,)), ordered=False)
    assert not results_match(gold, rs((1,), (2,), (2,)), ordered=False)
    assert not results_match(gold, rs((1,), (2,)), ordered=False)


def test_floats_agree_to_four_decimals_or_a_relative_tolerance() -> None:
    assert results_match(
        rs(
            (0.12344,),
        ),
        rs(
            (0.123436,),
        ),
        ordered=False,
    )
    assert not results_match(
        rs(
            (0.1234,),
        ),
        rs(
            (0.1236,),
        ),
        ordered=False,
    )
    # Large sums added up in another order differ in the last bits only.
    assert results_match(
        rs(
            (1406640.122999908,),
        ),
        rs(
            (1406640.1230001,),
        ),
        ordered=False,
    )
    assert results_match(
        rs(
            (123456789.0,),
        ),
        rs(
            (123456789.05,),
        ),
        ordered=False,
    )
    assert not results_match(
        rs(
            (123456789.0,),
        ),
        rs(
            (123457789.0,),
        ),
        ordered=False,
    )
    assert results_match(
        rs(
            (3,),
        ),
        rs(
            (decimal.Decimal("3.00"),),
        ),
        ordered=False,
    )
    assert results_match(
        rs(
            (3,),
        ),
        rs(
            ("3.0",),
        ),
        ordered=False,
    )
    assert results_match(
        rs(
            (1,),
        ),
        rs(
            (True,),
        ),
        ordered=False,
    )


def test_null_equals_null_only() -> None:
    assert results_match(
        rs(
            ("a", None),
        ),
        rs(
            ("a", None),
        ),
        ordered=False,
    )
    assert not results_match(
        rs(
            ("a", None),
        ),
        rs(
            ("a", 0),
        ),
        ordered=False,
    )
    assert not results_match(
        rs(
            ("a", None),
        ),
        rs(
            ("a", ""),
        ),
        ordered=False,
    )
    assert normalise(float("nan")) is None


def test_dates_compare_by_value() -> None:
    assert results_match(
        rs(
            ("2025-01-01", 5),
        ),
        rs(
            (dt.date(2025, 1, 1), 5),
        ),
        ordered=False,
    )
    assert results_match(
        rs(
            ("2025-01-01",),
        ),
        rs(
            (dt.datetime(2025, 1, 1, 0, 0),),
        ),
        ordered=False,
    )
    assert results_match(
        rs(
            ("2025-01-01",),
        ),
        rs(
            ("2025-01-01 00:00:00",),
        ),
        ordered=False,
    )
    assert results_match(
        rs(
            ("2025-03-04 10:11:12",),
        ),
        rs(
            (dt.datetime(2025, 3, 4, 10, 11, 12),),
        ),
        ordered=False,
    )
    assert not results_match(
        rs(
            ("2025-01-01",),
        ),
        rs(
            ("2025-01-02",),
        ),
        ordered=False,
    )


def test_columns_match_by_values_in_any_place_and_extra_columns_are_allowed() -> None:
    gold = rs((10.0,), (20.0,), columns=["revenue"])
    with_labels = rs(("West", 20.0, 0.66), ("South", 10.0, 0.33), columns=["r", "rev", "share"])
    assert score([Gold(UNORDERED, gold)], answered(with_labels)).outcome == "correct"
    # Two gold columns must map to two distinct predicted columns.
    assert not results_match(
        rs(
            (1, 1),
        ),
        rs(
            (1,),
        ),
        ordered=False,
    )
    assert results_match(
        rs(
            (1, 2),
        ),
        rs(
            (2, 1),
        ),
        ordered=False,
    )
    # Columns match row by row, not each column on its own.
    gold_pairs = rs(("a", 1), ("b", 2))
    crossed = rs(("a", 2), ("b", 1))
    assert not results_match(gold_pairs, crossed, ordered=False)


def test_a_missing_gold_column_or_another_row_count_is_wrong() -> None:
    gold = rs(("West", 3.0), ("South", 2.0))
    result = score([Gold(UNORDERED, gold)], answered(rs(("West",), ("South",))))
    assert result.outcome == "wrong"
    result = score([Gold(UNORDERED, gold)], answered(rs(("West", 3.0))))
    assert (result.outcome, result.reason) == (
        "wrong",
        "1 rows where the gold query returns 2",
    )


def test_any_alternative_may_match() -> None:
    golds = [
        Gold("SELECT COUNT(*) FROM customers", rs((4000,))),
        Gold("SELECT COUNT(DISTINCT customer_id) FROM orders", rs((3700,))),
    ]
    result = score(golds, answered(rs((3700,))))
    assert (result.outcome, result.matched_gold) == ("correct", 1)
    assert score(golds, answered(rs((3999,)))).outcome == "wrong"


def test_a_failed_alternative_is_skipped_and_all_failing_is_an_error() -> None:
    golds = [Gold("SELECT broken", error="no such column"), Gold("SELECT 1", rs((1,)))]
    assert score(golds, answered(rs((1,)))).outcome == "correct"
    result = score([Gold("SELECT broken", error="no such column")], answered(rs((1,))))
    assert result.outcome == "error"
    assert "no such column" in result.reason


@pytest.mark.parametrize(
    ("answerable", "prediction", "outcome"),
    [
        (True, Prediction(abstained=True), "abstained"),
        (False, Prediction(abstained=True), "correct"),
        (False, Prediction(result=rs((1,))), "wrong"),
        (True, Prediction(error="RUNNER_TIMEOUT: too slow"), "error"),
        (False, Prediction(error="boom"), "error"),
        (True, Prediction(), "error"),
    ],
)
def test_abstentions_and_errors(answerable: bool, prediction: Prediction, outcome: str) -> None:
    golds = [Gold("SELECT 1", rs((1,)))] if answerable else []
    assert score(golds, prediction, answerable=answerable).outcome == outcome


def test_empty_results_match_each_other() -> None:
    empty = ResultSet(["a"], [])
    assert score([Gold("SELECT a FROM t WHERE 0", empty)], answered(empty)).outcome == "correct"
    assert score([Gold("SELECT a FROM t WHERE 0", empty)], answered(rs((1,)))).outcome == "wrong"
