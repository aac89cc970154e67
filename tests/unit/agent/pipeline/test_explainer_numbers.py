"""The explainer's check of the numbers a narrative states against the step results."""

from __future__ import annotations

import pytest

from dataagent.agent.pipeline.numbers import known_values, stated_numbers, ungrounded

ROWS = [
    ["West", 1234567.891, 0.4512, "2024-03-01"],
    ["South", 2500, 0.3, "2024-04-01"],
    ["Midwest", 815.25, 0.2488, None],
]
VALUES = known_values(ROWS, extra=[3])


@pytest.mark.parametrize(
    "text",
    [
        "West sold 1,234,567.89 in all.",  # as written, with separators
        "West sold 1,234,568.",  # rounded
        "West sold about 1.2M, South 2,500.",  # scaled
        "West sold 1.23 million.",
        "West holds 45.1% of the total; Midwest 24.9 percent.",  # shares as percentages
        "South and Midwest together: 3,315.25.",  # a sum of two values
        "West is ahead of South by 1,232,067.89.",  # a difference
        "In March 2024 the West led.",  # a number inside a date cell
        "The top 3 regions over 12 months.",  # small counts
        "See ![chart 77](/api/charts/9d1c-4411.png) and `LIMIT 9999`.",  # links and code
        "Sales fell -815.25 in the Midwest.",
    ],
)
def test_grounded_numbers_pass(text: str) -> None:
    assert ungrounded(text, VALUES) == []


def test_numbers_the_results_do_not_hold_are_named_once() -> None:
    text = "West sold 9,999,999 and grew 37.5%, twice the 9,999,999 of 2023; 815.25 in the Midwest."
    assert ungrounded(text, VALUES) == ["9,999,999", "37.5%", "2023"]


def test_stated_numbers_read_separators_scales_and_percentages() -> None:
    found = [
        (n.text, n.value, n.decimals, n.scale, n.percent)
        for n in stated_numbers(
            "Revenue 1,234.5, 3.4k orders, 12% growth, step_1_data and Q2 ignored."
        )
    ]
    assert found == [
        ("1,234.5", 1234.5, 1, 1.0, False),
        ("3.4k", 3.4, 1, 1000.0, False),
        ("12%", 12.0, 0, 1.0, True),
    ]
