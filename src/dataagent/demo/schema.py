"""The demo database's tables, written once and rendered as DDL for each dialect.

The table and column names are a contract other parts of the product are built against:
columns may be added, never renamed or removed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from dataagent.dialects import Dialect

Kind = Literal["integer", "text", "date", "timestamp", "money", "fraction", "boolean"]


@dataclass(frozen=True)
class Column:
    """One column: its kind (mapped to a type per dialect) and its constraints."""

    name: str
    kind: Kind
    description: str
    primary_key: bool = False
    unique: bool = False
    references: str | None = None  # "table.column"
    check: str | None = None  # a SQL boolean expression valid in every dialect


@dataclass(frozen=True)
class Table:
    """One table of the demo database."""

    name: str
    description: str
    columns: tuple[Column, ...]

    @property
    def column_names(self) -> list[str]:
        """The column names, in table order."""
        return [column.name for column in self.columns]


# The dialects the demo writes itself (MariaDB tests load it with their own DDL).
_TYPES: dict[Dialect, dict[Kind, str]] = {
    "duckdb": {
        "integer": "INTEGER",
        "text": "VARCHAR",
        "date": "DATE",
        "timestamp": "TIMESTAMP",
        "money": "DECIMAL(10,2)",
        "fraction": "DECIMAL(4,2)",
        "boolean": "BOOLEAN",
    },
    "postgresql": {
        "integer": "INTEGER",
        "text": "VARCHAR",
        "date": "DATE",
        "timestamp": "TIMESTAMP",
        "money": "NUMERIC(10,2)",
        "fraction": "NUMERIC(4,2)",
        "boolean": "BOOLEAN",
    },
    # SQLite keeps the declared names (introspection shows them) with NUMERIC affinity.
    "sqlite": {
        "integer": "INTEGER",
        "text": "VARCHAR",
        "date": "DATE",
        "timestamp": "TIMESTAMP",
        "money": "DECIMAL(10,2)",
        "fraction": "DECIMAL(4,2)",
        "boolean": "BOOLEAN",
    },
}


def _id(description: str) -> Column:
    return Column("id", "integer", description, primary_key=True)


SCHEMA: tuple[Table, ...] = (
    Table(
        "stores",
        "Physical retail stores, one per city.",
        (
            _id("Store identifier."),
            Column("name", "text", "Store name."),
            Column("city", "text", "City the store is in."),
            Column("state", "text", "Two-letter US state code."),
            Column("region", "text", "Sales region: South, West, Midwest or Southeast."),
            Column("opened_on", "date", "Date the store opened."),
            Column("square_feet", "integer", "Selling floor area in square feet."),
        ),
    ),
    Table(
        "customers",
        "Registered customers; each shops mostly at the store nearest home.",
        (
            _id("Customer identifier."),
            Column("first_name", "text", "Given name."),
            Column("last_name", "text", "Family name."),
            Column("email", "text", "Email address (unique).", unique=True),
            Column("city", "text", "City the customer lives in."),
            Column("state", "text", "Two-letter US state code."),
            Column(
                "segment",
                "text",
                "Customer segment: consumer, small_business or corporate.",
                check="segment IN ('consumer', 'small_business', 'corporate')",
            ),
            Column("signup_date", "date", "Date the customer registered."),
        ),
    ),
    Table(
        "categories",
        "Product categories, grouped into departments.",
        (
            _id("Category identifier."),
            Column("name", "text", "Category name.", unique=True),
            Column("department", "text", "Department the category belongs to."),
        ),
    ),
    Table(
        "products",
        "The product catalogue with current list price and unit cost.",
        (
            _id("Product identifier."),
            Column("sku", "text", "Stock keeping unit (unique).", unique=True),
            Column("name", "text", "Product name."),
            Column(
                "category_id", "integer", "Category of the product.", references="categories.id"
            ),
            Column("unit_cost", "money", "What one unit costs the retailer, in USD."),
            Column("unit_price", "money", "Current list price of one unit, in USD."),
            Column("is_active", "boolean", "False once the product is discontinued."),
        ),
    ),
    Table(
        "orders",
        "Customer orders (one row per order), 2024-01-01 to 2025-12-31.",
        (
            _id("Order identifier, increasing with order_date."),
            Column(
                "customer_id",
                "integer",
                "Customer who placed the order.",
                references="customers.id",
            ),
            Column(
                "store_id",
                "integer",
                "Store that sold or fulfilled the order.",
                references="stores.id",
            ),
            Column("order_date", "timestamp", "When the order was placed (local time)."),
            Column(
                "status",
                "text",
                "completed, returned or cancelled; only completed orders count as revenue.",
                check="status IN ('completed', 'returned', 'cancelled')",
            ),
            Column(
                "channel",
                "text",
                "Sales channel: in_store, online or phone.",
                check="channel IN ('in_store', 'online', 'phone')",
            ),
        ),
    ),
    Table(
        "order_items",
        "Order lines. Line revenue = quantity * unit_price * (1 - discount).",
        (
            _id("Order line identifier."),
            Column("order_id", "integer", "Order the line belongs to.", references="orders.id"),
            Column("product_id", "integer", "Product sold.", references="products.id"),
            Column("quantity", "integer", "Units sold.", check="quantity > 0"),
            Column("unit_price", "money", "Price of one unit at the time of sale, in USD."),
            Column(
                "discount",
                "fraction",
                "Discount as a fraction of the price, from 0 to 0.5.",
                check="discount >= 0 AND discount <= 0.5",
            ),
        ),
    ),
)

TABLES: tuple[str, ...] = tuple(table.name for table in SCHEMA)
"""Table names in foreign-key-safe order: every table comes after the tables it references."""

TABLE_BY_NAME: dict[str, Table] = {table.name: table for table in SCHEMA}


def column_type(column: Column, dialect: Dialect) -> str:
    """The SQL type of a column in one dialect."""
    return _TYPES[dialect][column.kind]


def create_table_sql(
    table: Table, dialect: Dialect, qualifier: str = "", *, foreign_keys: bool = True
) -> str:
    """CREATE TABLE for one table, with its primary, unique, check and foreign keys."""
    lines: list[str] = []
    for column in table.columns:
        line = f"{column.name} {column_type(column, dialect)} NOT NULL"
        if column.check:
            line += f" CHECK ({column.check})"
        lines.append(line)
    lines.append("PRIMARY KEY (id)")
    lines.extend(f"UNIQUE ({column.name})" for column in table.columns if column.unique)
    if foreign_keys:
        lines.extend(
            _foreign_key(column, qualifier) for column in table.columns if column.references
        )
    body = ",\n  ".join(lines)
    return f"CREATE TABLE {qualifier}{table.name} (\n  {body}\n)"


def _foreign_key(column: Column, qualifier: str) -> str:
    target, target_column = (column.references or "").split(".")
    return f"FOREIGN KEY ({column.name}) REFERENCES {qualifier}{target} ({target_column})"


def add_foreign_keys_sql(table: Table, qualifier: str = "") -> list[str]:
    """ALTER TABLE statements adding a table's foreign keys (checked in bulk after a load)."""
    return [
        f"ALTER TABLE {qualifier}{table.name} ADD CONSTRAINT {table.name}_{column.name}_fkey "
        + _foreign_key(column, qualifier)
        for column in table.columns
        if column.references
    ]


def comment_sql(table: Table, qualifier: str = "") -> list[str]:
    """COMMENT ON statements (PostgreSQL and DuckDB) describing a table and its columns."""

    def literal(text: str) -> str:
        return "'" + text.replace("'", "''") + "'"

    statements = [f"COMMENT ON TABLE {qualifier}{table.name} IS {literal(table.description)}"]
    statements.extend(
        f"COMMENT ON COLUMN {qualifier}{table.name}.{column.name} IS {literal(column.description)}"
        for column in table.columns
    )
    return statements


def foreign_key_index_sql(table: Table, qualifier: str = "") -> list[str]:
    """CREATE INDEX on each foreign-key column, so joins stay fast on PostgreSQL and SQLite."""
    return [
        f"CREATE INDEX {table.name}_{column.name}_idx ON {qualifier}{table.name} ({column.name})"
        for column in table.columns
        if column.references
    ]
