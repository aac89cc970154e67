"""The words a semantic model knows: its metrics, datasets and fields, as phrases.

Pure module. Each metric is said by its name, its label and its synonyms; each dataset by
its name (singular and plural); each field by its name and its label, alone and after its
dataset's name ("store city", "order status"). One phrase may mean several things ("city"
is a store's and a customer's; "orders" is a metric and a dataset): the planner decides
from the rest of the question.
"""

from __future__ import annotations

import threading
import weakref
from collections import deque
from dataclasses import dataclass, field
from typing import Literal

from dataagent.ontology.values import words
from dataagent.semantic.generation import humanise
from dataagent.semantic.model import Cardinality, Dataset, DataType, Field_, SemanticModel
from dataagent.semantic.nouns import plural, singular

NUMERIC = (DataType.INTEGER, DataType.DECIMAL, DataType.FLOAT, DataType.OTHER)
TEMPORAL = (DataType.DATE, DataType.TIMESTAMP)
# Time fields that do not date the row itself.
SIDE_DATES = frozenset(
    {"updated", "modified", "deleted", "birth", "dob", "expires", "expiry", "born"}
)
NAMING = ("name", "title", "label")
TABLE_PREFIXES = frozenset({"dim", "fact", "fct", "tbl", "stg", "vw"})

SenseKind = Literal["metric", "field", "dataset"]


@dataclass(frozen=True)
class Sense:
    """One thing a phrase can mean: a metric (by name), a field (`dataset.field`), a dataset."""

    kind: SenseKind
    name: str
    negated: bool = False  # a true-or-false field said in the negative ("inactive")
    generic: bool = False  # said by a word any dataset may use ("name", "id")

    @property
    def dataset(self) -> str:
        """The dataset of a field or dataset sense (empty for a metric)."""
        return self.name.split(".")[0] if self.kind != "metric" else ""


@dataclass
class Lexicon:
    """Phrases (tuples of lower-case words) and what they can mean."""

    model: SemanticModel
    phrases: dict[tuple[str, ...], list[Sense]] = field(default_factory=dict)
    longest: int = 0
    _parents: dict[str, list[str]] = field(default_factory=dict)
    # `dataset.field` of every column that joins to another dataset (a key, not a name).
    foreign_keys: set[str] = field(default_factory=set)
    # Pairs of datasets joined by more than one relationship (which one a question means
    # is not said: "friends of Kyle" may follow either key).
    parallel: set[frozenset[str]] = field(default_factory=set)

    def add(self, phrase: tuple[str, ...], sense: Sense) -> None:
        if not phrase:
            return
        senses = self.phrases.setdefault(phrase, [])
        if sense not in senses:
            senses.append(sense)
            self.longest = max(self.longest, len(phrase))

    def match(self, tokens: list[str], start: int) -> tuple[int, list[Sense]] | None:
        """The longest phrase starting at `start`: its length in words and its senses."""
        for size in range(min(self.longest, len(tokens) - start), 0, -1):
            senses = self.phrases.get(tuple(tokens[start : start + size]))
            if senses:
                return size, senses
        return None

    def field_of(self, name: str) -> tuple[Dataset, Field_]:
        dataset_name, field_name = name.split(".", 1)
        dataset = self.model.dataset(dataset_name)
        assert dataset is not None
        found = dataset.field(field_name)
        assert found is not None
        return dataset, found

    def distances(self, home: str) -> dict[str, int]:
        """Datasets reachable from `home` along many-to-one relationships, with hops."""
        seen = {home: 0}
        queue = deque([home])
        while queue:
            current = queue.popleft()
            for parent in self._parents.get(current, []):
                if parent not in seen:
                    seen[parent] = seen[current] + 1
                    queue.append(parent)
        return seen

    def naming_field(self, dataset: Dataset) -> Field_:
        """The field that names a dataset's rows (`name`, a label, else the key)."""
        one = words(singular(_entity(dataset)))

        def rank(f: Field_) -> int:
            tokens = name_words(f.name)
            label = words(f.label or "")
            if f.name.lower() in NAMING:
                return 0
            if label and label[-1] == "name" and label[:-1] == one:
                return 1
            if tokens == one and f.data_type is DataType.VARCHAR:
                return 1  # airlines.Airline
            if "full" in tokens and "name" in tokens:
                return 2
            if any(t in NAMING for t in tokens) and f.data_type is DataType.VARCHAR:
                return 3
            return 5 if not f.is_primary_key else 4

        return min(dataset.fields, key=rank)

    def date_fields(self, dataset: Dataset) -> list[Field_]:
        return [
            f
            for f in dataset.fields
            if f.data_type in TEMPORAL and not set(name_words(f.name)) & SIDE_DATES
        ]


def name_words(identifier: str) -> list[str]:
    """The words of a name as people say them: `PlaylistTrack` -> playlist track,
    `unit_price` -> unit price."""
    return words(humanise(identifier)) if identifier else []


def _entity(dataset: Dataset) -> str:
    parts = name_words(dataset.name)
    if len(parts) > 1 and parts[0] in TABLE_PREFIXES:
        parts = parts[1:]
    return " ".join(parts)


def _forms(phrase: list[str]) -> set[tuple[str, ...]]:
    """A phrase as written, in the singular and in the plural (its last word)."""
    if not phrase:
        return set()
    text = " ".join(phrase)
    return {tuple(phrase), tuple(singular(text).split()), tuple(plural(text).split())}


def _add_flag(lexicon: Lexicon, dataset: Dataset, f: Field_) -> None:
    """A true-or-false field by its word ("active", from `is_active`), and its negatives."""
    for text in (f.name, f.label or ""):
        said = name_words(text)
        if len(said) > 1 and said[0] in ("is", "has", "was"):
            said = said[1:]
        if len(said) != 1:
            continue
        word = said[0]
        lexicon.add((word,), Sense("field", f"{dataset.name}.{f.name}"))
        for prefix in ("in", "un", "non"):
            lexicon.add((prefix + word,), Sense("field", f"{dataset.name}.{f.name}", negated=True))
        lexicon.add(("non", word), Sense("field", f"{dataset.name}.{f.name}", negated=True))


# Words of a date field's name that say it is a date, not what happened.
DATE_WORDS = frozenset({"date", "at", "on", "time", "timestamp", "datetime", "day", "dt"})
PARTICLES = ("up", "in", "out", "off")


def _add_event(lexicon: Lexicon, dataset: Dataset, f: Field_) -> None:
    """A date field by the event it dates: `opened_on` is when a store "opened" ("open"),
    `signup_date` when a customer "signed up" (a "signup")."""
    said = [w for w in name_words(f.name) if w not in DATE_WORDS]
    if len(said) != 1 or len(said[0]) < 4:
        return
    word = said[0]
    if not word.endswith("ed") and not word.endswith(PARTICLES):
        return  # "tourney_date" dates a tourney, it names no event
    sense = Sense("field", f"{dataset.name}.{f.name}")
    forms: set[tuple[str, ...]] = {(word,), (word + "s",)}
    if word.endswith("ed"):
        forms |= {(word[:-2],), (word[:-1],), (word[:-2] + "s",)}  # opened: open, opens
    for particle in PARTICLES:
        stem = word[: -len(particle)]
        if word.endswith(particle) and len(stem) >= 3:
            # signup: sign up, signed up, signs up, signups
            forms |= {(stem, particle), (stem + "ed", particle), (stem + "s", particle)}
    for form in forms:
        lexicon.add(form, sense)


_CACHE: dict[int, tuple[weakref.ref[SemanticModel], Lexicon]] = {}
_CACHE_LOCK = threading.Lock()


def lexicon_of(model: SemanticModel) -> Lexicon:
    """The model's lexicon, built once per model object while it lives (a model is not
    changed in place once loaded)."""
    key = id(model)
    with _CACHE_LOCK:
        cached = _CACHE.get(key)
        if cached is not None and cached[0]() is model:
            return cached[1]
    lexicon = build_lexicon(model)
    with _CACHE_LOCK:
        _CACHE[key] = (weakref.ref(model, lambda _: _CACHE.pop(key, None)), lexicon)
    return lexicon


def build_lexicon(model: SemanticModel) -> Lexicon:
    """Every phrase of the model and what it can mean."""
    lexicon = Lexicon(model)
    foreign: dict[str, set[str]] = {d.name: set() for d in model.datasets}
    pairs: dict[frozenset[str], int] = {}
    for r in model.relationships:
        foreign[r.from_dataset].update(r.from_columns)
        lexicon.foreign_keys |= {f"{r.from_dataset}.{c}" for c in r.from_columns}
        pair = frozenset((r.from_dataset, r.to_dataset))
        pairs[pair] = pairs.get(pair, 0) + 1
    lexicon.parallel = {pair for pair, count in pairs.items() if count > 1}
    for m in model.metrics:
        sense = Sense("metric", m.name)
        for said in (name_words(m.name), words(m.label or ""), *map(words, m.synonyms)):
            for form in _forms(said):
                lexicon.add(form, sense)
    for d in model.datasets:
        entity = words(_entity(d))
        for form in _forms(entity) | _forms(name_words(d.name)):
            lexicon.add(form, Sense("dataset", d.name))
        one = words(singular(" ".join(entity)))
        for f in d.fields:
            sense = Sense("field", f"{d.name}.{f.name}")
            for said in (name_words(f.name), words(f.label or "")):
                for form in _forms(said):
                    lexicon.add(form, sense)
                if said[: len(one)] != one:
                    for form in _forms([*one, *said]):
                        lexicon.add(form, sense)
                elif said[len(one) :] in (["id"], ["name"]):
                    # `CountryName` is also "the name" of a country, `ContId` "the id".
                    general = Sense("field", sense.name, generic=True)
                    for form in _forms(said[len(one) :]):
                        lexicon.add(form, general)
        for f in d.fields:
            if f.data_type is DataType.BOOLEAN:
                _add_flag(lexicon, d, f)
            if f.data_type in TEMPORAL:
                _add_event(lexicon, d, f)
        keys = [f for f in d.fields if f.is_primary_key]
        key = keys[0] if len(keys) == 1 and keys[0].name not in foreign[d.name] else None
        if key is not None and key.label is not None:
            # "Order Line ID" names the rows of order_items: "order lines".
            said = words(key.label)
            if len(said) > 1 and said[-1] == "id":
                for form in _forms(said[:-1]):
                    lexicon.add(form, Sense("dataset", d.name))
    for r in model.relationships:
        if r.cardinality in (Cardinality.MANY_TO_ONE, Cardinality.ONE_TO_ONE):
            child, parent = r.from_dataset, r.to_dataset
        elif r.cardinality is Cardinality.ONE_TO_MANY:
            child, parent = r.to_dataset, r.from_dataset
        else:
            continue
        if child != parent:
            lexicon._parents.setdefault(child, []).append(parent)
    return lexicon
