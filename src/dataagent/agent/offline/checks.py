"""Checks of an assembled plan: readings the offline planner should not answer with.

Pure module. A list keeps one row per record; two relationships between two datasets, a
value met only many to many, a HAVING with nothing grouped and a negation through a
one-to-many join are doubts or abstentions.
"""

from __future__ import annotations

from dataagent.agent.offline.draft import AMBIGUOUS, Draft
from dataagent.semantic.model import Dataset
from dataagent.semantic.plan import Dimension, Filter


def one_row_each(draft: Draft) -> None:
    """A list of a dataset's rows keeps one row per record: "the names of the teachers"
    lists two teachers of the same name twice. The dataset's key is added as a column
    unless every listed field is a category (few values, as "which regions are there")."""
    if draft.values or draft.sample or draft.distinct or draft.top is not None:
        return
    if not draft.dimensions:
        return
    grouped = [d for d in draft.dimensions if not d.time_grain]
    owners = {d.field.split(".")[0] for d in grouped}
    if len(grouped) != len(draft.dimensions):
        return
    if draft.row_owner is not None:
        # "the names of poker players": one row per poker player, with its person's name.
        owner = draft.row_owner
        if not all(o in draft.lexicon.distances(owner) for o in owners):
            return
    elif len(owners) == 1:
        owner = owners.pop()
    else:
        return
    dataset = draft.model.dataset(owner)
    assert dataset is not None
    keys = [f for f in dataset.fields if f.is_primary_key]
    if len(keys) != 1 or any(d.field == f"{dataset.name}.{keys[0].name}" for d in grouped):
        return
    if draft.row_owner is None and all(
        _categorical(draft, dataset, d.field.split(".")[1]) for d in grouped
    ):
        return
    draft.row_key = f"{dataset.name}.{keys[0].name}"
    # First, so the rows are the owner's (the compiler starts its joins there).
    draft.dimensions.insert(
        0 if draft.row_owner else len(draft.dimensions), Dimension(field=draft.row_key)
    )


def _categorical(draft: Draft, dataset: Dataset, name: str) -> bool:
    f = dataset.field(name)
    if f is None:
        return False
    # A category repeats: at most half as many values as rows.
    if draft.index is not None and draft.index.of_field(dataset.name, name):
        count = len(draft.index.of_field(dataset.name, name))
        return dataset.row_count is None or 2 * count <= dataset.row_count
    if f.distinct_count is None:
        return False
    return dataset.row_count is None or 2 * f.distinct_count <= dataset.row_count


def bridged(draft: Draft) -> None:
    """A value grouped or filtered by a dataset it meets only through a third, many to many
    (a shop's employees through its hirings): what is counted is not said."""
    distinct = {m.alias for m in draft.measures if m.aggregation == "count_distinct"}
    homes = [v.dataset for v in draft.values if v.dataset and v.key not in distinct]
    others = {d.field.split(".")[0] for d in draft.dimensions}
    others |= {f.field.split(".")[0] for f in draft.filters if isinstance(f, Filter)}
    for home in homes:
        for other in others:
            reach = draft.lexicon.distances
            if other not in reach(home) and home not in reach(other):
                draft.doubt(AMBIGUOUS, f"{home} and {other} meet only many to many")
                return


def degenerate(draft: Draft) -> None:
    """Conditions a plan would answer with nonsense: a HAVING with nothing grouped ("how
    many countries have more than 2 makers" counts countries per group first), a count of
    the rows of each record of the same dataset (always 1)."""
    if draft.having and not draft.dimensions:
        draft.unknown("with more than (a count of groups)")
    keys = {
        f"{d.name}.{f.name}" for d in draft.model.datasets for f in d.fields if f.is_primary_key
    }
    grouped = {d.field for d in draft.dimensions}
    for m in draft.measures:
        dataset = m.field.split(".")[0]
        if (
            m.field.endswith(".*")
            and any(g in keys and g.split(".")[0] == dataset for g in grouped)
            and draft.having
        ):
            draft.unknown(f"more than ... {dataset} per {dataset}")


def negations(draft: Draft) -> None:
    """'Students who do not have a cat': a negation through a one-to-many join is NOT
    EXISTS, which no plan says; a filter there would keep students with a dog."""
    used = set(draft.homes()) | {d.field.split(".")[0] for d in draft.dimensions}
    for f in draft.filters:
        if not isinstance(f, Filter) or f.op not in ("!=", "not_in"):
            continue
        owner = f.field.split(".")[0]
        if any(owner not in draft.lexicon.distances(d) for d in used):
            draft.unknown(f"not {f.value}")


def parallel_joins(draft: Draft) -> None:
    """Two datasets joined by two relationships (a friend's two people): which one the
    question means is not said."""
    used = set(draft.homes())
    used |= {d.field.split(".")[0] for d in draft.dimensions}
    used |= {f.field.split(".")[0] for f in draft.filters if isinstance(f, Filter)}
    for pair in draft.lexicon.parallel:
        if pair <= used or (len(pair) == 1 and pair <= used):
            draft.doubt(AMBIGUOUS, f"{' and '.join(sorted(pair))} join in more than one way")
