"""The function calls a re-generated statement makes, checked as sqlglot writes them.

Pure: sqlglot and the allow-lists only. What reaches the database is the SQL sqlglot generates
from the approved tree, so the names checked are the names written: every name that passes
through the generator's `func` (which `rename_func`, `function_fallback_sql` and anonymous
calls all go through), then every name token directly followed by `(` in the finished text,
which also catches calls a generator writes with an f-string. A name followed by `(` that is
not a call is a table or CTE alias with a column list or a type with parameters
(`DECIMAL(10, 2)`), both counted as the generator writes them so that each exempts one
occurrence, or a grammar keyword (`IN (`, `OVER (`).
"""

from __future__ import annotations

import functools
import itertools
import re
from collections import Counter
from dataclasses import dataclass
from typing import Any, Final

from sqlglot import exp
from sqlglot.dialects.dialect import Dialect as SqlglotDialect
from sqlglot.errors import ErrorLevel
from sqlglot.generator import Generator
from sqlglot.tokens import TokenType

from dataagent.dialects import SQLGLOT_DIALECT, Dialect
from dataagent.sources.functions import is_allowed_function, is_table_function, refusal_reason

# Keywords a generator writes directly before "(" that never call anything.
NOT_CALLS: Final[frozenset[str]] = frozenset(
    re.findall(
        r"\w+",
        """AND AS BETWEEN BY CASE COLUMNS CUBE DISTINCT ELSE ESCAPE EXCEPT EXCLUDE FILTER FOR FROM
        GROUP HAVING ILIKE IN INTERSECT IS JOIN LATERAL LIKE LIMIT NESTED NOT OFFSET ON OR OVER
        PARTITION QUALIFY RECURSIVE RENAME ROLLUP SELECT SETS THEN UNION USING VALUES WHEN WHERE
        WINDOW WITH WITHIN""",
    )
)

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_$]*")
_QUOTED = re.compile(r'^(["`])(.*)\1$', re.DOTALL)


class RefusedCall(Exception):
    """A call the allow-list refuses; `reason` is the sentence for the person."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class Rendered:
    """A statement as the database will receive it, and the functions it calls."""

    sql: str
    calls: tuple[str, ...]


def check_call(name: str, dialect: Dialect) -> str:
    """The lower-cased name of an allowed call; RefusedCall for anything else."""
    match = _QUOTED.match(name)
    plain = match.group(2).replace(match.group(1) * 2, match.group(1)) if match else name
    lowered = plain.lower()
    if not _WORD.fullmatch(plain):
        raise RefusedCall(f"function {lowered}() is not allowed: call functions by plain name.")
    if not is_allowed_function(lowered, dialect):
        raise RefusedCall(f"{refusal_reason(lowered, dialect)}.")
    return lowered


def render(expression: exp.Expr, dialect: Dialect) -> Rendered:
    """Generate `expression` for `dialect`, refusing (RefusedCall) any name not allowed."""
    generator = _checking_generator(dialect)
    sql = generator.generate(expression)
    calls = [*generator.calls, *calls_in_text(sql, dialect, generator.not_calls)]
    return Rendered(sql, tuple(dict.fromkeys(calls)))


def written_name(node: exp.Func, dialect: Dialect) -> str:
    """The name a function node is written as in `dialect` (what its SQL starts with)."""
    if isinstance(node, exp.Anonymous):
        return node.name.lower()
    sql = render(node, dialect).sql
    match = _WORD.match(sql)
    return (match.group(0) if match else sql).lower()


def calls_in_text(sql: str, dialect: Dialect, not_calls: Counter[str]) -> list[str]:
    """The calls in generated SQL: each name token followed by "(" must be an allowed function,
    a grammar keyword, or one of `not_calls` (aliases with column lists and types with
    parameters, as written; each exempts one occurrence)."""
    tokens = SqlglotDialect.get_or_raise(SQLGLOT_DIALECT[dialect]).tokenize(sql)
    exempt = Counter(not_calls)
    calls: list[str] = []
    for token, following in itertools.pairwise(tokens):
        if following.token_type != TokenType.L_PAREN:
            continue
        if token.token_type != TokenType.IDENTIFIER and (
            not _WORD.fullmatch(token.text) or token.text.upper() in NOT_CALLS
        ):
            continue
        name = token.text.lower()
        if exempt[name] > 0:
            exempt[name] -= 1
        elif is_allowed_function(name, dialect) or is_table_function(name, dialect):
            calls.append(name)
        else:
            raise RefusedCall(f"{refusal_reason(name, dialect)}.")
    return calls


class _CallChecks:
    """Mixed into a dialect's generator: checks names as `func` writes them."""

    product_dialect: Dialect

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.calls: list[str] = []
        self.not_calls: Counter[str] = Counter()  # names written before "(" that call nothing

    def func(self, name: str, *args: Any, **kwargs: Any) -> str:
        self.calls.append(check_call(name, self.product_dialect))
        return super().func(name, *args, **kwargs)  # type: ignore[misc]

    def tablealias_sql(self, expression: exp.TableAlias) -> str:
        sql: str = super().tablealias_sql(expression)  # type: ignore[misc]
        self._count_name_before_paren(sql)  # g(n), "r"(a, b)
        return sql

    def datatype_sql(self, expression: exp.DataType) -> str:
        sql: str = super().datatype_sql(expression)  # type: ignore[misc]
        self._count_name_before_paren(sql)  # DECIMAL(10, 2), STRUCT(a INT)
        return sql

    def _count_name_before_paren(self, sql: str) -> None:
        head = sql.split("(", 1)[0].strip() if "(" in sql else ""
        match = _QUOTED.match(head)
        name = (match.group(2) if match else head.split()[-1] if head else "").lower()
        if name:
            self.not_calls[name] += 1


@functools.cache
def _checking_class(dialect: Dialect) -> type[Generator]:
    base = SqlglotDialect.get_or_raise(SQLGLOT_DIALECT[dialect]).generator_class
    return type(f"Checked{base.__name__}", (_CallChecks, base), {"product_dialect": dialect})


def _checking_generator(dialect: Dialect) -> Any:
    return _checking_class(dialect)(
        dialect=SQLGLOT_DIALECT[dialect],
        comments=False,
        normalize_functions=False,
        unsupported_level=ErrorLevel.RAISE,
    )
