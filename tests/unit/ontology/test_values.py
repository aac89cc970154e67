"""The value index: which values a question names, and its rows."""

from __future__ import annotations

import datetime as dt

from dataagent.ontology.values import IndexedValue, ValueIndex, question_words

INDEX = ValueIndex(
    [
        IndexedValue("stores", "city", "Houston"),
        IndexedValue("stores", "name", "Houston Galleria"),
        IndexedValue("customers", "city", "Houston"),
        IndexedValue("stores", "state", "TX"),
        IndexedValue("stores", "state", "IN"),
        IndexedValue("orders", "channel", "in_store"),
        IndexedValue("orders", "channel", "online"),
        IndexedValue("categories", "name", "Camping & Hiking"),
        IndexedValue("categories", "name", "Men's Apparel"),
        IndexedValue("cities", "name", "New York"),
        IndexedValue("cities", "name", "York"),
    ]
)


def named(question: str) -> list[tuple[str, list[str]]]:
    return [(m.text, [v.label for v in m.values]) for m in INDEX.lookup(question)]


def test_whole_words_any_case_longest_first() -> None:
    assert named("revenue of houston galleria") == [("houston galleria", ["stores.name"])]
    assert named("trips to New York and York") == [
        ("New York", ["cities.name"]),
        ("York", ["cities.name"]),
    ]
    assert named("Houstonian shoppers") == []  # whole words only


def test_punctuation_and_underscores_are_ignored() -> None:
    assert named("camping and hiking sales") == [("camping and hiking", ["categories.name"])]
    assert named("Camping & Hiking") == [("Camping and Hiking", ["categories.name"])]
    assert named("mens apparel") == [("mens apparel", ["categories.name"])]
    assert named("in-store orders") == [("in store", ["orders.channel"])]


def test_a_value_in_two_fields_is_ambiguous_unless_the_field_is_named() -> None:
    [match] = INDEX.lookup("revenue in Houston")
    assert match.ambiguous
    assert {v.label for v in match.values} == {"stores.city", "customers.city"}
    [match] = INDEX.lookup("stores in Houston")
    assert not match.ambiguous and match.values[0].label == "stores.city"
    [match] = INDEX.lookup("customers in Houston")
    assert [v.label for v in match.values] == ["customers.city"]


def test_short_codes_match_only_in_their_case_and_states_by_name() -> None:
    assert named("orders in Houston") == [("Houston", ["stores.city", "customers.city"])]
    assert named("stores in IN") == [("IN", ["stores.state"])]
    assert named("stores in Texas") == [("Texas", ["stores.state"])]
    assert named("stores in tx") == []


def test_rows_round_trip_with_date_extents() -> None:
    index = ValueIndex([IndexedValue("orders", "channel", "online")])
    index.set_extent("orders", "order_date", "2024-01-01 08:00:00", dt.date(2025, 12, 31))
    index.set_extent("orders", "shipped_on", None, None)  # no rows: nothing recorded
    rows = index.to_rows()
    assert rows == [
        {"dataset": "orders", "field": "channel", "value": "online", "kind": "value"},
        {"dataset": "orders", "field": "order_date", "value": "2024-01-01", "kind": "min"},
        {"dataset": "orders", "field": "order_date", "value": "2025-12-31", "kind": "max"},
    ]
    again = ValueIndex.from_rows(rows)
    assert again.to_rows() == rows
    assert again.extent("orders.order_date") == (dt.date(2024, 1, 1), dt.date(2025, 12, 31))
    assert again.extent("orders.shipped_on") is None


def test_long_empty_numeric_and_repeated_values_are_skipped() -> None:
    index = ValueIndex(
        [
            IndexedValue("t", "f", "x" * 101),
            IndexedValue("t", "f", "  "),
            IndexedValue("t", "f", "2024"),
            IndexedValue("t", "f", "Gold"),
            IndexedValue("t", "f", "Gold"),
        ]
    )
    assert index.of_field("t", "f") == ["Gold"]


def test_question_words_keep_numbers_whole() -> None:
    assert [w for w, _ in question_words("over $1,000.50 or 30% of Q4")] == [
        "over",
        "1,000.50",
        "or",
        "30",
        "percent",
        "of",
        "q4",
    ]
