"""Semantic models as YAML: a stable dump, and a load whose errors name the line and the field.

The dump keeps the key order of the OSI-style dataset YAML (name, description, source,
fields: name, expression, label, description, data_type, is_primary_key, ...), with
block sequences at their key's indentation (libyaml's style). The load
composes the YAML node tree first, so a validation error at
`datasets[2].fields[3].data_type` is reported at the line where that value is written.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import yaml
from pydantic import ValidationError

from dataagent.dialects import DIALECTS
from dataagent.errors import DataAgentError, ErrorCode
from dataagent.semantic.expressions import expression_problems
from dataagent.semantic.model import Dataset, Metric, Relationship, SemanticModel, metric_problems

MODEL_KEYS = ("name", "description", "dialect", "datasets", "relationships", "metrics")
DATASET_KEYS = ("name", "description", "source", "row_count", "primary_key", "fields")
FIELD_KEYS = (
    "name",
    "expression",
    "label",
    "description",
    "data_type",
    "native_type",
    "is_primary_key",
    "nullable",
    "distinct_count",
    "sample_values",
    "generated",
)
METRIC_KEYS = (
    "name",
    "label",
    "description",
    "synonyms",
    "format",
    "dataset",
    "aggregation",
    "expression",
    "filter",
    "numerator",
    "denominator",
    "generated",
)
RELATIONSHIP_KEYS = (
    "name",
    "from",
    "from_columns",
    "to",
    "to_columns",
    "cardinality",
    "source",
    "description",
)
# Values equal to the contract's defaults are left out, so the YAML stays short.
_DEFAULTS: dict[str, Any] = {"is_primary_key": False, "nullable": True, "generated": False}


class _FlowList(list[Any]):
    """A list of scalars written inline: `primary_key: [order_id]`."""


# libyaml's emitter and parser are several times faster than pure Python on big models
_Dumper: type[yaml.SafeDumper] = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
_Loader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _ModelDumper(_Dumper):  # type: ignore[misc,valid-type]
    """The dumper with inline lists of scalars."""


_ModelDumper.add_representer(
    _FlowList,
    lambda dumper, data: dumper.represent_sequence(
        "tag:yaml.org,2002:seq", list(data), flow_style=True
    ),
)


def _ordered(data: dict[str, Any], keys: Sequence[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key in [*keys, *(k for k in data if k not in keys)]:
        value = data.get(key)
        if value is None or value == [] or (key in _DEFAULTS and value == _DEFAULTS[key]):
            continue
        is_scalar_list = isinstance(value, list) and all(not isinstance(v, dict) for v in value)
        out[key] = _FlowList(value) if is_scalar_list else value
    return out


def dataset_to_dict(dataset: Dataset) -> dict[str, Any]:
    """A dataset as an ordered plain dict (the YAML's shape)."""
    data = dataset.model_dump(mode="json")
    data["fields"] = [_ordered(f, FIELD_KEYS) for f in data["fields"]]
    return _ordered(data, DATASET_KEYS)


def relationship_to_dict(relationship: Relationship) -> dict[str, Any]:
    """A relationship as an ordered plain dict with `from`/`to` keys."""
    return _ordered(relationship.model_dump(mode="json", by_alias=True), RELATIONSHIP_KEYS)


def metric_to_dict(metric: Metric) -> dict[str, Any]:
    """A metric as an ordered plain dict."""
    return _ordered(metric.model_dump(mode="json"), METRIC_KEYS)


def model_to_dict(model: SemanticModel) -> dict[str, Any]:
    """A semantic model as an ordered plain dict."""
    data: dict[str, Any] = {
        "name": model.name,
        "description": model.description,
        "dialect": model.dialect,
        "datasets": [dataset_to_dict(d) for d in model.datasets],
        "relationships": [relationship_to_dict(r) for r in model.relationships],
        "metrics": [metric_to_dict(m) for m in model.metrics],
    }
    return _ordered(data, MODEL_KEYS)


def _dump(data: dict[str, Any]) -> str:
    return yaml.dump(
        data, Dumper=_ModelDumper, sort_keys=False, allow_unicode=True, width=120, indent=2
    )


def dump_yaml(model: SemanticModel) -> str:
    """The whole semantic model as YAML, in a stable key order."""
    return _dump(model_to_dict(model))


def dump_dataset_yaml(dataset: Dataset, relationships: Iterable[Relationship] = ()) -> str:
    """One dataset as YAML (the text retrieval embeds), with the relationships that touch it."""
    data = dataset_to_dict(dataset)
    touching = [
        relationship_to_dict(r)
        for r in relationships
        if dataset.name in (r.from_dataset, r.to_dataset)
    ]
    if touching:
        data["relationships"] = touching
    return _dump(data)


# --- loading --------------------------------------------------------------------------------------

Loc = tuple[str | int, ...]


def format_path(loc: Loc) -> str:
    """`('datasets', 2, 'fields', 3, 'data_type')` -> `datasets[2].fields[3].data_type`."""
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _locate(root: yaml.Node, loc: Loc, *, key: bool = False) -> yaml.Node:
    """The deepest node on the path (the key itself when `key`, e.g. for unknown keys)."""
    node = root
    for i, part in enumerate(loc):
        if isinstance(node, yaml.MappingNode):
            pair = next((kv for kv in node.value if kv[0].value == str(part)), None)
            if pair is None:
                return node
            node = pair[0] if key and i == len(loc) - 1 else pair[1]
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int):
            if part >= len(node.value):
                return node
            node = node.value[part]
        else:
            return node
    return node


def _detail(root: yaml.Node | None, loc: Loc, message: str, *, key: bool = False) -> dict[str, Any]:
    mark = _locate(root, loc, key=key).start_mark if root is not None else None
    return {
        "line": mark.line + 1 if mark else 1,
        "column": mark.column + 1 if mark else 1,
        "path": format_path(loc),
        "message": message,
    }


def _fail(details: list[dict[str, Any]]) -> DataAgentError:
    first = details[0]
    where = f"line {first['line']}" + (f", {first['path']}" if first["path"] else "")
    more = len(details) - 1
    tail = f" ({more} more problem{'s' if more > 1 else ''})" if more else ""
    return DataAgentError(
        ErrorCode.VALIDATION_ERROR,
        f"The semantic model is not valid: {where}: {first['message']}{tail}.",
        details=details,
    )


def _duplicate_keys(node: yaml.Node, loc: Loc = ()) -> list[dict[str, Any]]:
    problems: list[dict[str, Any]] = []
    if isinstance(node, yaml.MappingNode):
        seen: set[str] = set()
        for k, v in node.value:
            if k.value in seen:
                problems.append(
                    _detail(k, (), f"Key {k.value!r} appears twice")
                    | {"path": format_path((*loc, k.value))}
                )
            seen.add(k.value)
            problems += _duplicate_keys(v, (*loc, str(k.value)))
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            problems += _duplicate_keys(item, (*loc, i))
    return problems


def _reference_problems(data: dict[str, Any]) -> list[tuple[Loc, str]]:
    """Cross-references the contract checks model-wide, located precisely."""
    problems: list[tuple[Loc, str]] = []
    fields: dict[str, set[str]] = {}
    for i, ds in enumerate(data.get("datasets") or []):
        if ds["name"] in fields:
            problems.append((("datasets", i, "name"), f"Dataset {ds['name']!r} appears twice"))
        fields[ds["name"]] = {f["name"] for f in ds["fields"]}
    names: set[str] = set()
    for i, rel in enumerate(data.get("relationships") or []):
        if rel["name"] in names:
            problems.append((("relationships", i, "name"), f"Relationship {rel['name']!r} twice"))
        names.add(rel["name"])
        for side in ("from", "to"):
            ds_name = rel.get(side, rel.get(f"{side}_dataset"))
            if ds_name not in fields:
                key = side if side in rel else f"{side}_dataset"
                problems.append((("relationships", i, key), f"Dataset {ds_name!r} does not exist"))
                continue
            for j, col in enumerate(rel[f"{side}_columns"]):
                if col not in fields[ds_name]:
                    problems.append(
                        (
                            ("relationships", i, f"{side}_columns", j),
                            f"{ds_name}.{col} is not a field",
                        )
                    )
    try:
        metrics = [Metric.model_validate(m) for m in data.get("metrics") or []]
    except ValidationError:
        metrics = []  # pydantic reports these at their own paths
    problems += [(("metrics", i, key), m) for i, key, m in metric_problems(metrics, set(fields))]
    if data.get("dialect") not in DIALECTS:
        problems.append((("dialect",), f"Dialect must be one of {', '.join(DIALECTS)}"))
    return problems


def load_yaml(text: str) -> SemanticModel:
    """Parse and validate a semantic model; errors carry line, column, path and message."""
    loader = _Loader(text)
    try:
        root = loader.get_single_node()
        data = loader.construct_document(root) if root is not None else None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, column = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        message = f"YAML syntax error: {exc.problem or exc.context}"
        raise _fail([{"line": line, "column": column, "path": "", "message": message}]) from exc
    except yaml.YAMLError as exc:
        raise _fail([{"line": 1, "column": 1, "path": "", "message": str(exc)}]) from exc
    finally:
        loader.dispose()
    # the OSI wrapper `semantic_model: [ {...} ]` holds one model
    if isinstance(data, dict) and list(data) == ["semantic_model"] and root is not None:
        wrapped = data["semantic_model"]
        if isinstance(wrapped, list) and len(wrapped) == 1:
            data, root = wrapped[0], _locate(root, ("semantic_model", 0))
    if not isinstance(data, dict) or root is None:
        raise _fail([_detail(root, (), "Expected a mapping with name, dialect and datasets")])
    duplicates = _duplicate_keys(root)
    if duplicates:
        raise _fail(duplicates)
    try:
        model = SemanticModel.model_validate(data)
    except ValidationError as exc:
        details = []
        for err in exc.errors():
            loc: Loc = tuple(err["loc"])
            message = str(err["msg"]).removeprefix("Value error, ")
            if err["type"] == "missing":
                message = f"{message}: {loc[-1]!r}"
            if loc == ():
                refined = _reference_problems(data)
                if refined:
                    details += [_detail(root, p, m) for p, m in refined]
                    continue
            details.append(_detail(root, loc, message, key=err["type"] == "extra_forbidden"))
        raise _fail(details) from exc
    problems = _reference_problems(data) or expression_problems(model)
    if problems:
        raise _fail([_detail(root, p, m) for p, m in problems])
    return model
