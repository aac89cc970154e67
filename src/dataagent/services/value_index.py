"""Reading an ontology's value index from its database, during the ontology build.

The value index holds the distinct values of each text field with few of them (at most
`MAX_DISTINCT`): "Houston", "Electronics", "online". A field whose sampled values the
semantic model already holds in full (`distinct_count` of them) is not read again; any
other is read with a QueryPlan that lists the field's values (`MAX_DISTINCT + 1` at most,
so a field with more is recognised and left out), compiled by the compiler and run by the
guarded, read-only executor on the query pool, as the owner, limited to the model's
tables. The first and last date of each date field are read too (one query per dataset),
so the planner can tell a period the data does not cover. A field that cannot be read is
left out; the build does not fail for it.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncSession

from dataagent.errors import DataAgentError
from dataagent.ontology.values import MAX_DISTINCT, MAX_VALUE_LENGTH, IndexedValue, ValueIndex
from dataagent.semantic.compiler import compile_plan
from dataagent.semantic.model import Dataset, DataType, Field_, SemanticModel
from dataagent.semantic.plan import Dimension, Measure, QueryPlan
from dataagent.services.connections import QueryTarget, connection_target
from dataagent.services.context import AppContext
from dataagent.sources.executor import execute_query
from dataagent.store import connections, semantic_models
from dataagent.store.models import Ontology

log = logging.getLogger(__name__)

TEMPORAL = (DataType.DATE, DataType.TIMESTAMP)

# Fields that hold a person's details, free text or codes: never values a question names
# to filter by, and often many.
PRIVATE_OR_FREE = frozenset(
    {
        *("email", "mail", "phone", "address", "street", "password", "hash", "token"),
        *("description", "desc", "comment", "comments", "note", "notes", "body", "text"),
        *("url", "uri", "link", "first", "last", "surname", "given", "middle", "full"),
        *("firstname", "lastname", "fullname", "sku", "uuid", "guid", "id", "key", "code"),
    }
)
# At most this many fields are read for one ontology (a model of a thousand tables).
MAX_FIELDS = 300


@dataclass(frozen=True)
class _Read:
    dataset: str
    field: str  # a text field's name; empty for a dataset's date extents
    sql: str
    dates: tuple[str, ...] = ()  # the date fields whose first and last dates `sql` reads


def _words(name: str) -> set[str]:
    return {w for w in name.lower().replace("-", "_").split("_") if w}


def _candidate(dataset: Dataset, f: Field_) -> bool:
    if f.data_type is not DataType.VARCHAR or f.is_primary_key:
        return False
    if _words(f.name) & PRIVATE_OR_FREE:
        return False
    return f.distinct_count is None or f.distinct_count <= MAX_DISTINCT


def _known(f: Field_) -> bool:
    """True when the model's samples are all the field's values."""
    return f.distinct_count is not None and len(f.sample_values) >= f.distinct_count


def plan_reads(model: SemanticModel) -> tuple[ValueIndex, list[_Read]]:
    """The values the model already holds in full, and the queries that read the others."""
    known = ValueIndex()
    reads: list[_Read] = []
    for d in model.datasets:
        for f in d.fields:
            if not _candidate(d, f):
                continue
            if _known(f):
                for value in f.sample_values:
                    if value is not None:
                        known.add(IndexedValue(d.name, f.name, str(value)))
                continue
            if len(reads) >= MAX_FIELDS:
                continue
            plan = QueryPlan(
                dimensions=[Dimension(field=f"{d.name}.{f.name}")],
                limit=MAX_DISTINCT + 1,
            )
            try:
                sql = compile_plan(plan, model, model.dialect).sql
            except DataAgentError:
                continue
            reads.append(_Read(d.name, f.name, sql))
        dates = [f.name for f in d.fields if f.data_type in TEMPORAL and not f.is_primary_key]
        if dates:
            measures = [
                Measure(field=f"{d.name}.{name}", aggregation=aggregation)
                for name in dates
                for aggregation in ("min", "max")
            ]
            try:
                sql = compile_plan(QueryPlan(measures=measures), model, model.dialect).sql
            except DataAgentError:
                continue
            reads.append(_Read(d.name, "", sql, tuple(dates)))
    return known, reads


def _run_reads(ctx: AppContext, target: QueryTarget, reads: list[_Read]) -> ValueIndex:
    settings = ctx.settings
    found = ValueIndex()
    for read in reads:
        try:
            result = execute_query(
                target.spec,
                read.sql,
                policy=target.policy,
                allowed_tables=target.allowed_tables,
                max_rows=MAX_DISTINCT + 1,
                timeout_s=settings.query_timeout_s,
                max_bytes=settings.query_max_bytes,
                max_cell_chars=MAX_VALUE_LENGTH + 1,
                memory_mb=settings.query_memory_mb,
            )
        except DataAgentError as exc:
            log.info("value index: %s.%s not read: %s", read.dataset, read.field, exc.message)
            continue
        if read.dates:
            row = result.rows[0] if result.rows else []
            for i, name in enumerate(read.dates):
                pair = row[2 * i : 2 * i + 2]
                if len(pair) == 2:
                    found.set_extent(read.dataset, name, pair[0], pair[1])
            continue
        if result.truncated or result.row_count > MAX_DISTINCT:
            continue  # too many values to be a list someone names
        for row in result.rows:
            if row and row[0] is not None and len(str(row[0])) <= MAX_VALUE_LENGTH:
                found.add(IndexedValue(read.dataset, read.field, str(row[0])))
    return found


async def read_values(
    ctx: AppContext, session: AsyncSession, ontology: Ontology, model: SemanticModel
) -> ValueIndex:
    """The value index of an ontology being built from `model` (see the module's docstring)."""
    known, reads = plan_reads(model)
    if not reads or ontology.semantic_model_id is None:
        return known
    connection_id = await semantic_models.connection_of(
        session, ontology.owner_id, ontology.semantic_model_id
    )
    if connection_id is None:
        return known
    connection = await connections.get_connection(session, ontology.owner_id, connection_id)
    target = connection_target(ctx, connection)
    target = QueryTarget(
        target.spec,
        target.policy,
        target.connection_id,
        ontology.id,
        [d.source for d in model.datasets],
    )
    read = await ctx.query_pool.run(ontology.owner_id, _run_reads, ctx, target, reads)
    return known.merged(read)
