"""The SQL guard: parse one statement with sqlglot and refuse anything but a plain read query.

Pure: imports sqlglot and the error taxonomy only. The executor runs the statement the guard
*re-generates* from the approved syntax tree (comments dropped), never the text it was given,
so what reaches the database is exactly what was checked. Functions are checked against a
per-dialect allow-list (`sources/functions.py`) on the tree and again as the SQL is written
(`sources/calls.py`).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field

import sqlglot
from sqlglot import exp
from sqlglot.errors import ErrorLevel, ParseError, SqlglotError
from sqlglot.tokens import Token

from dataagent.dialects import SQLGLOT_DIALECT, Dialect, normalize_dialect
from dataagent.errors import DataAgentError, ErrorCode
from dataagent.sources.calls import RefusedCall, Rendered, check_call, render, written_name
from dataagent.sources.functions import is_table_function
from dataagent.sources.policy import (
    DEFAULT_SCHEMAS,
    OBJECT_IDENTIFIER_TYPES,
    SYSTEM_SCHEMAS,
    SYSTEM_TABLE_PREFIXES,
    looks_like_file,
)

MAX_SQL_CHARS = 100_000
WRAP_ALIAS = "_da_q"

# Statements (and clauses) that may appear nowhere in a query, with the word a reason uses.
_FORBIDDEN_NODES: dict[type[exp.Expr], str] = {
    exp.Insert: "INSERT",
    exp.Update: "UPDATE",
    exp.Delete: "DELETE",
    exp.Merge: "MERGE",
    exp.Copy: "COPY",
    exp.LoadData: "LOAD DATA",
    exp.Create: "CREATE",
    exp.Drop: "DROP",
    exp.Alter: "ALTER",
    exp.TruncateTable: "TRUNCATE",
    exp.Command: "a command",
    exp.Attach: "ATTACH",
    exp.Detach: "DETACH",
    exp.Pragma: "PRAGMA",
    exp.Install: "INSTALL",
    exp.Set: "SET",
    exp.Use: "USE",
    exp.Transaction: "BEGIN",
    exp.Commit: "COMMIT",
    exp.Rollback: "ROLLBACK",
    exp.Kill: "KILL",
    exp.Grant: "GRANT",
    exp.Revoke: "REVOKE",
    exp.Analyze: "ANALYZE",
    exp.Describe: "DESCRIBE",
    exp.Summarize: "SUMMARIZE",
    exp.Show: "SHOW",
    exp.Comment: "COMMENT",
    exp.Export: "EXPORT",
    exp.Execute: "EXECUTE",
    exp.Declare: "DECLARE",
    exp.Cache: "CACHE",
    exp.Uncache: "UNCACHE",
    exp.Refresh: "REFRESH",
    exp.NextValueFor: "NEXT VALUE FOR (it advances a sequence)",
}

# PostgreSQL's bare words for who and where a query runs (SQL value functions written without
# parentheses, so no allow-list sees them as calls): session_user and system_user name the
# connection's account, current_user the role a share runs under, current_catalog the
# database. A person asking through a shared ontology may learn none of these.
_PG_ACCOUNT_NODES: tuple[type[exp.Expr], ...] = (
    exp.CurrentUser,
    exp.SessionUser,
    exp.CurrentCatalog,
)
_PG_ACCOUNT_WORDS = frozenset(
    {"current_user", "session_user", "user", "current_role", "system_user", "current_catalog"}
)


@dataclass(frozen=True)
class TableRef:
    """A table a query reads, as written (lower-cased); CTE references are not tables."""

    name: str
    schema: str | None = None
    catalog: str | None = None

    @property
    def qualified(self) -> str:
        """The dotted name, as qualified as it was written."""
        return ".".join(p for p in (self.catalog, self.schema, self.name) if p)


@dataclass(frozen=True)
class GuardResult:
    """An approved statement: its syntax tree, the tables it reads and the functions it calls."""

    dialect: Dialect
    expression: exp.Expr
    tables: tuple[TableRef, ...] = ()
    functions: tuple[str, ...] = field(default=())

    def sql(self) -> str:
        """The approved statement, re-generated from the tree (no comments)."""
        return _generate(self.expression, self.dialect).sql

    def limited_sql(self, max_rows: int) -> str:
        """The approved statement capped at `max_rows` rows (the cap is part of the tree)."""
        return _generate(limit_statement(self.expression, max_rows), self.dialect).sql


def violation(reason: str) -> DataAgentError:
    """The error the guard raises: SQL_POLICY_VIOLATION with a sentence a person can act on."""
    return DataAgentError(ErrorCode.SQL_POLICY_VIOLATION, f"SQL policy violation: {reason}")


def check_sql(
    sql: str,
    dialect: str,
    allowed_tables: Collection[str] | None = None,
    *,
    database: str | None = None,
) -> GuardResult:
    """Approve one read-only query or raise SQL_POLICY_VIOLATION with the reason.

    `database` is the database a MySQL/MariaDB connection uses: a table qualified with any
    other database is refused (with None, every database-qualified table is).
    """
    try:
        product_dialect = normalize_dialect(dialect)
    except ValueError as exc:
        raise violation(str(exc)) from None
    if len(sql) > MAX_SQL_CHARS:
        raise violation(f"the statement is longer than {MAX_SQL_CHARS} characters.")
    read = SQLGLOT_DIALECT[product_dialect]
    tokens = _tokenize(sql, read)
    _check_tokens(tokens, product_dialect)
    statement = _parse_one(sql, read)
    _check_root(statement)
    _check_nodes(statement, product_dialect)
    tables = _check_tables(statement, product_dialect, allowed_tables, database)
    if product_dialect == "mysql":
        _drop_dual(statement)
    # Fail closed now if the tree cannot be written back out, or calls what it may not.
    functions = _generate(statement, product_dialect).calls
    return GuardResult(product_dialect, statement, tables, functions)


def limit_statement(expression: exp.Expr, max_rows: int) -> exp.Expr:
    """A copy of a query whose outermost LIMIT is at most `max_rows` (wrapping when needed)."""
    root = expression
    while isinstance(root, exp.Subquery) and not root.alias:
        root = root.this
    if isinstance(root, exp.Select | exp.SetOperation):
        current = root.args.get("limit")
        if current is None:
            return root.limit(max_rows)  # Query.limit returns a modified copy
        count = current.expression if isinstance(current, exp.Limit) else None
        if isinstance(count, exp.Literal) and not count.is_string and count.this.isdigit():
            capped = root.copy()
            capped.args["limit"].set(
                "expression", exp.Literal.number(min(int(count.this), max_rows))
            )
            return capped
    if isinstance(root, exp.Query):
        return exp.select("*").from_(root.subquery(WRAP_ALIAS, copy=True)).limit(max_rows)
    raise violation("only a read query can be capped.")


# --- steps ----------------------------------------------------------------------------


def _tokenize(sql: str, read: str) -> list[Token]:
    try:
        return list(sqlglot.Dialect.get_or_raise(read).tokenize(sql))
    except (SqlglotError, RecursionError, ValueError) as exc:
        raise violation(f"the SQL could not be read ({_first_line(exc)}).") from None


def _check_tokens(tokens: list[Token], dialect: Dialect) -> None:
    # MySQL and MariaDB run the text inside /*! ... */ and /*M! ... */ as code.
    if dialect == "mysql":
        for token in tokens:
            for comment in token.comments:
                if comment.lstrip().startswith(("!", "M!")):
                    raise violation("MySQL executable comments (/*! ... */) are not allowed.")


def _parse_one(sql: str, read: str) -> exp.Expr:
    try:
        statements = [s for s in sqlglot.parse(sql, read=read, error_level=ErrorLevel.RAISE) if s]
    except ParseError as exc:
        detail = _first_line(exc)
        if exc.errors:
            err = exc.errors[0]
            detail = f"{err.get('description')} at line {err.get('line')}, column {err.get('col')}"
        raise violation(f"the SQL could not be parsed, so it is refused ({detail}).") from None
    except (SqlglotError, RecursionError, ValueError) as exc:
        raise violation(f"the SQL could not be parsed ({_first_line(exc)}).") from None
    if not statements:
        raise violation("no SQL statement was given.")
    if len(statements) > 1:
        raise violation(f"exactly one statement is allowed; found {len(statements)}.")
    return statements[0]


def _check_root(statement: exp.Expr) -> None:
    root = statement
    while isinstance(root, exp.Subquery):
        root = root.this
    if not isinstance(root, exp.Select | exp.SetOperation):
        raise violation(
            f"only read queries (SELECT, WITH ... SELECT, UNION) are allowed; "
            f"this statement is {_describe(statement)}."
        )


def _check_nodes(statement: exp.Expr, dialect: Dialect) -> None:
    for node in statement.walk():
        word = _forbidden_word(node)
        if word is not None:
            where = " (inside a CTE)" if node.find_ancestor(exp.CTE) else ""
            raise violation(f"{word} is not allowed anywhere in a query{where}.")
        if isinstance(node, exp.Select) and not node.expressions:
            raise violation("a SELECT needs at least one column or expression.")
        if isinstance(node, exp.Into):
            raise violation("SELECT ... INTO is not allowed: it writes a table or a file.")
        if isinstance(node, exp.Lock):
            raise violation("locking clauses (FOR UPDATE / FOR SHARE) are not allowed.")
        if isinstance(node, exp.SessionParameter):
            raise violation("server variables (@@name) are not allowed.")
        if isinstance(node, exp.PropertyEQ) and isinstance(node.this, exp.Parameter):
            raise violation("assigning variables (@name := ...) is not allowed.")
        if isinstance(node, exp.Dot) and isinstance(node.expression, exp.Func):
            called = node.expression
            name = called.name if isinstance(called, exp.Anonymous) else called.sql_name()
            qualifier = node.this.sql(dialect=SQLGLOT_DIALECT[dialect])
            raise violation(
                f"function {qualifier}.{name.lower()}() is not allowed: qualified calls "
                "(schema.function(), value.method()) are refused; call allowed functions by "
                "their plain name."
            )
        if isinstance(node, exp.Anonymous | exp.AnonymousAggFunc | exp.ParameterizedAgg):
            _check_call(node.name, dialect)
        if isinstance(node, exp.DataType) and dialect == "postgresql":
            _check_type(node)
        if dialect == "postgresql":
            _check_account_word(node)


def _check_tables(
    statement: exp.Expr,
    dialect: Dialect,
    allowed_tables: Collection[str] | None,
    database: str | None,
) -> tuple[TableRef, ...]:
    allowed = None if allowed_tables is None else [_parse_entry(t, dialect) for t in allowed_tables]
    refs: list[TableRef] = []
    for node in statement.find_all(exp.Func):
        # A function in the place of a table: FROM f(), JOIN f(), LATERAL f(), FROM UNNEST().
        in_from = isinstance(node.parent, exp.Table | exp.Lateral | exp.From | exp.Join)
        if in_from and node.arg_key == "this":
            _check_table_function(node, dialect)
    for table in statement.find_all(exp.Table):
        if not isinstance(table.this, exp.Identifier):
            if not isinstance(table.this, exp.Func):
                written = table.this.sql(dialect=SQLGLOT_DIALECT[dialect])
                raise violation(f"{written} is not a table this query may read.")
            continue
        if _is_cte_reference(table):
            continue
        ref = TableRef(
            name=table.name.lower(),
            schema=table.db.lower() or None,
            catalog=table.catalog.lower() or None,
        )
        if dialect == "mysql" and ref.qualified == "dual":
            continue  # MySQL's dummy one-row table, not a user table
        _check_system_table(ref)
        if dialect == "mysql":
            _check_database(table, database)
        if allowed is not None and not any(_matches(ref, e, dialect) for e in allowed):
            listed = ", ".join(sorted(allowed_tables or ())) or "none"
            raise violation(
                f"table {ref.qualified} is not one of the tables this query may read "
                f"(allowed: {listed})."
            )
        refs.append(ref)
    return tuple(dict.fromkeys(refs))


# --- helpers ----------------------------------------------------------------------------


def _forbidden_word(node: exp.Expr) -> str | None:
    for kind, word in _FORBIDDEN_NODES.items():
        if isinstance(node, kind):
            if isinstance(node, exp.Command):
                return f"{str(node.this).upper()} (a command)"
            return word
    return None


def _describe(statement: exp.Expr) -> str:
    word = _forbidden_word(statement)
    if word is not None:
        return word
    return type(statement).__name__.upper()


def _check_call(name: str, dialect: Dialect) -> None:
    try:
        check_call(name, dialect)
    except RefusedCall as refused:
        raise violation(refused.reason) from None


def _check_account_word(node: exp.Expr) -> None:
    word = None
    if isinstance(node, _PG_ACCOUNT_NODES):
        word = node.sql(dialect="postgres").lower().removesuffix("()")
    elif (
        isinstance(node, exp.Column)
        and not node.table
        and isinstance(node.this, exp.Identifier)
        and not node.this.quoted
        and node.name.lower() in _PG_ACCOUNT_WORDS
    ):
        word = node.name.lower()
    if word is not None:
        raise violation(
            f"{word} is not allowed: it names the database account, role or database the "
            'query runs as, not data (quote a column of that name: "user").'
        )


def _check_type(node: exp.DataType) -> None:
    """PostgreSQL object-identifier types (regclass, ...) look catalog objects up by name."""
    name = node.sql(dialect=SQLGLOT_DIALECT["postgresql"]).lower().replace('"', "").split(".")[-1]
    name = name.split("(")[0].removesuffix("[]").strip()
    if name in OBJECT_IDENTIFIER_TYPES:
        raise violation(
            f"casts to {name} are not allowed: object-identifier types look up the system "
            "catalog by name."
        )


def _check_table_function(node: exp.Func, dialect: Dialect) -> None:
    try:
        name = written_name(node, dialect)
    except RefusedCall as refused:
        raise violation(refused.reason) from None
    except (SqlglotError, RecursionError, ValueError) as exc:
        raise violation(f"the table function could not be read ({_first_line(exc)}).") from None
    if not is_table_function(name, dialect):
        raise violation(f"table function {name}() is not allowed here.")


def _check_database(table: exp.Table, database: str | None) -> None:
    """MySQL/MariaDB: a query stays inside the database its connection uses."""
    written = table.catalog or table.db
    if written and (table.catalog or written != database):
        qualified = ".".join(p for p in (table.catalog, table.db, table.name) if p)
        raise violation(f"table {qualified} is outside this connection's database.")


def _check_system_table(ref: TableRef) -> None:
    if looks_like_file(ref.name):
        raise violation(f"reading files is not allowed ({ref.name} is a path, not a table).")
    for part in (ref.schema, ref.catalog):
        if part in SYSTEM_SCHEMAS:
            raise violation(f"system catalog {ref.qualified} is not allowed.")
    if ref.name.startswith(SYSTEM_TABLE_PREFIXES) or ref.name in SYSTEM_SCHEMAS:
        raise violation(f"system catalog {ref.qualified} is not allowed.")


def _is_cte_reference(table: exp.Table) -> bool:
    """True when an unqualified table name resolves to a CTE visible where it is used."""
    if table.args.get("db") or table.args.get("catalog"):
        return False
    name = table.name.lower()
    child: exp.Expr = table
    parent = table.parent
    cte_index: int | None = None
    while parent is not None:
        if isinstance(parent, exp.With) and isinstance(child, exp.CTE):
            cte_index = next(i for i, c in enumerate(parent.expressions) if c is child)
        elif isinstance(parent, exp.Query) and isinstance(parent.args.get("with_"), exp.With):
            with_ = parent.args["with_"]
            ctes = list(with_.expressions)
            if child is with_ and cte_index is not None:
                # Inside a CTE: earlier CTEs are visible, and itself when RECURSIVE.
                ctes = ctes[: cte_index + 1] if with_.args.get("recursive") else ctes[:cte_index]
            if name in {c.alias_or_name.lower() for c in ctes}:
                return True
            cte_index = None
        child, parent = parent, parent.parent
    return False


def _parse_entry(entry: str, dialect: Dialect) -> TableRef:
    try:
        table = exp.to_table(entry, dialect=SQLGLOT_DIALECT[dialect])
    except SqlglotError:
        parts = entry.split(".")
        return TableRef(parts[-1].lower(), *(p.lower() for p in reversed(parts[:-1][-2:])))
    return TableRef(table.name.lower(), table.db.lower() or None, table.catalog.lower() or None)


def _matches(ref: TableRef, entry: TableRef, dialect: Dialect) -> bool:
    if ref.name != entry.name:
        return False
    if ref.schema and entry.schema and ref.schema != entry.schema:
        return False
    if ref.schema and not entry.schema and ref.schema not in DEFAULT_SCHEMAS[dialect]:
        return False
    return not ref.catalog or ref.catalog == entry.catalog


def _drop_dual(statement: exp.Expr) -> None:
    """Remove `FROM DUAL` (sqlglot would write it back quoted, which MySQL reads as a table)."""
    for select in list(statement.find_all(exp.Select)):
        source = select.args.get("from_")
        table = source.this if isinstance(source, exp.From) else None
        if (
            isinstance(table, exp.Table)
            and table.name.lower() == "dual"
            and not table.db
            and not select.args.get("joins")
        ):
            select.set("from_", None)


def _generate(expression: exp.Expr, dialect: Dialect) -> Rendered:
    try:
        return render(expression, dialect)
    except RefusedCall as refused:
        raise violation(refused.reason) from None
    except (SqlglotError, RecursionError, ValueError) as exc:
        raise violation(
            f"the statement uses syntax the guard cannot re-write safely ({_first_line(exc)})."
        ) from None


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return (text[0] if text else type(exc).__name__)[:200]
