"""DDL rendering for the demo tables."""

from __future__ import annotations

from dataagent.demo.schema import (
    TABLE_BY_NAME,
    add_foreign_keys_sql,
    comment_sql,
    create_table_sql,
)


def test_create_table_carries_keys_and_checks() -> None:
    ddl = create_table_sql(TABLE_BY_NAME["order_items"], "duckdb")
    assert "PRIMARY KEY (id)" in ddl
    assert "FOREIGN KEY (order_id) REFERENCES orders (id)" in ddl
    assert "FOREIGN KEY (product_id) REFERENCES products (id)" in ddl
    assert "discount DECIMAL(4,2) NOT NULL CHECK (discount >= 0 AND discount <= 0.5)" in ddl


def test_postgres_ddl_is_qualified_and_can_defer_foreign_keys() -> None:
    table = TABLE_BY_NAME["orders"]
    ddl = create_table_sql(table, "postgresql", '"sales".', foreign_keys=False)
    assert ddl.startswith('CREATE TABLE "sales".orders')
    assert "FOREIGN KEY" not in ddl
    assert add_foreign_keys_sql(table, '"sales".') == [
        'ALTER TABLE "sales".orders ADD CONSTRAINT orders_customer_id_fkey '
        'FOREIGN KEY (customer_id) REFERENCES "sales".customers (id)',
        'ALTER TABLE "sales".orders ADD CONSTRAINT orders_store_id_fkey '
        'FOREIGN KEY (store_id) REFERENCES "sales".stores (id)',
    ]


def test_comments_describe_the_table_and_every_column() -> None:
    statements = comment_sql(TABLE_BY_NAME["orders"])
    assert statements[0].startswith("COMMENT ON TABLE orders IS '")
    assert len(statements) == 1 + len(TABLE_BY_NAME["orders"].columns)
