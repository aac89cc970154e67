"""A report as one self-contained HTML file: nothing to run, nothing to fetch.

Every text of the report (the model's narrative, the data's values, titles) is escaped: the
markdown is rendered by markdown-it with raw HTML off (it comes out as text), links are
shown as their text and address (no `href`), images in the text as their alt text, and
charts as `data:` URIs of their stored images. There is no script, no external resource, and
a Content-Security-Policy meta element (the route sends the same header) that would stop
either: `default-src 'none'; img-src data:; style-src 'unsafe-inline'`.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Sequence
from html import escape
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict

from dataagent.services.reports import (
    Block,
    ChartBlock,
    ItemsBlock,
    LineageBlock,
    MarkdownBlock,
    Report,
    SqlBlock,
    TableBlock,
    VerificationBlock,
)

CONTENT_SECURITY_POLICY = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"
# The raster types a chart is kept as (services.charts refuses any other).
_IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})

_STYLE = """
body { font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
  color: #1f2328; max-width: 960px; margin: 2rem auto; padding: 0 1rem; }
h1 { font-size: 1.6rem; margin-bottom: .25rem; }
h2 { font-size: 1.2rem; margin-top: 2rem; border-bottom: 1px solid #d0d7de; }
.meta { color: #59636e; font-size: .9rem; }
.question { background: #f6f8fa; border-left: 4px solid #0969da; padding: .5rem 1rem; }
table { border-collapse: collapse; margin: .5rem 0; font-size: .9rem; }
th, td { border: 1px solid #d0d7de; padding: .25rem .5rem; text-align: left; }
th { background: #f6f8fa; }
td.number { text-align: right; font-variant-numeric: tabular-nums; }
figure { margin: 1rem 0; }
figure img { max-width: 100%; height: auto; border: 1px solid #d0d7de; }
pre { background: #f6f8fa; padding: .75rem; overflow-x: auto; white-space: pre-wrap; }
.passed { color: #1a7f37; } .failed { color: #d1242f; }
.url { color: #59636e; word-break: break-all; }
"""


def render_html(report: Report) -> str:
    """The report as one HTML document (UTF-8 text)."""
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{CONTENT_SECURITY_POLICY}">',
        '<meta name="referrer" content="no-referrer">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{escape(report.title)}</title>",
        f"<style>{_STYLE}</style>",
        "</head>",
        "<body>",
        "<main>",
        f"<h1>{escape(report.title)}</h1>",
        f'<p class="meta">Answered {escape(report.created_at.strftime("%Y-%m-%d %H:%M UTC"))}</p>',
    ]
    if report.question and report.question != report.title:  # the title is its first line
        parts.append(f'<blockquote class="question">{_text(report.question)}</blockquote>')
    for block in report.blocks:
        parts.append(_block(block, report))
    parts += ["</main>", "</body>", "</html>", ""]
    return "\n".join(parts)


def _block(block: Block, report: Report) -> str:
    if isinstance(block, MarkdownBlock):
        return f'<section class="narrative">{_markdown(block.text)}</section>'
    if isinstance(block, ChartBlock):
        return _chart(block, report)
    if isinstance(block, TableBlock):
        return _table(block)
    if isinstance(block, ItemsBlock):
        heading = "Assumptions" if block.type == "assumptions" else "Caveats"
        items = "".join(f"<li>{_text(item)}</li>" for item in block.items)
        return f"<section><h2>{heading}</h2><ul>{items}</ul></section>"
    if isinstance(block, LineageBlock):
        return _lineage(block)
    if isinstance(block, VerificationBlock):
        return _verification(block)
    return _sql(block)


def _chart(block: ChartBlock, report: Report) -> str:
    caption = f"<figcaption>{escape(block.title)}</figcaption>" if block.title else ""
    image = report.images.get(block.chart_id)
    if image is None or image[1] not in _IMAGE_TYPES:
        return f"<figure><p>(The chart's image is not available.)</p>{caption}</figure>"
    content, media_type = image
    source = f"data:{media_type};base64,{base64.b64encode(content).decode('ascii')}"
    alt = escape(block.title or "chart")
    return f'<figure><img src="{source}" alt="{alt}">{caption}</figure>'


def _table(block: TableBlock) -> str:
    head = "".join(f"<th>{escape(column)}</th>" for column in block.columns)
    body = "".join("<tr>" + "".join(_cell(value) for value in row) + "</tr>" for row in block.rows)
    shown = len(block.rows)
    note = f"{block.row_count:,} row{'s' if block.row_count != 1 else ''}"
    if block.truncated or shown < block.row_count:
        note += f"; the first {shown:,} shown"
    return (
        f"<section><h2>{escape(block.title)}</h2>"
        f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
        f'<p class="meta">{note}</p></section>'
    )


def _cell(value: Any) -> str:
    if value is None:
        return '<td class="null">NULL</td>'
    if isinstance(value, bool):
        return f"<td>{'true' if value else 'false'}</td>"
    if isinstance(value, int | float):
        return f'<td class="number">{escape(str(value))}</td>'
    if isinstance(value, list | dict):
        return f"<td>{escape(json.dumps(value, ensure_ascii=False, default=str))}</td>"
    return f"<td>{escape(str(value))}</td>"


def _lineage(block: LineageBlock) -> str:
    rows: list[tuple[str, str]] = []
    if block.datasets:
        rows.append(("Datasets", ", ".join(block.datasets)))
    for join in block.joins:
        rows.append(("Join", f"{join.from_} → {join.to} on {join.on}"))
    if block.filters:
        rows.append(("Filters", "; ".join(block.filters)))
    if block.time_window:
        rows.append(("Time window", block.time_window))
    if block.grain:
        rows.append(("Grain", block.grain))
    if block.row_count is not None:
        rows.append(("Rows", f"{block.row_count:,}"))
    body = "".join(f"<tr><th>{escape(k)}</th><td>{escape(v)}</td></tr>" for k, v in rows)
    return f"<section><h2>Data lineage</h2><table><tbody>{body}</tbody></table></section>"


def _verification(block: VerificationBlock) -> str:
    verdict = "passed" if block.passed else "failed"
    items = "".join(
        f'<li class="{"passed" if check.passed else "failed"}">'
        f"{'✓' if check.passed else '✗'} {escape(check.name)}"
        f"{': ' + escape(check.message) if check.message else ''}</li>"
        for check in block.checks
    )
    return (
        f'<section><h2>Verification</h2><p class="{verdict}">The checks {verdict}.</p>'
        f"<ul>{items}</ul></section>"
    )


def _sql(block: SqlBlock) -> str:
    heading = f"SQL of step {block.step_id}" if block.step_id is not None else "SQL"
    return f"<section><h2>{heading}</h2><pre><code>{escape(block.sql)}</code></pre></section>"


def _text(text: str) -> str:
    """Plain text, escaped, its line breaks kept."""
    return escape(text).replace("\n", "<br>")


# --- markdown ---------------------------------------------------------------------------------


def _markdown(text: str) -> str:
    return _MARKDOWN.render(text, {"links": []})


def _link_open(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    # A link is shown as its text and then its address, never followed from the file.
    env["links"].append(str(tokens[idx].attrGet("href") or ""))
    return ""


def _link_close(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    href = env["links"].pop()
    if not href or tokens[idx].markup == "autolink":  # <https://…> shows its address already
        return ""
    return f' <span class="url">({escape(href)})</span>'


def _image(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    alt = self.renderInlineAsText(tokens[idx].children or [], options, env)
    return f'<span class="image">[image: {escape(alt)}]</span>'


def _markdown_renderer() -> MarkdownIt:
    # CommonMark with tables and strikethrough; raw HTML off, so `<script>` is text.
    renderer = MarkdownIt("commonmark", {"html": False}).enable(["table", "strikethrough"])
    renderer.add_render_rule("link_open", _link_open)
    renderer.add_render_rule("link_close", _link_close)
    renderer.add_render_rule("image", _image)
    return renderer


_MARKDOWN = _markdown_renderer()


def report_filename(report: Report) -> str:
    """A safe download name: `report-` and the title's ASCII words, `.html`."""
    words = re.sub(r"[^a-z0-9]+", "-", report.title.lower()).strip("-")[:60].strip("-")
    stamp = report.created_at.strftime("%Y%m%d-%H%M")
    return f"report-{words + '-' if words else ''}{stamp}.html"
