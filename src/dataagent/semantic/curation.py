"""Curation: a new generation merged into a semantic model people have edited.

Pure (pydantic and the model's own checks). A three-way merge, item by item, where an item
is a dataset's own attributes, a field (`dataset.field`), a relationship or a metric, each
known by its name:

* `base` is what the generator produced last time, `ours` the stored model as people left
  it, `theirs` the new generation.
* Unchanged by people (ours == base): follow the generator, removal included.
* Edited by people: keep their version; the attributes they did not touch still follow the
  generator (new sample values, a new type), and the item is marked `generated: false`.
* Deleted by people (in base, not in ours): stays deleted. Added by people: kept.
  New from the generator: added.
* A dataset whose table the generator no longer sees goes, edits and all: its queries
  could only fail (unless a person pointed it at another table that is there).
* Last, whatever no longer holds together is dropped with the reason (a person's field on a
  column that is gone, a relationship or metric naming a field that is gone), so the result
  always validates.

Without a base (models stored before generations were kept), every `generated: true` item
and every item equal to the new generation (statistics aside) counts as unedited, and
everything else as a person's. Row counts, sample values and distinct counts are facts about
the data: a new value is never reported as an update (and, without a base, a difference in
them does not make an item a person's).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ValidationError

from dataagent.semantic.expressions import ExpressionError, bare_column, field_problem, metric_uses
from dataagent.semantic.model import Dataset, Field_, Metric, Relationship, SemanticModel

ChangeKind = Literal["dataset", "field", "relationship", "metric"]
ChangeType = Literal["added", "removed", "updated", "kept_edit", "kept_deletion", "dropped"]

STATISTICS = frozenset({"row_count", "sample_values", "distinct_count"})
# The generator's dataset description repeats the row count: a new count is not an update.
_ROWS_NOTE = re.compile(r" with [\d,]+ rows?(?=\.$)")
_GENERATED_DESCRIPTION = re.compile(r"^Generated from an? \w+ database with ")
_KINDS: dict[str, type[BaseModel]] = {
    "dataset": Dataset,
    "field": Field_,
    "relationship": Relationship,
    "metric": Metric,
}

Item = dict[str, Any]


class ModelChange(BaseModel):
    """One thing a regeneration did to the model, and why when it was not the obvious."""

    kind: ChangeKind
    name: str
    change: ChangeType
    reason: str | None = None


@dataclass
class _Items:
    """A model as items: plain dicts by name, in the model's order."""

    top: Item
    datasets: dict[str, Item]  # a dataset's own attributes, without its fields
    fields: dict[str, dict[str, Item]]  # dataset -> field -> attributes
    relationships: dict[str, Item]
    metrics: dict[str, Item]

    @classmethod
    def of(cls, model: SemanticModel) -> _Items:
        return cls(
            top={"name": model.name, "description": model.description, "dialect": model.dialect},
            datasets={
                d.name: d.model_dump(mode="json", exclude={"fields"}) for d in model.datasets
            },
            fields={
                d.name: {f.name: f.model_dump(mode="json") for f in d.fields}
                for d in model.datasets
            },
            relationships={r.name: r.model_dump(mode="json") for r in model.relationships},
            metrics={m.name: m.model_dump(mode="json") for m in model.metrics},
        )

    @classmethod
    def empty(cls, top: Item) -> _Items:
        return cls(top=dict(top), datasets={}, fields={}, relationships={}, metrics={})

    def sources(self) -> set[str]:
        return {d["source"] for d in self.datasets.values()}


@dataclass
class _Log:
    """The changes so far, one per item; a later word on an item replaces an earlier one."""

    changes: dict[tuple[str, str], ModelChange] = field(default_factory=dict)

    def add(self, kind: ChangeKind, name: str, change: ChangeType, reason: str | None) -> None:
        self.changes[(kind, name)] = ModelChange(kind=kind, name=name, change=change, reason=reason)


def facts(item: Item) -> Item:
    """An item without its statistics (and without the row count its description repeats)."""
    out = {k: v for k, v in item.items() if k not in STATISTICS}
    if isinstance(out.get("description"), str) and "primary_key" in out:  # a dataset
        out["description"] = _ROWS_NOTE.sub("", out["description"])
    return out


def _persons(item: Item) -> Item:
    """An item as a person's own: no longer marked generated."""
    return {**item, "generated": False} if "generated" in item else item


def _edited(ours: Item, base: Item) -> list[str]:
    return [k for k in dict.fromkeys([*ours, *base]) if ours.get(k) != base.get(k)]


def _combine(kind: ChangeKind, base: Item, ours: Item, theirs: Item) -> Item:
    """Theirs, with the attributes people changed taken from ours; ours if that mix is not
    a valid item."""
    edited = set(_edited(ours, base))
    merged = {k: ours.get(k) if k in edited else theirs.get(k) for k in {**theirs, **ours}}
    if "generated" in merged:
        merged["generated"] = False
    # a dataset's fields are merged on their own: check its attributes with a stand-in
    stand_in = {"primary_key": [], "fields": [{"name": "x", "expression": "x"}]}
    try:
        _KINDS[kind].model_validate({**merged, **stand_in} if kind == "dataset" else merged)
    except ValidationError:
        return _persons(ours)
    return merged


def _merge_one(
    kind: ChangeKind,
    name: str,
    base: Item | None,
    ours: Item | None,
    theirs: Item | None,
    log: _Log,
) -> Item | None:
    """One item's three-way merge: what the model keeps (None: nothing)."""
    if ours is None:
        if theirs is None:
            return None
        if base is None:
            log.add(kind, name, "added", None)
            return theirs
        log.add(kind, name, "kept_deletion", "deleted by you; the generator still proposes it")
        return None
    if base is None:
        if theirs is None:
            return ours
        if facts(ours) == facts(theirs):
            return theirs
        log.add(kind, name, "kept_edit", "yours is kept; the generator proposes a different one")
        return _persons(ours)
    if ours == base:
        if theirs is None:
            log.add(kind, name, "removed", "the generator no longer proposes it")
            return None
        if facts(theirs) != facts(base):
            log.add(kind, name, "updated", f"new {', '.join(_edited(facts(theirs), facts(base)))}")
        return theirs
    edited = ", ".join(k for k in _edited(ours, base) if k != "generated")
    if theirs is None:
        log.add(
            kind, name, "kept_edit", f"edited by you ({edited}); the generator no longer has it"
        )
        return _persons(ours)
    log.add(kind, name, "kept_edit", f"edited by you ({edited})")
    return _combine(kind, base, ours, theirs)


def _no_base(ours: _Items, theirs: _Items) -> _Items:
    """The base to assume when the last generation was not kept: every item of ours that is
    marked generated or equals the new generation (statistics aside); and every dataset over
    a table the generator no longer sees (the generator reads every table it may)."""

    def unedited(item: Item, new: Item | None) -> bool:
        return bool(item.get("generated")) or (new is not None and facts(item) == facts(new))

    top = {k: v for k, v in ours.top.items() if k != "description"}
    if _GENERATED_DESCRIPTION.match(ours.top["description"] or ""):
        top["description"] = ours.top["description"]
    base = _Items.empty(top)
    sources = theirs.sources()
    for name, ds in ours.datasets.items():
        if ds["source"] not in sources:  # gone from the database: all of it counts as generated
            base.datasets[name], base.fields[name] = ds, dict(ours.fields[name])
            continue
        if unedited(ds, theirs.datasets.get(name)):
            base.datasets[name] = ds
        known = theirs.fields.get(name, {})
        base.fields[name] = {
            f: item for f, item in ours.fields[name].items() if unedited(item, known.get(f))
        }
    for attr in ("relationships", "metrics"):
        mine, new = getattr(ours, attr), getattr(theirs, attr)
        getattr(base, attr).update(
            {n: item for n, item in mine.items() if unedited(item, new.get(n))}
        )
    return base


def merge_models(
    base: SemanticModel | None, ours: SemanticModel, theirs: SemanticModel
) -> tuple[SemanticModel, list[ModelChange]]:
    """`theirs` (a new generation) merged into `ours` (people's model) given `base` (the
    generation ours started from, None when unknown): the model, and what changed."""
    o, t = _Items.of(ours), _Items.of(theirs)
    b = _Items.of(base) if base is not None else _no_base(o, t)
    log = _Log()
    top = {k: t.top[k] if k in b.top and o.top[k] == b.top[k] else o.top[k] for k in o.top}
    datasets, fields = _merge_datasets(b, o, t, log)
    relationships = _merge_all(
        "relationship", b.relationships, o.relationships, t.relationships, log
    )
    metrics = _merge_all("metric", b.metrics, o.metrics, t.metrics, log)
    model = _Repair(top, datasets, fields, relationships, metrics, t, log).run()
    return model, list(log.changes.values())


def _merge_all(
    kind: ChangeKind,
    base: dict[str, Item],
    ours: dict[str, Item],
    theirs: dict[str, Item],
    log: _Log,
    prefix: str = "",
) -> dict[str, Item]:
    """Every item of one kind merged: ours in their order, then new ones in theirs'."""
    out: dict[str, Item] = {}
    for name in [*ours, *(n for n in theirs if n not in ours)]:
        b, o, t = base.get(name), ours.get(name), theirs.get(name)
        merged = _merge_one(kind, f"{prefix}{name}", b, o, t, log)
        if merged is not None:
            out[name] = merged
    return out


def _merge_datasets(
    b: _Items, o: _Items, t: _Items, log: _Log
) -> tuple[dict[str, Item], dict[str, dict[str, Item]]]:
    """Datasets and their fields merged; a dataset whose table went goes with its fields."""
    datasets: dict[str, Item] = {}
    fields: dict[str, dict[str, Item]] = {}
    sources = t.sources()
    for name in [*o.datasets, *(n for n in t.datasets if n not in o.datasets)]:
        base, ours, theirs = b.datasets.get(name), o.datasets.get(name), t.datasets.get(name)
        base_fields = b.fields.get(name, {})
        if ours is not None and base is not None and theirs is None:
            if ours["source"] != base["source"] and ours["source"] in sources:
                # pointed at another table by a person: ours, fields and all
                log.add("dataset", name, "kept_edit", "edited by you (source)")
                datasets[name], fields[name] = ours, dict(o.fields[name])
                continue
            # the table is gone (or renamed): nothing of the dataset can be queried any more
            _dataset_gone(name, base, ours, base_fields, o.fields[name], sources, log)
            continue
        merged = _merge_one("dataset", name, base, ours, theirs, log)
        if merged is None:
            continue
        datasets[name] = merged
        if ours is None:  # new from the generator: all its fields, reported once
            fields[name] = dict(t.fields[name])
            continue
        fields[name] = _merge_all(
            "field", base_fields, o.fields[name], t.fields.get(name, {}), log, f"{name}."
        )
    return datasets, fields


def _dataset_gone(
    name: str,
    base: Item,
    ours: Item,
    base_fields: dict[str, Item],
    our_fields: dict[str, Item],
    sources: set[str],
    log: _Log,
) -> None:
    table = ours["source"]
    gone = f"its table {table} is no longer in the database"
    if table in sources:
        gone = f"the generator names its table {table} differently now"
    if ours == base:
        log.add("dataset", name, "removed", gone)
    else:
        log.add("dataset", name, "dropped", f"{gone}; your edits to it are dropped")
    for f, item in our_fields.items():
        if base_fields.get(f) != item:
            log.add("field", f"{name}.{f}", "dropped", f"its dataset {name} is gone")


@dataclass
class _Repair:
    """Drops, with the reason, what no longer holds together, until the model validates."""

    top: Item
    datasets: dict[str, Item]
    fields: dict[str, dict[str, Item]]
    relationships: dict[str, Item]
    metrics: dict[str, Item]
    theirs: _Items
    log: _Log

    def run(self) -> SemanticModel:
        self._fields()
        self._relationships()
        self._metrics()
        return SemanticModel.model_validate(
            {**self.top, **self._structure(), "metrics": list(self.metrics.values())}
        )

    def _drop(self, kind: ChangeKind, name: str, reason: str) -> None:
        self.log.add(kind, name, "dropped", reason)

    def _dataset(self, name: str) -> Dataset:
        item = self.datasets[name]
        return Dataset.model_construct(
            **{k: v for k, v in item.items() if k != "fields"},
            fields=[Field_.model_validate(f) for f in self.fields[name].values()],
        )

    def _stored_columns(self, name: str) -> set[str] | None:
        """The columns the new generation saw in this dataset's table (lower case); None
        when it did not see the table."""
        source = self.datasets[name]["source"]
        theirs = next((n for n, d in self.theirs.datasets.items() if d["source"] == source), None)
        if theirs is None:
            return None
        dialect = self.top["dialect"]
        found = (
            bare_column(Field_.model_validate(f), dialect)
            for f in self.theirs.fields[theirs].values()
        )
        return {c.lower() for c in found if c is not None}

    def _fields(self) -> None:
        dialect = self.top["dialect"]
        for name in list(self.datasets):
            columns = self._stored_columns(name)
            changed = True
            while changed:  # a derived field can rest on a column dropped in the pass before
                changed = False
                dataset = self._dataset(name)
                for f in dataset.fields:
                    column = bare_column(f, dialect)
                    if column is not None:
                        if columns is not None and column.lower() not in columns:
                            reason = f"column {column} is no longer in {dataset.source}"
                        else:
                            continue
                    else:
                        reason = field_problem(dataset, f, dialect) or ""
                        if not reason:
                            continue
                    del self.fields[name][f.name]
                    self._drop("field", f"{name}.{f.name}", reason)
                    changed = True
                    break
            if not self.fields[name]:
                del self.datasets[name], self.fields[name]
                self._drop("dataset", name, "none of its fields is left")
                continue
            item = self.datasets[name]
            item["primary_key"] = [k for k in item.get("primary_key", []) if k in self.fields[name]]

    def _relationships(self) -> None:
        for name, rel in list(self.relationships.items()):
            for side in ("from", "to"):
                ds = rel[f"{side}_dataset"]
                missing = [c for c in rel[f"{side}_columns"] if c not in self.fields.get(ds, {})]
                if ds not in self.datasets:
                    reason = f"dataset {ds} is gone"
                elif missing:
                    reason = f"{ds}.{missing[0]} is gone"
                else:
                    continue
                del self.relationships[name]
                self._drop("relationship", name, reason)
                break

    def _structure(self) -> Item:
        return {
            "datasets": [
                {**item, "fields": list(self.fields[name].values())}
                for name, item in self.datasets.items()
            ],
            "relationships": list(self.relationships.values()),
        }

    def _metrics(self) -> None:
        model = SemanticModel.model_validate({**self.top, **self._structure()})
        for name, item in list(self.metrics.items()):
            metric = Metric.model_validate(item)
            if metric.is_ratio:
                continue
            reason = None
            if model.dataset(metric.dataset or "") is None:
                reason = f"dataset {metric.dataset} is gone"
            else:
                try:
                    metric_uses(model, metric)
                except ExpressionError as exc:
                    reason = str(exc)
            if reason is not None:
                del self.metrics[name]
                self._drop("metric", name, reason)
        for name, item in list(self.metrics.items()):
            parts = [item.get("numerator"), item.get("denominator")]
            missing = [p for p in parts if p is not None and p not in self.metrics]
            if missing:
                del self.metrics[name]
                self._drop("metric", name, f"its part {missing[0]} is gone")
