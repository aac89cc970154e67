"""PNG rendering: every chart type draws, odd data included, and the same chart gives the
same bytes. Pixels are not compared; the image's signature and size are."""

from __future__ import annotations

import struct
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from dataagent.charts import ChartRequest
from dataagent.charts.render import PNG_SIGNATURE, render_png


def png_size(png: bytes) -> tuple[int, int]:
    """Width and height from the PNG's IHDR chunk."""
    assert png[:8] == PNG_SIGNATURE
    assert png[12:16] == b"IHDR"
    width, height = struct.unpack(">II", png[16:24])
    return width, height


def chart(
    chart_type: str, data: list[dict[str, Any]], x: str, y: list[str], **more: Any
) -> ChartRequest:
    return ChartRequest.model_validate(
        {"chart_type": chart_type, "title": f"A {chart_type} chart", "data": data, "x": x, "y": y}
        | more
    )


REGIONS = [
    {"region": r, "revenue": v, "cost": v // 2} for r, v in (("N", 1200), ("S", 900), ("E", 30))
]
MONTHS = [{"month": f"2024-{m:02}-01", "orders": m * 1000, "returns": m} for m in range(1, 13)]
LONG = [
    {"region": r, "product": p, "sales": n}
    for r in ("North", "South", "East")
    for n, p in enumerate(("tea", "coffee", "cake"), start=1)
]

CASES = {
    "bar": chart("bar", REGIONS, "region", ["revenue"]),
    "grouped bar": chart("bar", REGIONS, "region", ["revenue", "cost"]),
    "grouped bar, long": chart("bar", LONG, "region", ["sales"], series="product"),
    "stacked bar, wide": chart("stacked_bar", REGIONS, "region", ["revenue", "cost"]),
    "stacked bar, long": chart("stacked_bar", LONG, "region", ["sales"], series="product"),
    "line over dates": chart("line", MONTHS, "month", ["orders", "returns"]),
    "line over labels": chart("line", [{"q": "Q1", "n": 1}, {"q": "Q2", "n": 3}], "q", ["n"]),
    "line over numbers": chart(
        "line", [{"year": 2023, "n": 1}, {"year": 2024, "n": 3}], "year", ["n"]
    ),
    "lines per series": chart(
        "line",
        [{"m": f"2024-0{m}", "p": p, "v": m} for m in range(1, 5) for p in "ab"],
        "m",
        ["v"],
        series="p",
    ),
    "pie": chart("pie", REGIONS, "region", ["revenue"]),
    "pie, many slices": chart(
        "pie", [{"k": f"slice {i}", "v": i + 1} for i in range(30)], "k", ["v"]
    ),
    "many categories": chart(
        "bar", [{"k": f"a long category name {i}", "v": i} for i in range(200)], "k", ["v"]
    ),
    "negative values": chart(
        "bar", [{"k": "gain", "v": 5}, {"k": "loss", "v": -3_500_000}], "k", ["v"]
    ),
    "negative stacks": chart(
        "stacked_bar",
        [{"k": "a", "up": 5, "down": -2}, {"k": "b", "up": 1, "down": -7}],
        "k",
        ["up", "down"],
    ),
    "nulls": chart(
        "line",
        [{"d": "2024-01-01", "v": 1}, {"d": "2024-01-02", "v": None}, {"d": None, "v": 4}],
        "d",
        ["v"],
    ),
    "null bars": chart("bar", [{"k": None, "v": 1}, {"k": "b", "v": None}], "k", ["v"]),
    "one row": chart("bar", [{"k": "only", "v": 0.25}], "k", ["v"]),
    "accents": chart(
        "bar", [{"k": "Zürich – Straße", "v": 1}, {"k": "São Paulo", "v": 2}], "k", ["v"]
    ),
    # Under pytest a missing glyph's warning or a "$…$" read as math would fail the test.
    "text the font lacks, dollars, underscores": chart(
        "line",
        [{"月": "2024-01", "s": "_hidden", "v": 1}, {"月": "2024-02", "s": "$x^$", "v": 2}],
        "月",
        ["v"],
        series="s",
        title="売上 📈 in $ and $ per unit",
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_each_chart_renders_a_png_of_the_asked_size(name: str) -> None:
    png = render_png(CASES[name])
    assert png_size(png) == (800, 450)
    assert len(png) > 5_000  # drawn, not blank
    assert png.endswith(b"IEND\xaeB`\x82")


def test_size_and_resolution() -> None:
    png = render_png(CASES["bar"], dpi=50, width_in=6, height_in=3)
    assert png_size(png) == (300, 150)


def test_the_same_chart_gives_the_same_bytes_and_another_chart_other_bytes() -> None:
    first = render_png(CASES["grouped bar"])
    assert render_png(CASES["grouped bar"]) == first
    assert render_png(CASES["stacked bar, wide"]) != first
    assert b"matplotlib" not in first  # no version text in the file


def test_threads_draw_side_by_side() -> None:
    names = list(CASES) * 2
    with ThreadPoolExecutor(max_workers=6) as pool:
        pngs = list(pool.map(lambda n: render_png(CASES[n]), names))
    alone = {name: render_png(CASES[name]) for name in CASES}
    assert pngs == [alone[name] for name in names]


def test_text_is_drawn_as_given() -> None:
    from dataagent.charts.render import _legend, _text

    assert _text("Cost in $ and $ per unit") == r"Cost in \$ and \$ per unit"
    assert _text("東京 Zürich") == "□□ Zürich"  # DejaVu Sans has no CJK glyphs
    assert _text("x" * 40, 10) == "x" * 9 + "…"
    assert _legend("_hidden") == " _hidden"
