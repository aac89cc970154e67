"""Deterministic generation of a semantic model from a schema snapshot (no LLM involved).

Every table becomes a dataset, every column a field; declared foreign keys become
relationships, and `<x>_id` columns without one are linked by name to a table `x`
(`xs`, `xes`, `ies`) whose primary key is `id` or `<x>_id`, flagged as inferred.
It also proposes what people usually want next, marked `generated: true` so curation can
tell a proposal from a person's work: a row count per dataset, a total (or, for per-unit
prices and costs, an average) per money column, and `quantity * unit price` as a derived
line amount with its total. The same snapshot always yields the same model, byte for byte
once dumped.
"""

from __future__ import annotations

import re
import unicodedata
from collections import defaultdict
from dataclasses import dataclass

from sqlglot.dialects import Dialect

from dataagent.semantic.catalog import SchemaSnapshot, TableInfo, map_data_type
from dataagent.semantic.model import (
    Cardinality,
    Dataset,
    DataType,
    Field_,
    Metric,
    MetricFormat,
    Relationship,
    RelationshipSource,
    SemanticModel,
    rows_phrase,
)
from dataagent.semantic.nouns import plural

# Words that stay upper case in labels ("customer_id" -> "Customer ID").
ACRONYMS = frozenset(
    {
        *("id", "url", "uri", "uuid", "guid", "ip", "sku", "api", "ssn", "vat", "iso", "utc"),
        *("gps", "ean", "upc", "isbn", "sql", "csv", "pdf", "html", "http", "https", "json"),
        *("xml", "usd", "eur", "gbp", "kpi", "roi", "ltv", "mrr", "arr", "crm", "erp", "dob"),
    }
)
_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_SAFE_BARE = re.compile(r"^[a-z_][a-z0-9_]*$")
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_ID_COLUMN = re.compile(r"^(?P<stem>[A-Za-z0-9_]+?)_id$", re.IGNORECASE)


def _reserved_words() -> frozenset[str]:
    words: set[str] = set()
    for name in ("duckdb", "mysql", "presto"):
        generator = Dialect.get_or_raise(name).generator_class
        words |= {w.lower() for w in getattr(generator, "RESERVED_KEYWORDS", ())}
    return frozenset(words | {"user", "order", "group", "table", "select", "from", "where"})


RESERVED = _reserved_words()


def humanise(identifier: str) -> str:
    """A label for an identifier: `customer_id` -> "Customer ID", `unitPrice` -> "Unit Price"."""
    text = identifier if re.search(r"[a-z]", identifier) else identifier.lower()
    words = _WORD.findall(text)
    out = []
    for word in words:
        if word.lower() in ACRONYMS:
            out.append(word.upper())
        elif word.isupper() and len(word) > 1:
            out.append(word)
        else:
            out.append(word[:1].upper() + word[1:].lower())
    return " ".join(out) or identifier


def to_identifier(text: str) -> str:
    """A valid identifier close to `text` (ASCII, `[A-Za-z_][A-Za-z0-9_]*`)."""
    if _IDENTIFIER.match(text):
        return text
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    ident = re.sub(r"[^0-9A-Za-z_]+", "_", ascii_text.strip()).strip("_") or "unnamed"
    return f"_{ident}" if ident[0].isdigit() else ident


def column_expression(column: str, dialect: str) -> str:
    """The SQL for a column: bare when safe, otherwise quoted the dialect's way."""
    # PostgreSQL folds unquoted names to lower case; the others compare them case-insensitively
    bare = _SAFE_BARE.match(column) if dialect == "postgresql" else _IDENTIFIER.match(column)
    if bare and column.lower() not in RESERVED:
        return column
    if dialect == "mysql":
        return "`" + column.replace("`", "``") + "`"
    return '"' + column.replace('"', '""') + '"'


def _unique(base: str, used: set[str]) -> str:
    candidate, n = base, 2
    while candidate.lower() in used:
        candidate, n = f"{base}_{n}", n + 1
    used.add(candidate.lower())
    return candidate


@dataclass
class _Link:
    """A relationship found in the snapshot, before names are given."""

    table: TableInfo
    columns: list[str]
    target: TableInfo
    target_columns: list[str]
    source: RelationshipSource


class _Catalog:
    """Case-insensitive lookups of tables and columns."""

    def __init__(self, tables: list[TableInfo]) -> None:
        self.by_name: dict[str, list[TableInfo]] = defaultdict(list)
        for t in tables:
            self.by_name[t.name.lower()].append(t)

    def table(self, schema: str | None, name: str, near: TableInfo) -> TableInfo | None:
        candidates = self.by_name.get(name.lower(), [])
        wanted = (schema or near.schema_name).lower()
        same = [t for t in candidates if t.schema_name.lower() == wanted]
        if same:
            return same[0]
        return candidates[0] if len(candidates) == 1 and schema is None else None

    @staticmethod
    def columns(table: TableInfo, names: list[str]) -> list[str] | None:
        actual = {c.name.lower(): c.name for c in table.columns}
        found = [actual.get(n.lower()) for n in names]
        return None if None in found else [f for f in found if f is not None]


def _declared_links(tables: list[TableInfo], catalog: _Catalog) -> list[_Link]:
    links: list[_Link] = []
    seen: set[tuple[str, ...]] = set()
    for table in tables:
        for fk in table.foreign_keys:
            target = catalog.table(fk.referred_schema, fk.referred_table, table)
            if target is None:
                continue  # the referenced table was not introspected (another schema)
            columns = catalog.columns(table, fk.columns)
            target_columns = catalog.columns(target, fk.referred_columns or target.primary_key)
            if not columns or not target_columns or len(columns) != len(target_columns):
                continue
            key = (table.qualified_name, *columns, "->", target.qualified_name, *target_columns)
            if key not in seen:
                seen.add(key)
                links.append(
                    _Link(table, columns, target, target_columns, RelationshipSource.FOREIGN_KEY)
                )
    return links


def _inferred_links(
    tables: list[TableInfo], catalog: _Catalog, declared: list[_Link]
) -> list[_Link]:
    covered = {(id(link.table), c.lower()) for link in declared for c in link.columns}
    links: list[_Link] = []
    for table in tables:
        for column in table.columns:
            match = _ID_COLUMN.match(column.name)
            if match is None or (id(table), column.name.lower()) in covered:
                continue
            target, target_column = _name_target(match.group("stem"), column.name, table, catalog)
            if target is None or target_column is None or target is table:
                continue
            ours = map_data_type(column.native_type)
            theirs = next(
                map_data_type(c.native_type) for c in target.columns if c.name == target_column
            )
            if ours != theirs and DataType.OTHER not in (ours, theirs):
                continue
            links.append(
                _Link(table, [column.name], target, [target_column], RelationshipSource.INFERRED)
            )
    return links


def _name_target(
    stem: str, column: str, table: TableInfo, catalog: _Catalog
) -> tuple[TableInfo | None, str | None]:
    lowered = stem.lower()
    names = [lowered, f"{lowered}s", f"{lowered}es"]
    if lowered.endswith("y"):
        names.append(f"{lowered[:-1]}ies")
    for name in names:
        target = catalog.table(None, name, table)
        if target is None or len(target.primary_key) != 1:
            continue
        key = _Catalog.columns(target, target.primary_key)
        if key and key[0].lower() in ("id", column.lower()):
            return target, key[0]
    return None, None


def _cardinality(table: TableInfo, columns: list[str]) -> Cardinality:
    wanted = {c.lower() for c in columns}
    keys = [table.primary_key, *table.unique_keys]
    if any(key and {k.lower() for k in key} == wanted for key in keys):
        return Cardinality.ONE_TO_ONE
    return Cardinality.MANY_TO_ONE


def _columns(dataset: str, columns: list[str]) -> str:
    return f"{dataset}.{columns[0]}" if len(columns) == 1 else f"{dataset}({', '.join(columns)})"


def _assign_names(
    tables: list[TableInfo],
) -> tuple[dict[int, str], dict[tuple[int, str], str]]:
    """Unique dataset names (keyed by table identity) and field names per table."""
    # the same table name in two schemas: both get qualified as schema_table
    name_counts: dict[str, int] = defaultdict(int)
    for t in tables:
        name_counts[t.name.lower()] += 1
    used: set[str] = set()
    ds_names: dict[int, str] = {}
    field_names: dict[tuple[int, str], str] = {}
    for t in tables:
        base = t.name if name_counts[t.name.lower()] == 1 else f"{t.schema_name}_{t.name}"
        ds_names[id(t)] = _unique(to_identifier(base), used)
        used_fields: set[str] = set()
        for c in t.columns:
            field_names[(id(t), c.name)] = _unique(to_identifier(c.name), used_fields)
    return ds_names, field_names


def _link_notes(
    links: list[_Link], ds_names: dict[int, str], field_names: dict[tuple[int, str], str]
) -> dict[tuple[int, str], str]:
    """Field descriptions for the columns that join, keyed by (table identity, column)."""
    notes: dict[tuple[int, str], str] = {}
    for link in links:
        target = ds_names[id(link.target)]
        for col, ref in zip(link.columns, link.target_columns, strict=True):
            ref_field = field_names[(id(link.target), ref)]
            if link.source is RelationshipSource.FOREIGN_KEY:
                note = f"References {target}.{ref_field}."
            else:
                note = f"Probably references {target}.{ref_field} (inferred from the name)."
            notes.setdefault((id(link.table), col), note)
    return notes


def generate_semantic_model(
    snapshot: SchemaSnapshot,
    name: str,
    dialect: str | None = None,
    description: str | None = None,
) -> SemanticModel:
    """A semantic model of every table in the snapshot, with its relationships."""
    dialect = dialect or snapshot.dialect
    tables = sorted(
        (t for t in snapshot.tables if t.columns), key=lambda t: (t.schema_name, t.name)
    )
    catalog = _Catalog(tables)
    declared = _declared_links(tables, catalog)
    inferred = _inferred_links(tables, catalog, declared)

    ds_names, field_names = _assign_names(tables)
    notes = _link_notes(declared + inferred, ds_names, field_names)
    datasets = [
        _with_line_amount(_dataset(t, ds_names[id(t)], field_names, notes, dialect), dialect)
        for t in tables
    ]
    relationships: list[Relationship] = []
    rel_names: set[str] = set()
    for link in sorted(
        declared + inferred,
        key=lambda lk: (
            ds_names[id(lk.table)],
            lk.columns,
            ds_names[id(lk.target)],
            lk.target_columns,
        ),
    ):
        from_ds, to_ds = ds_names[id(link.table)], ds_names[id(link.target)]
        from_cols = [field_names[(id(link.table), c)] for c in link.columns]
        to_cols = [field_names[(id(link.target), c)] for c in link.target_columns]
        arrow = f"{_columns(from_ds, from_cols)} -> {_columns(to_ds, to_cols)}"
        how = "Foreign key" if link.source is RelationshipSource.FOREIGN_KEY else "Inferred link"
        relationships.append(
            Relationship(
                name=_unique(f"{from_ds}_{'_'.join(from_cols)}_{to_ds}", rel_names),
                from_dataset=from_ds,
                from_columns=from_cols,
                to_dataset=to_ds,
                to_columns=to_cols,
                cardinality=_cardinality(link.table, link.columns),
                source=link.source,
                description=f"{how} {arrow}.",
            )
        )
    return SemanticModel(
        name=name,
        description=description
        or f"Generated from a {dialect} database with {len(datasets)} datasets "
        f"and {len(relationships)} relationships.",
        dialect=dialect,
        datasets=datasets,
        relationships=relationships,
        metrics=propose_metrics(datasets, dialect),
    )


def _dataset(
    table: TableInfo,
    name: str,
    field_names: dict[tuple[int, str], str],
    notes: dict[tuple[int, str], str],
    dialect: str,
) -> Dataset:
    label = humanise(table.name)
    if table.comment:
        description = table.comment
    elif table.row_estimate is not None:
        description = f"{label} {table.kind} with {rows_phrase(table.row_estimate)}."
    else:
        description = f"{label} {table.kind}."
    pk = {c.lower() for c in table.primary_key}
    fields = []
    for column in table.columns:
        in_pk = column.name.lower() in pk
        if column.comment:
            text = column.comment
        elif in_pk and len(pk) == 1:
            text = f"Primary key of {name}."
        elif in_pk:
            text = f"Part of the primary key of {name}."
        else:
            text = notes.get((id(table), column.name)) or f"{humanise(column.name)} of {name}."
        fields.append(
            Field_(
                name=field_names[(id(table), column.name)],
                expression=column_expression(column.name, dialect),
                label=humanise(column.name),
                description=text,
                data_type=map_data_type(column.native_type),
                native_type=column.native_type or None,
                is_primary_key=in_pk,
                nullable=column.nullable and not in_pk,
                sample_values=list(column.sample_values),
                distinct_count=column.distinct_count,
            )
        )
    return Dataset(
        name=name,
        description=description,
        source=table.qualified_name,
        row_count=table.row_estimate,
        primary_key=[field_names[(id(table), c)] for c in _pk_columns(table)],
        fields=fields,
    )


def _pk_columns(table: TableInfo) -> list[str]:
    actual = {c.name.lower(): c.name for c in table.columns}
    return [actual[k.lower()] for k in table.primary_key if k.lower() in actual]


# --- proposals: metrics and derived fields, marked generated ------------------------------------

# Words of a money column (a decimal or float one); a word of NOT_MONEY rules it out.
MONEY = frozenset(
    {
        *("price", "prices", "amount", "amounts", "cost", "costs", "revenue", "total"),
        *("subtotal", "sales", "fee", "fees", "tax", "spend", "balance", "salary", "value"),
    }
)
NOT_MONEY = frozenset(
    {
        *("id", "key", "code", "rate", "rates", "ratio", "pct", "percent", "percentage"),
        *("discount", "share", "avg", "average", "mean"),
    }
)
# Per-unit money (a unit price, a unit cost): an average means something, a sum does not.
PER_UNIT = frozenset({"price", "prices", "unit"})
ADDED_UP = frozenset({"total", "subtotal", "amount", "line", "extended", "sales", "revenue"})
# Column names (lower case, without `_`) of a line's quantity and of its unit price, the
# preferred price first.
QUANTITY_NAMES = frozenset(
    {
        *("quantity", "qty", "units", "quantityordered", "qtyordered", "orderquantity"),
        *("orderqty", "quantitysold", "qtysold", "unitssold", "linequantity", "itemquantity"),
    }
)
PRICE_NAMES: tuple[str, ...] = (
    *("unitprice", "saleprice", "sellingprice", "priceeach", "priceperunit", "price"),
    "listprice",
)
NUMERIC = (DataType.INTEGER, DataType.DECIMAL, DataType.FLOAT)
MONEY_TYPES = (DataType.DECIMAL, DataType.FLOAT)


def _words(identifier: str) -> list[str]:
    """Lower-case words of an identifier: `UnitPrice` -> ["unit", "price"]."""
    return [w.lower() for w in humanise(identifier).split()]


def in_words(text: str) -> str:
    """Words as they read inside a sentence: lower case, acronyms keep their capitals."""
    return " ".join(w if len(w) > 1 and w.isupper() else w.lower() for w in text.split())


def _phrase(identifier: str) -> str:
    """An identifier as words in a sentence: acronyms keep their capitals."""
    return in_words(humanise(identifier))


def _compact(identifier: str) -> str:
    return identifier.replace("_", "").lower()


def _with_line_amount(dataset: Dataset, dialect: str) -> Dataset:
    """The dataset with `quantity * unit_price` as a derived field, when it has both columns.

    A discount column is not applied: whether it is a fraction, a percentage or an amount
    is a guess, so the field stays the gross amount and its description says so."""
    quantity = next(
        (
            f
            for f in dataset.fields
            if _compact(f.name) in QUANTITY_NAMES
            and f.data_type in NUMERIC
            and not f.is_primary_key
        ),
        None,
    )
    prices = {
        _compact(f.name): f
        for f in dataset.fields
        if f.data_type in NUMERIC and not f.is_primary_key
    }
    price = next((prices[n] for n in PRICE_NAMES if n in prices), None)
    if quantity is None or price is None:
        return dataset
    used = {f.name.lower() for f in dataset.fields}
    description = (
        f"Quantity times unit price ({quantity.name} * {price.name}) of each {dataset.name} row."
    )
    if any("discount" in _words(f.name) for f in dataset.fields):
        description += (
            " Before any discount (the dataset's discount column is not applied; edit the "
            "expression if the amount should be net of it)."
        )
    types = (quantity.data_type, price.data_type)
    data_type = next(
        (t for t in (DataType.FLOAT, DataType.DECIMAL) if t in types), DataType.INTEGER
    )
    amount = Field_(
        name=_unique("line_amount", used),
        expression=f"{quantity.expression} * {price.expression}",
        label="Line amount",
        description=description,
        data_type=data_type,
        nullable=quantity.nullable or price.nullable,
        generated=True,
    )
    return dataset.model_copy(update={"fields": [*dataset.fields, amount]})


def _money_aggregation(field: Field_) -> str | None:
    """`sum` or `avg` for a money field, None for any other field."""
    words = set(_words(field.name))
    if (
        (field.data_type not in MONEY_TYPES and not field.generated)
        or field.is_primary_key
        or not words & MONEY
        or words & NOT_MONEY
    ):
        return None
    return "avg" if words & PER_UNIT and not words & ADDED_UP else "sum"


@dataclass
class _Proposal:
    """A metric to propose, before its name is made unique."""

    dataset: Dataset
    field: Field_ | None
    aggregation: str

    def base_name(self, qualified: bool) -> str:
        if self.field is None:
            return f"{self.dataset.name}_count"
        prefix = "avg" if self.aggregation == "avg" else "total"
        if self.aggregation == "sum" and _words(self.field.name)[:1] == ["total"]:
            prefix = "sum"
        middle = f"{self.dataset.name}_" if qualified else ""
        return f"{prefix}_{middle}{self.field.name}"


def propose_metrics(datasets: list[Dataset], dialect: str) -> list[Metric]:
    """Generated metrics: each dataset's row count, and a total (or an average, for per-unit
    prices and costs) of each money column; names unique and distinct from every field's."""
    proposals: list[_Proposal] = []
    for dataset in datasets:
        proposals.append(_Proposal(dataset, None, "count"))
        for f in dataset.fields:
            aggregation = _money_aggregation(f)
            if aggregation is not None:
                proposals.append(_Proposal(dataset, f, aggregation))
    taken = {d.name.lower() for d in datasets} | {
        f.name.lower() for d in datasets for f in d.fields
    }
    counts: dict[str, int] = defaultdict(int)
    for p in proposals:
        counts[p.base_name(False).lower()] += 1
    used = set(taken)
    metrics = []
    for p in proposals:
        name = p.base_name(False)
        if counts[name.lower()] > 1 or name.lower() in taken:
            name = p.base_name(True)
        metrics.append(
            _metric(p, _unique(name, used), dialect, qualified=name != p.base_name(False))
        )
    return metrics


def _metric(p: _Proposal, name: str, dialect: str, *, qualified: bool) -> Metric:
    entity = plural(_phrase(p.dataset.name))
    if p.field is None:
        return Metric(
            name=name,
            label=f"Number of {entity}",
            description=f"How many {entity} there are (the rows of {p.dataset.name}).",
            format=MetricFormat.NUMBER,
            dataset=p.dataset.name,
            aggregation="count",
            generated=True,
        )
    what = _phrase(p.field.name)
    of = f" of {entity}" if qualified else ""
    if p.aggregation == "avg":
        label = f"Average {what}{of}"
        description = f"The average of {p.dataset.name}.{p.field.name} over its rows."
    else:
        label = f"Total {what}{of}" if not what.startswith("total") else f"Sum of {what}{of}"
        description = f"The sum of {p.dataset.name}.{p.field.name} over its rows."
    return Metric(
        name=name,
        label=label[:1].upper() + label[1:],
        description=description,
        format=MetricFormat.CURRENCY,
        dataset=p.dataset.name,
        aggregation="avg" if p.aggregation == "avg" else "sum",
        expression=column_expression(p.field.name, dialect),
        generated=True,
    )
