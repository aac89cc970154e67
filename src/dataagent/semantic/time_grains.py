"""How each dialect truncates time to a grain (day, week, month, quarter, year).

Pure module. Time grains are written once per dialect as SQL templates over a placeholder
column, parsed with sqlglot and filled in as expression trees, so no value is ever pasted
into SQL text. Every grain yields the first day of its period as a DATE (text
`YYYY-MM-DD` in SQLite); weeks start on Monday in every dialect.
"""

from __future__ import annotations

from functools import cache

import sqlglot
from sqlglot import exp

_PLACEHOLDER = "__grain_input__"
_TRUNC = "CAST(DATE_TRUNC('{grain}', __grain_input__) AS DATE)"
_GRAIN_TEMPLATES: dict[str, dict[str, str]] = {
    "postgres": {g: _TRUNC.format(grain=g) for g in ("day", "week", "month", "quarter", "year")},
    "duckdb": {g: _TRUNC.format(grain=g) for g in ("day", "week", "month", "quarter", "year")},
    "sqlite": {
        "day": "DATE(__grain_input__)",
        # 'weekday 0' moves forward to Sunday (or stays on it); 6 days back is that Monday.
        "week": "DATE(__grain_input__, 'weekday 0', '-6 days')",
        "month": "DATE(__grain_input__, 'start of month')",
        "quarter": (
            "DATE(__grain_input__, 'start of month', '-' || "
            "((CAST(STRFTIME('%m', __grain_input__) AS INTEGER) - 1) % 3) || ' months')"
        ),
        "year": "DATE(__grain_input__, 'start of year')",
    },
    "mysql": {
        "day": "DATE(__grain_input__)",
        "week": "DATE_SUB(DATE(__grain_input__), INTERVAL WEEKDAY(__grain_input__) DAY)",
        "month": "DATE_SUB(DATE(__grain_input__), INTERVAL DAYOFMONTH(__grain_input__) - 1 DAY)",
        "quarter": (
            "DATE_ADD(MAKEDATE(YEAR(__grain_input__), 1), "
            "INTERVAL QUARTER(__grain_input__) - 1 QUARTER)"
        ),
        "year": "MAKEDATE(YEAR(__grain_input__), 1)",
    },
}


@cache
def _template(dialect: str, grain: str) -> exp.Expr:
    return sqlglot.parse_one(_GRAIN_TEMPLATES[dialect][grain], read=dialect)


def truncate(value: exp.Expr, grain: str, dialect: str) -> exp.Expr:
    """`value` truncated to the start of its `grain` period, in sqlglot `dialect`."""

    def fill(node: exp.Expr) -> exp.Expr:
        if isinstance(node, exp.Column) and node.name == _PLACEHOLDER:
            return value.copy()
        return node

    return _template(dialect, grain).copy().transform(fill)
