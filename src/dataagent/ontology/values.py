"""The value index: the distinct values of an ontology's low-cardinality text fields.

Pure module. The ontology build reads `SELECT DISTINCT` of each text field with few
values and stores them; the offline planner looks up which of them a question names
("revenue in Houston", "Electronics", "online orders") to turn them into filters.

Matching is on whole words, case-insensitive, with punctuation ignored: "Camping & Hiking"
is the words `camping and hiking`, "in_store" is `in store`, "Men's Apparel" is `mens
apparel`. The longest value wins where two overlap ("Houston Galleria" over "Houston").
A value held by two fields (a store's city and a customer's city) is ambiguous unless the
question also names one of the fields or its dataset ("stores in Houston").
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from dataagent.semantic.model import DataType, SemanticModel
from dataagent.semantic.nouns import singular

MAX_VALUE_LENGTH = 100
MAX_DISTINCT = 200
# A value of one or two letters ("IN", "OR", "CO") matches only when written in its case.
SHORT = 2

# A number keeps its decimal point and thousands separators ("1,000.50"); other
# punctuation separates words.
_WORD = re.compile(r"[0-9]+(?:[.,][0-9]+)*|[A-Za-z0-9]+")


def question_words(text: str) -> list[tuple[str, str]]:
    """(lower-case word, word as written) pairs: `&` read as `and`, `%` as `percent`,
    apostrophes dropped."""
    text = (
        text.replace("&", " and ").replace("%", " percent ").replace("'", "").replace("\u2019", "")
    )
    return [(w.lower(), w) for w in _WORD.findall(text)]


def words(text: str) -> list[str]:
    """Lower-case words of a text, as `question_words` splits them."""
    return [w for w, _ in question_words(text)]


# A two-letter US state code is also named by the state: "stores in Texas" is state TX.
US_STATES = {
    "AL": "Alabama", "AK": "Alaska", "AZ": "Arizona", "AR": "Arkansas", "CA": "California",
    "CO": "Colorado", "CT": "Connecticut", "DE": "Delaware", "DC": "District of Columbia",
    "FL": "Florida", "GA": "Georgia", "HI": "Hawaii", "ID": "Idaho", "IL": "Illinois",
    "IN": "Indiana", "IA": "Iowa", "KS": "Kansas", "KY": "Kentucky", "LA": "Louisiana",
    "ME": "Maine", "MD": "Maryland", "MA": "Massachusetts", "MI": "Michigan",
    "MN": "Minnesota", "MS": "Mississippi", "MO": "Missouri", "MT": "Montana",
    "NE": "Nebraska", "NV": "Nevada", "NH": "New Hampshire", "NJ": "New Jersey",
    "NM": "New Mexico", "NY": "New York", "NC": "North Carolina", "ND": "North Dakota",
    "OH": "Ohio", "OK": "Oklahoma", "OR": "Oregon", "PA": "Pennsylvania",
    "RI": "Rhode Island", "SC": "South Carolina", "SD": "South Dakota", "TN": "Tennessee",
    "TX": "Texas", "UT": "Utah", "VT": "Vermont", "VA": "Virginia", "WA": "Washington",
    "WV": "West Virginia", "WI": "Wisconsin", "WY": "Wyoming",
}  # fmt: skip


@dataclass(frozen=True)
class IndexedValue:
    """One distinct value of one field."""

    dataset: str
    field: str
    value: str

    @property
    def label(self) -> str:
        return f"{self.dataset}.{self.field}"


@dataclass(frozen=True)
class ValueMatch:
    """Words of a question that name a value: `start`/`end` index the question's words."""

    text: str
    start: int
    end: int
    values: tuple[IndexedValue, ...]

    @property
    def ambiguous(self) -> bool:
        """True when the value belongs to more than one field."""
        return len({v.label for v in self.values}) > 1


def _field_words(value: IndexedValue) -> set[str]:
    names = {*words(value.field), *words(value.dataset)}
    return names | {singular(w) for w in names}


class ValueIndex:
    """Distinct values by field, with a lookup of the values a question names."""

    def __init__(self, values: Iterable[IndexedValue] = ()) -> None:
        self._values: list[IndexedValue] = []
        self._by_words: dict[tuple[str, ...], list[IndexedValue]] = {}
        # The first and last date of date fields ("dataset.field" -> (min, max), ISO text).
        self.extents: dict[str, tuple[str, str]] = {}
        for v in values:
            self.add(v)

    def set_extent(self, dataset: str, field: str, low: object, high: object) -> None:
        """Record the first and last value of a date or timestamp field (None: no rows)."""
        if low is None or high is None:
            return
        self.extents[f"{dataset}.{field}"] = (str(low)[:10], str(high)[:10])

    def extent(self, label: str) -> tuple[dt.date, dt.date] | None:
        """The first and last day a date field holds, when the build read them."""
        found = self.extents.get(label)
        if found is None:
            return None
        try:
            return dt.date.fromisoformat(found[0]), dt.date.fromisoformat(found[1])
        except ValueError:
            return None

    def add(self, value: IndexedValue) -> None:
        """Index one value (skipped when too long, empty, a number or already there)."""
        text = value.value.strip()
        key = tuple(words(text))
        if not key or len(text) > MAX_VALUE_LENGTH or text.replace(".", "").isdigit():
            return
        bucket = self._by_words.setdefault(key, [])
        if any(v.label == value.label and v.value == value.value for v in bucket):
            return
        bucket.append(value)
        self._values.append(value)
        state = US_STATES.get(text)
        if state is not None:
            named = self._by_words.setdefault(tuple(words(state)), [])
            if value not in named:
                named.append(value)

    def __len__(self) -> int:
        return len(self._values)

    @property
    def values(self) -> list[IndexedValue]:
        return list(self._values)

    def of_field(self, dataset: str, field: str) -> list[str]:
        """The values of one field, in index order."""
        return [v.value for v in self._values if v.dataset == dataset and v.field == field]

    def to_rows(self) -> list[dict[str, str]]:
        """JSON-able rows: `{"dataset", "field", "value", "kind"}`; `kind` is `value`, or
        `min`/`max` for a date field's extent."""
        rows = [
            {"dataset": v.dataset, "field": v.field, "value": v.value, "kind": "value"}
            for v in self._values
        ]
        for label, (low, high) in self.extents.items():
            dataset, field = label.split(".", 1)
            rows.append({"dataset": dataset, "field": field, "value": low, "kind": "min"})
            rows.append({"dataset": dataset, "field": field, "value": high, "kind": "max"})
        return rows

    @classmethod
    def from_rows(cls, rows: Iterable[Mapping[str, Any]]) -> ValueIndex:
        """The index from rows as `to_rows` gives them (`kind` defaults to `value`)."""
        index = cls()
        bounds: dict[tuple[str, str], dict[str, str]] = {}
        for r in rows:
            kind = r.get("kind") or "value"
            dataset, field, value = str(r["dataset"]), str(r["field"]), str(r["value"])
            if kind == "value":
                index.add(IndexedValue(dataset, field, value))
            else:
                bounds.setdefault((dataset, field), {})[kind] = value
        for (dataset, field), pair in bounds.items():
            index.set_extent(dataset, field, pair.get("min"), pair.get("max"))
        return index

    @classmethod
    def from_model(cls, model: SemanticModel) -> ValueIndex:
        """An index from the sample values a model records for its few-valued text fields
        (all of them, when `distinct_count` says the samples are all there is)."""
        found = []
        for d in model.datasets:
            for f in d.fields:
                if f.data_type is not DataType.VARCHAR or not f.sample_values:
                    continue
                if f.distinct_count is None or f.distinct_count > len(f.sample_values):
                    continue
                found += [IndexedValue(d.name, f.name, str(s)) for s in f.sample_values]
        return cls(found)

    def merged(self, other: ValueIndex) -> ValueIndex:
        """This index with the values (and date extents) of `other` added."""
        index = ValueIndex([*self._values, *other._values])
        index.extents = {**self.extents, **other.extents}
        return index

    def lookup(self, question: str) -> list[ValueMatch]:
        """The values a question names, longest first where they overlap, in question order.

        A value held by several fields keeps only the fields whose name or dataset the
        question also uses, when it uses any of them (see `ValueMatch.ambiguous`).
        """
        tokens = question_words(question)
        said = {t[0] for t in tokens} | {singular(t[0]) for t in tokens}
        longest = max((len(k) for k in self._by_words), default=0)
        found: list[ValueMatch] = []
        i = 0
        while i < len(tokens):
            for size in range(min(longest, len(tokens) - i), 0, -1):
                key = tuple(t[0] for t in tokens[i : i + size])
                bucket = self._by_words.get(key)
                if not bucket:
                    continue
                written = " ".join(t[1] for t in tokens[i : i + size])
                bucket = [
                    v
                    for v in bucket
                    if len(v.value) > SHORT
                    or v.value in written.split()
                    or size > 1
                    or len(key[0]) > SHORT
                ]
                if not bucket:
                    continue
                named = [v for v in bucket if _field_words(v) & (said - set(key))]
                chosen = tuple(named or bucket)
                found.append(ValueMatch(written, i, i + size, chosen))
                i += size
                break
            else:
                i += 1
        return found
