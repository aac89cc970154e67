"""PNG images of Vega-Lite specs, drawn by vl-convert (Vega's own engine, bundled in the
package: no browser, no network).

The PNG is drawn from the very spec the page shows, so a chart has one source: only its
size is set for the picture (`width: "container"` means nothing outside a page). The spec
must be ours, built from validated rows (`spec.vega_lite`): `render_png` refuses data that
is not inline `values` and anything that names a URL, and vl-convert is told to load no
URL at all. Calls may run side by side in worker threads (services call this through
`asyncio.to_thread`); the same spec gives the same bytes.
"""

from __future__ import annotations

import functools
import importlib.util
import logging
import tempfile
from pathlib import Path
from typing import Any

import vl_convert

log = logging.getLogger(__name__)

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
# The Vega-Lite release the specs are written for (their `$schema` says v5).
VEGA_LITE_VERSION = "5.21"
WIDTH = 800
HEIGHT = 450
# At most this many pixels in one image (width × height × scale²): 4 megapixels.
MAX_PIXELS = 4_000_000
# Where vl-convert finds the system's fonts (as fontconfig's defaults do).
SYSTEM_FONT_FOLDERS = ("/usr/share/fonts", "/usr/local/share/fonts", "~/.local/share/fonts")
# Keys that make Vega load something from elsewhere (data, images, links).
_LOADING_KEYS = frozenset({"url", "href"})


def render_png(
    spec: dict[str, Any], width: int = WIDTH, height: int = HEIGHT, scale: float = 1.0
) -> bytes:
    """The spec drawn as a PNG of `width` × `height` pixels (times `scale`).

    ValueError when the spec's data is not inline values, when it names a URL, or when the
    image would be over `MAX_PIXELS`.
    """
    if width < 50 or height < 50 or scale <= 0:
        raise ValueError("A chart is at least 50 × 50 pixels, at a positive scale.")
    if width * height * scale * scale > MAX_PIXELS:
        raise ValueError(f"A chart image has at most {MAX_PIXELS:,} pixels.")
    check_inline(spec)
    drawn = {
        **spec,
        "width": width,
        "height": height,
        # The whole picture, title and legend included, is width × height.
        "autosize": {"type": "fit", "contains": "padding"},
    }
    _register_fonts()
    return vl_convert.vegalite_to_png(
        drawn, vl_version=VEGA_LITE_VERSION, scale=scale, allowed_base_urls=[]
    )


def check_inline(spec: dict[str, Any]) -> None:
    """ValueError unless the spec's data is `{"values": [...]}` and nothing in it (outside
    those values) is a `url` or `href`: what is drawn is only what the spec holds."""
    data = spec.get("data")
    if (
        not isinstance(data, dict)
        or set(data) != {"values"}
        or not isinstance(data["values"], list)
    ):
        raise ValueError("A chart's data must be inline values only.")
    stack: list[Any] = [{key: value for key, value in spec.items() if key != "data"}]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            named = _LOADING_KEYS.intersection(item)
            if named:
                raise ValueError(f"A chart's spec cannot name a {min(named)}.")
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


@functools.cache
def _register_fonts() -> None:
    """When the system has no fonts (vl-convert draws text with the system's), give it the
    DejaVu Sans that matplotlib bundles, so text is still drawn (once per process).

    Only DejaVu Sans is linked: the same folder's Last Resort font would be picked for any
    text with one character the others lack, and draw all of it as boxes.
    """
    if any(_has_fonts(Path(folder).expanduser()) for folder in SYSTEM_FONT_FOLDERS):
        return
    spec = importlib.util.find_spec("matplotlib")
    if spec is None or spec.origin is None:
        log.warning("no fonts found: chart text will not be drawn")
        return
    bundled = Path(spec.origin).parent / "mpl-data" / "fonts" / "ttf"
    folder = Path(tempfile.mkdtemp(prefix="dataagent-fonts-"))
    for font in bundled.glob("DejaVuSans*.ttf"):
        (folder / font.name).symlink_to(font)
    vl_convert.register_font_directory(str(folder))


def _has_fonts(folder: Path) -> bool:
    if not folder.is_dir():
        return False
    return any(path.suffix.lower() in {".ttf", ".otf", ".ttc"} for path in folder.rglob("*.*"))
