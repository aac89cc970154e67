"""The sharing benchmark's arguments, the callers' turns and its summary maths."""

from __future__ import annotations

import pytest
from benchmarks.sharing_bench import (
    CALLERS,
    Sample,
    callers_in_round,
    parse_arguments,
    ratio,
    summarize,
)


def test_rounds_default_to_30_and_at_least_one_is_asked() -> None:
    assert parse_arguments([]).rounds == 30
    assert parse_arguments(["--rounds", "5"]).rounds == 5
    assert parse_arguments([]).database_url is None
    with pytest.raises(SystemExit):
        parse_arguments(["--rounds", "0"])


def test_each_round_turns_the_callers_by_one() -> None:
    assert callers_in_round(0) == ("owner", "direct", "group")
    assert callers_in_round(1) == ("direct", "group", "owner")
    assert callers_in_round(2) == ("group", "owner", "direct")
    assert callers_in_round(3) == callers_in_round(0)
    assert all(sorted(callers_in_round(n)) == sorted(CALLERS) for n in range(6))


def test_ratio_is_a_grantee_p50_over_the_owners() -> None:
    assert ratio(12.0, 10.0) == 1.2
    assert ratio(9.0, 12.0) == 0.75
    assert ratio(None, 10.0) is None
    assert ratio(10.0, None) is None
    assert ratio(10.0, 0.0) is None


def test_the_summary_keeps_answered_requests_and_compares_grantees_with_the_owner() -> None:
    samples = [
        *(Sample("get", "owner", True, ms) for ms in (10.0, 20.0, 30.0)),
        *(Sample("get", "direct", True, ms) for ms in (15.0, 25.0, 35.0)),
        *(Sample("get", "group", True, ms) for ms in (20.0, 30.0, 40.0)),
        Sample("get", "group", False, 900.0),  # failed: counted, never timed
    ]
    summary = summarize(samples)
    assert list(summary) == ["get"]  # paths without samples are left out
    get = summary["get"]
    assert get["route"] == "GET /api/ontologies/{id}"
    assert get["callers"]["owner"] == {"answered": "3/3", "p50_ms": 20.0, "p90_ms": 28.0}
    assert get["callers"]["group"] == {"answered": "3/4", "p50_ms": 30.0, "p90_ms": 38.0}
    assert get["ratio_p50"] == {"direct": 1.25, "group": 1.5}
    assert get["extra_p50_ms"] == {"direct": 5.0, "group": 10.0}


def test_a_caller_with_no_answer_has_no_figures_and_no_ratio() -> None:
    samples = [Sample("query", "owner", True, 50.0), Sample("query", "direct", False, 5.0)]
    query = summarize(samples)["query"]
    assert query["callers"]["direct"] == {"answered": "0/1", "p50_ms": None, "p90_ms": None}
    assert query["callers"]["group"]["answered"] == "0/0"
    assert query["ratio_p50"] == {"direct": None, "group": None}
    assert query["extra_p50_ms"] == {"direct": None, "group": None}
