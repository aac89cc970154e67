"""The generated demo data: deterministic, consistent, and shaped like a real retailer."""

from __future__ import annotations

import numpy as np
import pandas as pd

from dataagent.demo import SCHEMA, TABLES, DemoData, generate

# The columns other parts of the product are built against (columns may be added, never
# renamed or removed).
CONTRACT = {
    "stores": ["id", "name", "city", "state", "region", "opened_on", "square_feet"],
    "customers": [
        "id", "first_name", "last_name", "email", "city", "state", "segment", "signup_date",
    ],
    "categories": ["id", "name", "department"],
    "products": ["id", "sku", "name", "category_id", "unit_cost", "unit_price", "is_active"],
    "orders": ["id", "customer_id", "store_id", "order_date", "status", "channel"],
    "order_items": ["id", "order_id", "product_id", "quantity", "unit_price", "discount"],
}  # fmt: skip

FOREIGN_KEYS = [
    ("products", "category_id", "categories"),
    ("orders", "customer_id", "customers"),
    ("orders", "store_id", "stores"),
    ("order_items", "order_id", "orders"),
    ("order_items", "product_id", "products"),
]


def test_same_seed_gives_identical_data(demo_data: DemoData) -> None:
    again = generate(7)
    assert again.fingerprint() == demo_data.fingerprint()
    for name in TABLES:
        pd.testing.assert_frame_equal(again.tables()[name], demo_data.tables()[name])


def test_another_seed_gives_other_data(demo_data: DemoData) -> None:
    assert generate(8).fingerprint() != demo_data.fingerprint()


def test_tables_follow_the_contract_in_foreign_key_order(demo_data: DemoData) -> None:
    assert tuple(CONTRACT) == TABLES
    assert list(demo_data.tables()) == list(TABLES)
    for table in SCHEMA:
        assert table.column_names[: len(CONTRACT[table.name])] == CONTRACT[table.name]
        assert list(demo_data.tables()[table.name].columns) == table.column_names
    for child, _, parent in FOREIGN_KEYS:
        assert TABLES.index(parent) < TABLES.index(child)


def test_row_counts_are_in_range(demo_data: DemoData) -> None:
    counts = demo_data.row_counts()
    assert 8 <= counts["stores"] <= 12
    assert 2_000 <= counts["customers"] <= 6_000
    assert 8 <= counts["categories"] <= 15
    assert 150 <= counts["products"] <= 300
    assert 25_000 <= counts["orders"] <= 45_000
    assert 90_000 <= counts["order_items"] <= 110_000


def test_primary_keys_are_unique_positive_integers(demo_data: DemoData) -> None:
    for name, frame in demo_data.tables().items():
        ids = frame["id"]
        assert ids.is_unique, name
        assert ids.min() == 1 and ids.max() == len(frame), name


def test_every_foreign_key_resolves(demo_data: DemoData) -> None:
    tables = demo_data.tables()
    for child, column, parent in FOREIGN_KEYS:
        assert tables[child][column].isin(tables[parent]["id"]).all(), (child, column)


def test_values_stay_in_their_domains(demo_data: DemoData) -> None:
    customers, orders, items = demo_data.customers, demo_data.orders, demo_data.order_items
    assert set(customers["segment"]) == {"consumer", "small_business", "corporate"}
    assert customers["email"].is_unique
    assert set(orders["status"]) == {"completed", "returned", "cancelled"}
    assert set(orders["channel"]) == {"in_store", "online", "phone"}
    assert orders["order_date"].min() >= pd.Timestamp("2024-01-01")
    assert orders["order_date"].max() < pd.Timestamp("2026-01-01")
    assert (items["quantity"] > 0).all()
    assert items["discount"].between(0, 0.5).all()
    for money in (items["unit_price"], demo_data.products["unit_price"]):
        assert (money > 0).all()
        assert np.allclose(money, money.round(2))


def test_customers_order_only_after_signing_up(demo_data: DemoData) -> None:
    orders = demo_data.orders.merge(
        demo_data.customers[["id", "signup_date"]], left_on="customer_id", right_on="id"
    )
    assert (orders["order_date"] >= orders["signup_date"]).all()
    assert demo_data.customers["signup_date"].is_monotonic_increasing


def test_order_ids_follow_time(demo_data: DemoData) -> None:
    assert demo_data.orders["order_date"].is_monotonic_increasing


def test_an_order_lists_each_product_once(demo_data: DemoData) -> None:
    assert not demo_data.order_items.duplicated(["order_id", "product_id"]).any()


def test_products_are_unique_and_mostly_profitable(demo_data: DemoData) -> None:
    products = demo_data.products
    assert products["sku"].is_unique
    assert products["name"].is_unique
    margin = (products["unit_price"] - products["unit_cost"]) / products["unit_price"]
    assert (margin > 0).mean() >= 0.9
    assert margin.median() > 0.25
    assert products["is_active"].mean() > 0.8


def test_discontinued_products_stop_selling(demo_data: DemoData) -> None:
    items = demo_data.order_items.merge(demo_data.orders, left_on="order_id", right_on="id")
    items = items.merge(demo_data.products, left_on="product_id", right_on="id")
    inactive = items[~items["is_active"]]
    assert len(inactive) > 0
    assert inactive["order_date"].max() < pd.Timestamp("2025-10-01")


def test_sales_peak_in_the_holidays_and_at_weekends(demo_data: DemoData) -> None:
    dates = demo_data.orders["order_date"]
    by_month = dates.dt.month.value_counts()
    assert by_month.idxmax() == 12
    assert by_month[12] > 1.5 * by_month[[1, 2, 3, 4, 5, 6, 7, 9, 10]].max()
    by_weekday = dates.dt.day_of_week.value_counts()
    assert by_weekday[5] > 1.3 * by_weekday[[0, 1, 2, 3]].max()  # Saturday vs Mon-Thu
