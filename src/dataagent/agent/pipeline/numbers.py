"""The numbers an answer's text states, checked against the values the steps returned.

A number in the narrative is grounded when it is a result value as written or rounded
(`1,234,568`, `1.2M`, `1.23 million` for 1234567.8), a share written as a percentage (`45%` for
0.45 or 45), or the sum or difference of two result values. Anything else is reported, so
the explainer can add a caveat naming it. Numbers inside links, images and code are not read;
nor are small counts (0 to 12: "the top 3", "12 months"), which a text uses without a result
stating them.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

# Values compared pairwise (sums, differences): enough for the rows an answer shows.
MAX_VALUES = 200
SMALL_COUNT = 12
_SCALES = {
    "k": 1e3,
    "thousand": 1e3,
    "m": 1e6,
    "mn": 1e6,
    "million": 1e6,
    "millions": 1e6,
    "b": 1e9,
    "bn": 1e9,
    "billion": 1e9,
    "billions": 1e9,
}
_NUMBER = re.compile(
    r"(?<![\w.\-/:])"  # not inside a word, an identifier, a date's middle, a path or a time
    r"(?P<sign>[-−])?[$€£]?"
    r"(?P<digits>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
    r"(?:\s?(?P<percent>%|percent\b)|\s?(?P<scale>k|mn?|bn?|thousand|millions?|billions?)\b)?"
    r"(?![\w])",
    re.IGNORECASE,
)
# Links, images and code: `[text](url)`, `![alt](url)`, inline and fenced code.
_SKIPPED = re.compile(r"!?\[[^\]]*\]\([^)]*\)|```.*?```|`[^`]*`", re.S)
_IN_TEXT = re.compile(r"\d+(?:\.\d+)?")


@dataclass(frozen=True)
class Stated:
    """A number as the text states it."""

    text: str
    value: float
    decimals: int
    scale: float = 1.0
    percent: bool = False


def stated_numbers(text: str) -> list[Stated]:
    """The numbers `text` states (outside links, images and code)."""
    found = []
    for match in _NUMBER.finditer(_SKIPPED.sub(" ", text)):
        digits = match.group("digits").replace(",", "")
        value = float(digits)
        if match.group("sign"):
            value = -value
        decimals = len(digits.split(".", 1)[1]) if "." in digits else 0
        scale = _SCALES.get((match.group("scale") or "").lower(), 1.0)
        found.append(
            Stated(match.group(0).strip(), value, decimals, scale, bool(match.group("percent")))
        )
    return found


@dataclass(frozen=True)
class Known:
    """What backs a number: every value the results state, and the numeric cells among them
    (only those add up: a year in a date minus a day is no result)."""

    values: list[float]
    cells: list[float]


def known_values(rows: Iterable[Sequence[Any]], extra: Iterable[Any] = ()) -> Known:
    """The numbers the results hold: numeric cells, and numbers inside text cells (dates,
    labels), then `extra` (row counts, the question's numbers)."""
    values: list[float] = []
    cells: list[float] = []
    for row in rows:
        for cell in row:
            found = _numbers_of(cell)
            values += found
            if _is_numeric(cell):
                cells += found
    for item in extra:
        values += _numbers_of(item)
    return Known(_finite(values), _finite(cells)[:MAX_VALUES])


def _finite(values: list[float]) -> list[float]:
    return list(dict.fromkeys(v for v in values if math.isfinite(v)))


def _is_numeric(cell: Any) -> bool:
    if isinstance(cell, bool) or cell is None:
        return False
    if isinstance(cell, int | float):
        return True
    try:
        float(str(cell))
    except ValueError:
        return False
    return True


def _numbers_of(cell: Any) -> list[float]:
    if isinstance(cell, bool) or cell is None:
        return []
    if isinstance(cell, int | float):
        return [float(cell)]
    text = str(cell)
    try:
        return [float(text)]
    except ValueError:
        return [float(n) for n in _IN_TEXT.findall(text)]


def ungrounded(text: str, known: Known) -> list[str]:
    """The numbers `text` states that the results do not back, as written, each once."""
    missing: list[str] = []
    for number in stated_numbers(text):
        if not number.percent and number.scale == 1 and _small(number):
            continue
        if _grounded(number, known.values, known.cells):
            continue
        if number.text not in missing:
            missing.append(number.text)
    return missing


def _small(number: Stated) -> bool:
    return number.decimals == 0 and 0 <= number.value <= SMALL_COUNT


def _grounded(number: Stated, pool: Sequence[float], pairs: Sequence[float]) -> bool:
    candidates = [number.value * number.scale]
    if number.percent:
        candidates.append(number.value / 100)
    # Half a unit of the last digit shown: the value rounded as written.
    tolerance = 0.5 * 10.0 ** (-number.decimals) * number.scale * (1 + 1e-9)
    for target in candidates:
        slack = tolerance / 100 if number.percent and target != candidates[0] else tolerance
        if any(abs(abs(v) - abs(target)) <= slack for v in pool):
            return True
        for i, a in enumerate(pairs):
            for b in pairs[i + 1 :]:
                if abs(a + b - target) <= slack or abs(abs(a - b) - abs(target)) <= slack:
                    return True
    return False
