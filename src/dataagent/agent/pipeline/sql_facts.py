"""What an executed SQL statement does, as facts the verifier's checks read: which
datasets it reads, how it joins them (and which rows the joins repeat), what it groups by,
filters on and aggregates, every column bound to a dataset of the semantic model.

Pure data (`sql_reader.read_sql` makes it from a statement); nothing here judges it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from dataagent.semantic.joins import JoinEdge

Scalar = str | float
# Aggregates that a repeated row changes (SUM, AVG, COUNT); MIN, MAX and COUNT(DISTINCT)
# are immune. Anything else (STDDEV, GROUP_CONCAT, ...) is "other".
REPEAT_SENSITIVE = frozenset({"sum", "avg", "count"})


@dataclass(frozen=True, order=True)
class ColumnUse:
    """A column of a dataset of the semantic model (`field` is the model's field name)."""

    dataset: str
    field: str

    @property
    def label(self) -> str:
        """`dataset.field`."""
        return f"{self.dataset}.{self.field}"


@dataclass(frozen=True)
class Predicate:
    """A condition on one column: `column op values` (op `other` when not that simple)."""

    column: ColumnUse
    op: str
    values: tuple[Scalar, ...] = ()
    # `where`, `on`, `having` or `case` (a CASE WHEN inside an aggregate, a metric's filter).
    clause: str = "where"


@dataclass(frozen=True)
class JoinFact:
    """Two sources of one scope joined on column pairs (an implicit WHERE join included)."""

    left: str
    right: str
    kind: str  # inner | left | right | full
    pairs: tuple[tuple[str, str], ...]  # (left column, right column), as written
    left_dataset: str | None
    right_dataset: str | None
    # The relationship the pairs match, walked left -> right, or None.
    edge: JoinEdge | None = None


@dataclass(frozen=True)
class Aggregate:
    """One aggregate call: its function and the dataset columns its value reads.

    `aliases` are the scope's source aliases of those columns (`counts_rows` for COUNT(*)
    and counts of a constant); columns in a CASE WHEN's condition are not values."""

    function: str  # sum | avg | min | max | count | count_distinct | other
    columns: frozenset[ColumnUse]
    aliases: frozenset[str]
    counts_rows: bool = False


@dataclass
class ScopeFacts:
    """One SELECT of the statement."""

    aliases: dict[str, str] = field(default_factory=dict)  # table alias -> dataset
    derived: set[str] = field(default_factory=set)  # aliases of CTEs and subqueries
    joins: list[JoinFact] = field(default_factory=list)
    duplicated: frozenset[str] = frozenset()  # aliases whose rows the joins repeat
    aggregates: list[Aggregate] = field(default_factory=list)
    group_by: frozenset[ColumnUse] | None = None
    projections: list[tuple[str, frozenset[ColumnUse], bool]] = field(default_factory=list)

    @property
    def aggregated(self) -> bool:
        """True when this SELECT aggregates (a GROUP BY, or an aggregate over all rows)."""
        return self.group_by is not None or bool(self.aggregates)


@dataclass
class SqlFacts:
    """Everything the checks read from one statement."""

    sql: str
    scopes: list[ScopeFacts] = field(default_factory=list)
    predicates: list[Predicate] = field(default_factory=list)
    # The SELECT that sets the result's grain (the first that aggregates, from the outside
    # in), and the outermost SELECT (whose projections are the result's columns).
    grain_scope: ScopeFacts | None = None
    root: ScopeFacts | None = None
    unknown: list[str] = field(default_factory=list)
    error: str | None = None

    @property
    def datasets(self) -> set[str]:
        """Every dataset the statement reads."""
        return {d for s in self.scopes for d in s.aliases.values()}

    @property
    def grain(self) -> frozenset[ColumnUse] | None:
        """The GROUP BY columns of the grain scope (empty for a total; None: no aggregate)."""
        if self.grain_scope is None:
            return None
        return self.grain_scope.group_by or frozenset()

    @property
    def aggregates(self) -> list[Aggregate]:
        """Every aggregate call, in every SELECT."""
        return [a for s in self.scopes for a in s.aggregates]


def labels(uses: Iterable[ColumnUse]) -> str:
    """`a.x, b.y`, sorted."""
    return ", ".join(sorted(u.label for u in uses)) or "nothing"
