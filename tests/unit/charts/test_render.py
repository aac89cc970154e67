"""PNG rendering from the Vega-Lite spec (vl-convert): every chart type draws, odd data
included, the same spec gives the same bytes, and nothing but inline values is drawn.
Pixels are not compared; the image's signature, size and (for text) Vega's scenegraph are."""

from __future__ import annotations

import struct
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
import vl_convert

from dataagent.charts import ChartRequest, render, vega_lite
from dataagent.charts.render import MAX_PIXELS, PNG_SIGNATURE, check_inline, render_png


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
    "scatter": chart(
        "scatter",
        [{"store": f"store {i}", "revenue": 1000 + 37 * i, "orders": i % 7} for i in range(60)],
        "revenue",
        ["orders"],
        label="store",
    ),
    "scatter, no label, nulls": chart(
        "scatter",
        [{"a": 1.5, "b": -2}, {"a": None, "b": 3}, {"a": "2,500", "b": 0.5}],
        "a",
        ["b"],
    ),
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
    # Text no font here has, dollars (once read as math) and underscores (once hidden).
    "text the font lacks, dollars, underscores": chart(
        "line",
        [{"月": "2024-01", "s": "_hidden", "v": 1}, {"月": "2024-02", "s": "$x^$", "v": 2}],
        "月",
        ["v"],
        series="s",
        title="売上 📈 in $ and $ per unit",
    ),
}


def png(request: ChartRequest, **size: Any) -> bytes:
    return render_png(vega_lite(request), **size)


@pytest.mark.parametrize("name", list(CASES))
def test_each_chart_renders_a_png_of_the_asked_size(name: str) -> None:
    image = png(CASES[name])
    assert png_size(image) == (800, 450)
    assert len(image) > 5_000  # drawn, not blank
    assert image.endswith(b"IEND\xaeB`\x82")


def test_size_and_scale() -> None:
    assert png_size(png(CASES["bar"], width=300, height=150)) == (300, 150)
    assert png_size(png(CASES["bar"], width=300, height=150, scale=2)) == (600, 300)


def test_the_pixel_budget_is_kept() -> None:
    with pytest.raises(ValueError, match="at most 4,000,000 pixels"):
        png(CASES["bar"], width=4000, height=2000)
    with pytest.raises(ValueError, match="at most 4,000,000 pixels"):
        png(CASES["bar"], width=1000, height=1000, scale=3)
    with pytest.raises(ValueError, match="at least 50"):
        png(CASES["bar"], width=10, height=450)
    assert MAX_PIXELS == 4_000_000


def test_the_same_chart_gives_the_same_bytes_and_another_chart_other_bytes() -> None:
    first = png(CASES["grouped bar"])
    assert png(CASES["grouped bar"]) == first
    assert png(CASES["stacked bar, wide"]) != first


def test_the_png_is_drawn_from_the_spec_as_given() -> None:
    """One chart, one source: a change to the spec is a change to the picture."""
    spec = vega_lite(CASES["bar"])
    retitled = spec | {"title": "Another title"}
    assert render_png(retitled) != render_png(spec)
    assert spec["width"] == "container"  # the caller's spec is left as it was


def test_threads_draw_side_by_side() -> None:
    names = list(CASES)[:8] * 2
    with ThreadPoolExecutor(max_workers=6) as pool:
        pngs = list(pool.map(lambda n: png(CASES[n]), names))
    alone = {name: png(CASES[name]) for name in set(names)}
    assert pngs == [alone[name] for name in names]


def _texts(scenegraph: Any) -> list[str]:
    """Every text item Vega lays out in a scenegraph."""
    found: list[str] = []
    stack = [scenegraph]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if isinstance(item.get("text"), str):
                found.append(item["text"])
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found


def test_text_is_drawn_as_given() -> None:
    spec = vega_lite(CASES["text the font lacks, dollars, underscores"])
    texts = _texts(vl_convert.vegalite_to_scenegraph(spec, allowed_base_urls=[]))
    assert "売上 📈 in $ and $ per unit" in texts
    assert {"_hidden", "$x^$"} <= set(texts)


@pytest.mark.parametrize(
    "data",
    [
        {"url": "https://example.invalid/data.json"},
        {"url": "file:///etc/passwd", "format": {"type": "csv"}},
        {"values": [{"k": "a", "v": 1}], "url": "https://example.invalid/data.json"},
        {"name": "elsewhere"},
        {"values": "k,v\na,1"},
    ],
)
def test_data_other_than_inline_values_is_refused(data: dict[str, Any]) -> None:
    spec = vega_lite(CASES["bar"]) | {"data": data}
    with pytest.raises(ValueError, match="inline values only"):
        render_png(spec)


@pytest.mark.parametrize(
    "more",
    [
        {"layer": [{"data": {"url": "https://example.invalid/x.json"}, "mark": "bar"}]},
        {"transform": [{"lookup": "k", "from": {"data": {"url": "x.csv"}, "key": "k"}}]},
        {"encoding": {"href": {"field": "k"}}},
        {"mark": {"type": "image", "url": "https://example.invalid/a.png"}},
    ],
)
def test_a_spec_naming_a_url_anywhere_is_refused(more: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match="cannot name a"):
        check_inline(vega_lite(CASES["bar"]) | more)


def test_values_and_names_that_look_like_urls_are_only_text() -> None:
    """A column named `url` holding links is data, drawn as labels and never fetched."""
    request = chart(
        "bar",
        [{"url": "https://example.invalid/a", "href": 3}, {"url": "file:///etc/passwd", "href": 4}],
        "url",
        ["href"],
    )
    spec = vega_lite(request)
    check_inline(spec)
    texts = _texts(vl_convert.vegalite_to_scenegraph(spec, allowed_base_urls=[]))
    assert "file:///etc/passwd" in texts
    assert png_size(render_png(spec)) == (800, 450)


def test_vl_convert_itself_loads_no_url(monkeypatch: pytest.MonkeyPatch) -> None:
    """The second layer: even past `check_inline`, vl-convert is told to load nothing."""
    monkeypatch.setattr(render, "check_inline", lambda spec: None)
    spec = vega_lite(CASES["bar"]) | {"data": {"url": "http://127.0.0.1:9/rows.json"}}
    with pytest.raises(ValueError, match="External data url not allowed"):
        render.render_png(spec)


def test_without_system_fonts_only_dejavu_sans_is_lent(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A machine with no fonts still draws text, with matplotlib's DejaVu Sans; never its
    Last Resort font, which would draw a whole label as boxes."""
    registered: list[str] = []
    monkeypatch.setattr(render, "SYSTEM_FONT_FOLDERS", (str(tmp_path / "none"),))
    monkeypatch.setattr(render.vl_convert, "register_font_directory", registered.append)
    render._register_fonts.__wrapped__()
    (folder,) = registered
    names = sorted(p.name for p in Path(folder).iterdir())
    assert "DejaVuSans.ttf" in names and "DejaVuSans-Bold.ttf" in names
    assert all(name.startswith("DejaVuSans") for name in names)


def test_with_system_fonts_nothing_is_lent(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    (tmp_path / "truetype").mkdir()
    (tmp_path / "truetype" / "Some.ttf").write_bytes(b"")
    registered: list[str] = []
    monkeypatch.setattr(render, "SYSTEM_FONT_FOLDERS", (str(tmp_path),))
    monkeypatch.setattr(render.vl_convert, "register_font_directory", registered.append)
    render._register_fonts.__wrapped__()
    assert registered == []


def test_a_scatter_chart_is_drawn_point_by_point_with_its_axes_titled() -> None:
    spec = vega_lite(CASES["scatter"])
    scene = vl_convert.vegalite_to_scenegraph(spec, allowed_base_urls=[])
    assert {"revenue", "orders"} <= set(_texts(scene))
    symbols = _marks_of(scene, "symbol")
    assert len(symbols) == 60  # one point per row, none summed or cut
    assert png_size(png(CASES["scatter"], width=400, height=300)) == (400, 300)


def _marks_of(scenegraph: Any, marktype: str) -> list[Any]:
    """The items of every mark of this type in a scenegraph."""
    items: list[Any] = []
    stack = [scenegraph]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if node.get("marktype") == marktype and node.get("role") == "mark":
                items.extend(node.get("items", []))
            else:
                stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return items
