"""Suggested questions: drawn from the semantic model, the same every time, spread out, plain."""

from __future__ import annotations

import random
import re

import pytest
from tests.fixtures.compiler.compiler_golden import retail_model
from tests.fixtures.metrics import RETAIL_METRICS, with_metrics, without_metrics

from dataagent.demo import DemoData
from dataagent.demo.schema import SCHEMA, TABLE_BY_NAME, column_type
from dataagent.semantic.catalog import ColumnInfo, ForeignKeyInfo, SchemaSnapshot, TableInfo
from dataagent.semantic.generation import generate_semantic_model
from dataagent.semantic.model import Dataset, Field_, Metric, SemanticModel
from dataagent.semantic.nouns import plural, singular
from dataagent.semantic.suggestions import Suggestion, suggest_questions

SAMPLE_MAX_DISTINCT = 20  # what introspection samples by default

# The demo retailer's eight, in order: reviewed by hand; a change here should be deliberate.
DEMO_EIGHT = [
    # line amount: the generated derived field quantity * unit_price
    (
        "Top products by line amount",
        "Show the top 10 products by total line amount of order items.",
    ),
    ("Orders per month", "How many orders were there each month, by order date?"),
    ("Customers by segment", "How many customers are there per segment?"),
    ("Average unit cost by category", "What is the average unit cost of products per category?"),
    ("Average square feet by region", "What is the average square feet of stores per region?"),
    ("Categories by department", "How many categories are there per department?"),
    (
        "Total line amount per month",
        "What was the total line amount of order items each month, by order date?",
    ),
    ("Top customers by orders", "Which 10 customers have the most orders?"),
]


@pytest.fixture(scope="module")
def demo_model(demo_data: DemoData) -> SemanticModel:
    """The demo's model as `dataagent demo` generates it, from a catalog filled in the way
    introspection fills it (row counts; up to 20 sampled values of each text column)."""
    tables = []
    for name, frame in demo_data.tables().items():
        table = TABLE_BY_NAME[name]
        columns = []
        for column in table.columns:
            info = ColumnInfo(name=column.name, native_type=column_type(column, "duckdb"))
            if column.kind == "text":
                values = sorted({str(v) for v in frame[column.name].dropna().unique()})
                if len(values) <= SAMPLE_MAX_DISTINCT:
                    info.sample_values, info.distinct_count = values, len(values)
            columns.append(info)
        tables.append(
            TableInfo(
                schema_name="main",
                name=name,
                comment=table.description,
                columns=columns,
                primary_key=["id"],
                foreign_keys=[
                    ForeignKeyInfo(
                        columns=[c.name],
                        referred_table=(c.references or "").split(".")[0],
                        referred_columns=[(c.references or "").split(".")[1]],
                    )
                    for c in table.columns
                    if c.references
                ],
                row_estimate=len(frame),
            )
        )
    assert [t.name for t in tables] == [t.name for t in SCHEMA]
    return generate_semantic_model(SchemaSnapshot(dialect="duckdb", tables=tables), "retail")


def _pairs(found: list[Suggestion]) -> list[tuple[str, str]]:
    return [(s.title, s.prompt) for s in found]


def test_the_demo_retailers_suggestions(demo_model: SemanticModel) -> None:
    assert _pairs(suggest_questions(demo_model, 8)) == DEMO_EIGHT


def test_a_smaller_limit_is_a_prefix_of_a_larger_one(demo_model: SemanticModel) -> None:
    everything = suggest_questions(demo_model, 50)
    assert len(everything) > 8
    for limit in range(1, 9):
        assert suggest_questions(demo_model, limit) == everything[:limit]


def test_the_first_four_come_from_four_datasets(demo_model: SemanticModel) -> None:
    # Each suggestion names its dataset's rows; the first four name four different ones.
    first = suggest_questions(demo_model, 4)
    entities = ["order items", "orders", "customers", "products"]
    assert [next(e for e in entities if e in s.prompt) for s in first] == entities


def test_the_same_model_in_another_order_gives_the_same_suggestions(
    demo_model: SemanticModel,
) -> None:
    rng = random.Random(7)
    for _ in range(5):
        datasets, relationships = list(demo_model.datasets), list(demo_model.relationships)
        rng.shuffle(datasets)
        rng.shuffle(relationships)
        shuffled = demo_model.model_copy(
            update={"datasets": datasets, "relationships": relationships}
        )
        assert suggest_questions(shuffled, 8) == suggest_questions(demo_model, 8)


@pytest.mark.parametrize("which", ["demo", "retail"])
def test_suggestions_are_plain_english_questions(demo_model: SemanticModel, which: str) -> None:
    model = demo_model if which == "demo" else retail_model()
    found = suggest_questions(model, 50)
    titles = [s.title.lower() for s in found]
    assert len(set(titles)) == len(titles), "titles repeat"
    assert len({s.prompt for s in found}) == len(found), "prompts repeat"
    for s in found:
        for text in (s.title, s.description, s.prompt):
            assert text == text.strip() and "  " not in text, text
            assert text[0].isupper(), text
            # No SQL, no identifiers: field and table names are said as words.
            assert not re.search(r"\bselect\b.*\bfrom\b|group by|\bjoin\b|[;*=]", text, re.I)
            assert "_" not in text and "`" not in text and "(" not in text, text
            # Keys are not measures or groups.
            assert not re.search(r"\b(id|ID)\b", text), text
        assert s.description.endswith(".")
        assert s.prompt.endswith(("?", "."))
        assert len(s.title) <= 40


def test_the_hand_written_retail_model_gets_its_revenue_field() -> None:
    # The compiler tests' model has a `revenue` measure on order items, unlike the demo.
    # (Without the model's metrics, which would be asked about first.)
    first = suggest_questions(without_metrics(retail_model()), 1)[0]
    assert first.title == "Top products by revenue"
    assert first.prompt == "Show the top 10 products by total revenue of order items."


def _field(name: str, data_type: str, distinct: int | None = None) -> Field_:
    return Field_(name=name, expression=name, data_type=data_type, distinct_count=distinct)  # type: ignore[arg-type]


def test_one_uploaded_table_gets_trends_and_breakdowns() -> None:
    sales = Dataset(
        name="sales_2024",
        source="main.sales_2024",
        row_count=5000,
        fields=[
            _field("sold_on", "date"),
            _field("region", "varchar", 4),
            _field("product", "varchar", 12),
            _field("customer_email", "varchar"),
            _field("units", "integer"),
            _field("revenue", "decimal"),
            _field("store_id", "integer"),
        ],
    )
    model = SemanticModel(name="upload", dialect="duckdb", datasets=[sales])
    assert _pairs(suggest_questions(model, 8)) == [
        (
            "Total revenue per month",
            "What was the total revenue of sales 2024 each month, by sold date?",
        ),
        ("Total revenue by region", "What is the total revenue of sales 2024 per region?"),
        ("Sales 2024 by region", "How many sales 2024 are there per region?"),
        (
            "Total units per month",
            "What was the total units of sales 2024 each month, by sold date?",
        ),
        ("Total units by product", "What is the total units of sales 2024 per product?"),
        ("Explore sales 2024", "Show a few sales 2024."),
    ]


def test_a_table_of_keys_and_names_is_offered_to_explore() -> None:
    people = Dataset(
        name="person",
        source="main.person",
        primary_key=["id"],
        fields=[
            _field("id", "integer"),
            _field("full_name", "varchar"),
            _field("email", "varchar"),
        ],
    )
    model = SemanticModel(name="p", dialect="sqlite", datasets=[people])
    assert suggest_questions(model, 4) == [
        Suggestion(
            "Explore people",
            "A first look at the people data: a few of its rows.",
            "Show a few people.",
        )
    ]


def test_an_empty_model_has_nothing_to_suggest() -> None:
    assert suggest_questions(SemanticModel(name="e", dialect="sqlite"), 4) == []


def test_a_small_table_gets_no_trend() -> None:
    stores = Dataset(
        name="stores",
        source="main.stores",
        row_count=10,
        fields=[_field("opened_on", "date"), _field("region", "varchar", 4)],
    )
    found = suggest_questions(SemanticModel(name="s", dialect="sqlite", datasets=[stores]), 8)
    assert [s.title for s in found] == ["Stores by region", "Explore stores"]


@pytest.mark.parametrize(
    ("one", "many"),
    [
        ("order item", "order items"),
        ("category", "categories"),
        ("box", "boxes"),
        ("status", "statuses"),
        ("address", "addresses"),
        ("analysis", "analyses"),
        ("person", "people"),
        ("day", "days"),
        ("data", "data"),
        ("SKU", "SKUs"),
        ("purchase", "purchases"),
    ],
)
def test_plural_and_singular(one: str, many: str) -> None:
    assert plural(one) == many
    assert plural(many) == many
    assert singular(many) == one


# --- metrics ----------------------------------------------------------------------------------


def test_metrics_come_first_one_question_each() -> None:
    model = with_metrics(retail_model())
    found = suggest_questions(model, 9)
    assert _pairs(found[:7]) == [
        ("Revenue by channel", "Show revenue per channel."),
        ("Gross margin per month", "Show gross margin for each month, by order date."),
        ("Margin % by department", "Show margin % per department."),
        ("Orders per month", "Show orders for each month, by order date."),
        ("Returned orders by segment", "Show returned orders per segment."),
        ("Return rate per month", "Show return rate for each month, by order date."),
        ("Units sold by status", "Show units sold per status."),
    ]
    # Then the dataset-based ones, as without metrics (less what a metric already asked).
    assert found[7] == suggest_questions(without_metrics(retail_model()), 1)[0]
    assert found[0].description == "Revenue for each channel."


def test_metric_suggestions_are_a_prefix_and_plain() -> None:
    model = with_metrics(retail_model())
    everything = suggest_questions(model, 50)
    for limit in range(1, 9):
        assert suggest_questions(model, limit) == everything[:limit]
    titles = [s.title.lower() for s in everything]
    assert len(set(titles)) == len(titles)
    for s in everything:
        assert "_" not in s.prompt and "(" not in s.prompt and s.prompt[0].isupper()
        assert s.description.endswith(".") and len(s.title) <= 40


def test_a_metric_is_not_grouped_by_what_it_filters_on() -> None:
    # Revenue counts completed orders only: "revenue by status" would say nothing.
    only_revenue = [m for m in RETAIL_METRICS if m["name"] == "revenue"]
    first = suggest_questions(with_metrics(retail_model(), only_revenue), 1)[0]
    assert first.title == "Revenue by channel"


def test_a_metric_with_nothing_to_group_or_date_by_is_left_out() -> None:
    people = Dataset(
        name="person",
        source="main.person",
        fields=[_field("id", "integer"), _field("full_name", "varchar")],
    )
    model = SemanticModel(
        name="p",
        dialect="sqlite",
        datasets=[people],
        metrics=[Metric(name="people", dataset="person", aggregation="count")],
    )
    assert [s.title for s in suggest_questions(model, 4)] == ["Explore people"]


def test_generated_metrics_are_not_asked_about() -> None:
    generated = [{**m, "generated": True} for m in RETAIL_METRICS]
    bare = without_metrics(retail_model())
    assert suggest_questions(with_metrics(bare, generated), 8) == suggest_questions(bare, 8)
