"""Join paths over the relationship graph: shortest paths, connecting trees, fan-out marks.

Pure module (networkx only). Datasets are nodes; every relationship of the semantic model
is an edge that can be walked both ways. A walk records the cardinality *as seen in the
direction of travel*, so an edge walked from the "one" side to the "many" side is a fan-out:
each row already joined may be repeated once per matching row on the far side.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence

import networkx as nx
from networkx.algorithms.approximation import steiner_tree
from pydantic import BaseModel, ConfigDict, Field, computed_field

from dataagent.errors import DataAgentError, ErrorCode
from dataagent.semantic.model import Cardinality, Relationship, RelationshipSource, SemanticModel

MAX_HOPS = 5
MAX_ALTERNATIVES = 3
# Node paths examined before giving up on finding more alternatives (large, dense graphs).
_MAX_NODE_PATHS = 200
# A tiny extra cost per inferred edge: declared keys win ties, never a shorter route.
_INFERRED_PENALTY = 0.001

_REVERSED = {
    Cardinality.MANY_TO_ONE: Cardinality.ONE_TO_MANY,
    Cardinality.ONE_TO_MANY: Cardinality.MANY_TO_ONE,
    Cardinality.ONE_TO_ONE: Cardinality.ONE_TO_ONE,
    Cardinality.MANY_TO_MANY: Cardinality.MANY_TO_MANY,
}
_FANS_OUT = {Cardinality.ONE_TO_MANY, Cardinality.MANY_TO_MANY}


class JoinEdge(BaseModel):
    """One relationship walked in one direction: `from.from_columns = to.to_columns`."""

    model_config = ConfigDict(frozen=True)

    from_dataset: str
    to_dataset: str
    from_columns: tuple[str, ...]
    to_columns: tuple[str, ...]
    cardinality: Cardinality = Field(description="As seen walking from `from` to `to`.")
    relationship: str
    source: RelationshipSource

    @computed_field  # type: ignore[prop-decorator]
    @property
    def inferred(self) -> bool:
        """True when the relationship was guessed, not declared."""
        return self.source == RelationshipSource.INFERRED

    @computed_field  # type: ignore[prop-decorator]
    @property
    def fan_out(self) -> bool:
        """True when walking this edge can repeat the rows already joined."""
        return self.cardinality in _FANS_OUT

    def reversed(self) -> JoinEdge:
        """The same relationship walked the other way."""
        return JoinEdge(
            from_dataset=self.to_dataset,
            to_dataset=self.from_dataset,
            from_columns=self.to_columns,
            to_columns=self.from_columns,
            cardinality=_REVERSED[self.cardinality],
            relationship=self.relationship,
            source=self.source,
        )


class JoinPath(BaseModel):
    """A join sequence from `root`: each edge joins one new dataset to one already joined.

    A path between two datasets is a chain; a connecting tree for three or more datasets
    is the same structure with branches. `duplicated_datasets` lists the datasets whose
    rows may appear more than once in the joined result (an aggregate over them fans out).
    """

    model_config = ConfigDict(frozen=True)

    root: str
    edges: tuple[JoinEdge, ...] = ()
    duplicated_datasets: tuple[str, ...] = ()

    @computed_field  # type: ignore[prop-decorator]
    @property
    def datasets(self) -> tuple[str, ...]:
        """Every dataset on the path, in join order."""
        return (self.root, *(e.to_dataset for e in self.edges))

    @computed_field  # type: ignore[prop-decorator]
    @property
    def hops(self) -> int:
        """The number of joins."""
        return len(self.edges)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def fan_out(self) -> bool:
        """True when the root's rows may be repeated by the joins."""
        return any(e.fan_out for e in self.edges)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def inferred_edges(self) -> int:
        """How many edges rest on inferred relationships."""
        return sum(e.inferred for e in self.edges)

    def duplicates(self, dataset: str) -> bool:
        """True when rows of `dataset` may be repeated in the joined result."""
        return dataset in self.duplicated_datasets

    def reroot(self, root: str, keep: Iterable[str] | None = None) -> JoinPath:
        """The same tree joined from another root, pruned to the part connecting `keep`."""
        wanted = set(keep) if keep is not None else set(self.datasets)
        wanted.add(root)
        if root not in self.datasets:
            raise ValueError(f"{root} is not on this join path")
        adjacency: dict[str, list[JoinEdge]] = {}
        for e in self.edges:
            adjacency.setdefault(e.from_dataset, []).append(e)
            adjacency.setdefault(e.to_dataset, []).append(e.reversed())
        # Drop leaves nobody asked for until every leaf is wanted: the minimal subtree.
        degree = {n: len(es) for n, es in adjacency.items()}
        removed: set[str] = set()
        leaves = [n for n, d in degree.items() if d == 1 and n not in wanted]
        while leaves:
            leaf = leaves.pop()
            removed.add(leaf)
            for e in adjacency[leaf]:
                if e.to_dataset not in removed:
                    degree[e.to_dataset] -= 1
                    if degree[e.to_dataset] == 1 and e.to_dataset not in wanted:
                        leaves.append(e.to_dataset)
        edges: list[JoinEdge] = []
        seen = {root}
        frontier = [root]
        while frontier:
            node = frontier.pop(0)
            for e in sorted(adjacency.get(node, []), key=lambda x: x.to_dataset):
                if e.to_dataset in seen or e.to_dataset in removed:
                    continue
                seen.add(e.to_dataset)
                edges.append(e)
                frontier.append(e.to_dataset)
        return make_path(root, edges)


def _edge_from(rel: Relationship) -> JoinEdge:
    return JoinEdge(
        from_dataset=rel.from_dataset,
        to_dataset=rel.to_dataset,
        from_columns=tuple(rel.from_columns),
        to_columns=tuple(rel.to_columns),
        cardinality=rel.cardinality,
        relationship=rel.name,
        source=rel.source,
    )


def _preference(edge: JoinEdge) -> tuple[int, str]:
    return (int(edge.inferred), edge.relationship)


def make_path(root: str, edges: Sequence[JoinEdge]) -> JoinPath:
    """A JoinPath from a join sequence, with its duplicated datasets computed."""
    adjacency: dict[str, list[JoinEdge]] = {root: []}
    for e in edges:
        adjacency.setdefault(e.from_dataset, []).append(e)
        adjacency.setdefault(e.to_dataset, []).append(e.reversed())
    duplicated = []
    for start in adjacency:
        # Rows of `start` repeat when any edge, walked away from `start`, fans out.
        seen = {start}
        stack = [start]
        repeats = False
        while stack and not repeats:
            node = stack.pop()
            for e in adjacency[node]:
                if e.to_dataset in seen:
                    continue
                if e.fan_out:
                    repeats = True
                    break
                seen.add(e.to_dataset)
                stack.append(e.to_dataset)
        if repeats:
            duplicated.append(start)
    return JoinPath(root=root, edges=tuple(edges), duplicated_datasets=tuple(duplicated))


class JoinGraph:
    """The relationship graph of one semantic model."""

    def __init__(self, graph: nx.Graph, parallel: dict[frozenset[str], list[JoinEdge]]) -> None:
        self._graph = graph
        self._parallel = parallel

    @classmethod
    def from_model(cls, model: SemanticModel) -> JoinGraph:
        """Build the graph from a semantic model's datasets and relationships."""
        graph: nx.Graph = nx.Graph()
        # Sorted insertion keeps every networkx traversal, and so every answer, deterministic.
        graph.add_nodes_from(sorted(d.name for d in model.datasets))
        parallel: dict[frozenset[str], list[JoinEdge]] = {}
        for rel in sorted(model.relationships, key=lambda r: r.name):
            if rel.from_dataset == rel.to_dataset:
                continue  # a self-reference needs an alias per role; paths never use it
            parallel.setdefault(frozenset((rel.from_dataset, rel.to_dataset)), []).append(
                _edge_from(rel)
            )
        for pair in sorted(parallel, key=sorted):
            edges = sorted(parallel[pair], key=_preference)
            parallel[pair] = edges
            a, b = sorted(pair)
            best = edges[0]
            graph.add_edge(a, b, weight=1.0 + (_INFERRED_PENALTY if best.inferred else 0.0))
        return cls(graph, parallel)

    @property
    def datasets(self) -> list[str]:
        """Every dataset in the graph."""
        return list(self._graph.nodes)

    def _check(self, names: Iterable[str]) -> None:
        unknown = sorted({n for n in names if n not in self._graph})
        if unknown:
            raise DataAgentError(
                ErrorCode.VALIDATION_ERROR,
                f"Unknown dataset(s): {', '.join(unknown)}.",
                details={"unknown_datasets": unknown},
            )

    def edges_between(self, a: str, b: str) -> list[JoinEdge]:
        """Every relationship between two datasets, walked from `a` to `b`, preferred first."""
        edges = self._parallel.get(frozenset((a, b)), [])
        return [e if e.from_dataset == a else e.reversed() for e in edges]

    def shortest_paths(
        self, a: str, b: str, max_hops: int = MAX_HOPS, k: int = MAX_ALTERNATIVES
    ) -> list[JoinPath]:
        """Up to `k` shortest join paths from `a` to `b`: fewest hops, declared keys first."""
        self._check([a, b])
        if a == b:
            return [make_path(a, [])]
        if not nx.has_path(self._graph, a, b):
            raise DataAgentError(
                ErrorCode.VALIDATION_ERROR,
                f"Datasets {a} and {b} are not connected by any relationship.",
                details={"from": a, "to": b},
            )
        candidates: list[list[JoinEdge]] = []
        longest_kept: int | None = None
        node_paths = nx.shortest_simple_paths(self._graph, a, b)
        for node_path in itertools.islice(node_paths, _MAX_NODE_PATHS):
            hops = len(node_path) - 1
            if hops > max_hops:
                break
            # Paths come shortest first: once k are kept, only ties with the k-th still matter.
            if longest_kept is not None and hops > longest_kept:
                break
            options = [self.edges_between(x, y) for x, y in itertools.pairwise(node_path)]
            candidates.extend(list(combo) for combo in itertools.product(*options))
            if len(candidates) >= k and longest_kept is None:
                longest_kept = hops
        if not candidates:
            raise DataAgentError(
                ErrorCode.VALIDATION_ERROR,
                f"No join path between {a} and {b} within {max_hops} hops.",
                details={"from": a, "to": b, "max_hops": max_hops},
            )
        candidates.sort(
            key=lambda edges: (
                len(edges),
                sum(e.inferred for e in edges),
                [(e.to_dataset, e.relationship) for e in edges],
            )
        )
        return [make_path(a, edges) for edges in candidates[:k]]

    def connecting_tree(self, names: Sequence[str], root: str | None = None) -> JoinPath:
        """A small tree joining every named dataset, as a join sequence from `root`.

        Two datasets get their shortest path; three or more a Steiner tree (networkx's
        approximation), with declared keys preferred over inferred ones. `root` defaults to
        the first name.
        """
        unique = list(dict.fromkeys(names))
        if not unique:
            raise DataAgentError(ErrorCode.VALIDATION_ERROR, "No datasets to join.")
        self._check(unique)
        start = root if root is not None else unique[0]
        if start not in unique:
            unique.insert(0, start)
        if len(unique) == 1:
            return make_path(start, [])
        if len(unique) == 2:
            other = unique[1] if unique[0] == start else unique[0]
            return self.shortest_paths(start, other, k=1)[0]
        components = {frozenset(nx.node_connected_component(self._graph, n)) for n in unique}
        if len(components) > 1:
            groups = sorted(sorted(set(unique) & c) for c in components)
            raise DataAgentError(
                ErrorCode.VALIDATION_ERROR,
                "These datasets cannot all be joined: no relationships connect "
                + " and ".join("{" + ", ".join(g) + "}" for g in groups)
                + ".",
                details={"groups": groups},
            )
        tree = self._steiner(unique)
        return make_path(start, self._sequence(tree, start))

    def _steiner(self, terminals: list[str]) -> nx.Graph:
        # Only the terminals' component: networkx's Mehlhorn approximation fails (KeyError)
        # on a graph with a dataset no terminal reaches, which a large model always has.
        graph = self._graph.subgraph(nx.node_connected_component(self._graph, terminals[0]))
        methods = ["mehlhorn"] if graph.number_of_nodes() > 300 else ["kou", "mehlhorn"]
        best: tuple[float, list[tuple[str, str]], nx.Graph] | None = None
        for method in methods:
            tree = steiner_tree(graph, sorted(terminals), weight="weight", method=method)
            key = (
                float(tree.size(weight="weight")),
                sorted(tuple(sorted(e)) for e in tree.edges),
            )
            if best is None or key < best[:2]:
                best = (key[0], key[1], tree)
        assert best is not None
        return best[2]

    def _sequence(self, tree: nx.Graph, root: str) -> list[JoinEdge]:
        edges: list[JoinEdge] = []
        seen = {root}
        frontier = [root]
        while frontier:
            nxt: list[str] = []
            for node in frontier:
                for neighbour in sorted(tree.neighbors(node)):
                    if neighbour in seen:
                        continue
                    seen.add(neighbour)
                    edges.append(self.edges_between(node, neighbour)[0])
                    nxt.append(neighbour)
            frontier = nxt
        return edges


def join_paths(
    model: SemanticModel, names: Sequence[str], k: int = MAX_ALTERNATIVES
) -> list[JoinPath]:
    """Up to `k` alternative paths for two names, else one connecting tree from the first.

    The one way to find join paths: the join-paths endpoint answers with it, and the
    compiler asks it for a single tree (`k=1`).
    """
    graph = JoinGraph.from_model(model)
    if len(names) == 2:
        return graph.shortest_paths(names[0], names[1], k=k)
    return [graph.connecting_tree(names)]
