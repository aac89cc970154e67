"""Structured answers: a Pydantic model asked of a chat model, and its answer read back.

Pure (LangChain core and Pydantic only); `ChatClient.structured` sends the calls. Three ways
to ask, by what the provider offers (`StructuredMode`):

- `json_schema`: OpenAI's response format `{"type": "json_schema", "json_schema": {name,
  schema, strict: false}}` bound on the model; the answer is JSON text;
- `tool`: Anthropic's tool forcing, one tool whose input schema is the model's and a
  `tool_choice` naming it; the answer is that tool call's arguments;
- `prompt`: the JSON schema written into the system prompt (any model, an OpenAI-compatible
  server without the response format); the answer is JSON text.

Whatever the mode, text is read leniently (a ```json fence, words around one JSON object)
and validated strictly against the model, by alias. A failure is a `StructuredOutputError`
whose message is short and plain, so it can be sent back to the model as it is.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Sequence
from typing import Any, Literal, TypeVar

from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, SystemMessage
from langchain_core.utils.json_schema import dereference_refs
from pydantic import BaseModel, ValidationError

StructuredMode = Literal["json_schema", "tool", "prompt"]
T = TypeVar("T", bound=BaseModel)

# Validation errors listed in a message before the rest are counted.
_ERRORS_SHOWN = 5
_FENCE = re.compile(r"```(?:json|JSON)?\s*\n?(.*?)```", re.DOTALL)


class StructuredOutputError(ValueError):
    """An answer that is not the JSON object asked for, or does not fit its model.

    `misfit` is True when the answer was a JSON object that broke the model's rules (the
    server did constrain it to JSON), False when it held no JSON object at all."""

    def __init__(self, message: str, *, misfit: bool = False) -> None:
        super().__init__(message)
        self.misfit = misfit


@functools.cache
def json_schema_of(schema: type[BaseModel]) -> dict[str, Any]:
    """The model's JSON schema, by alias (what the model is asked to write), without the
    `title` Pydantic gives every property (a third of the schema, and nothing to a model)."""
    untitled = _untitled(schema.model_json_schema(by_alias=True))
    assert isinstance(untitled, dict)
    return untitled


def _untitled(node: Any, names: bool = False) -> Any:
    """`node` without `title` keys; `names`: `node` maps property names (kept, whatever they
    are) to schemas."""
    if isinstance(node, dict):
        return {
            key: _untitled(value, key in ("properties", "$defs") and not names)
            for key, value in node.items()
            if names or key != "title"
        }
    if isinstance(node, list):
        return [_untitled(item) for item in node]
    return node


@functools.cache
def inlined_schema_of(schema: type[BaseModel]) -> dict[str, Any]:
    """The JSON schema with every `$ref` replaced by what it names: what a response format
    or a tool carries (constrained decoders of compatible servers may not follow refs)."""
    inlined = dereference_refs(json_schema_of(schema))
    inlined.pop("$defs", None)
    return inlined


def schema_name(schema: type[BaseModel]) -> str:
    """The name a response format or tool carries: the model's class name."""
    return re.sub(r"[^A-Za-z0-9_-]", "_", schema.__name__)[:64]


def _schema_text(schema: type[BaseModel]) -> str:
    return json.dumps(json_schema_of(schema), ensure_ascii=False, separators=(",", ":"))


def format_instructions(schema: type[BaseModel]) -> str:
    """What the prompt says about the answer's form in `prompt` mode."""
    return (
        "## Answer Format\n\n"
        "Answer with one JSON object and nothing else (no prose, no comments), matching this "
        f"JSON schema:\n\n```json\n{_schema_text(schema)}\n```"
    )


def with_format(messages: Sequence[BaseMessage], schema: type[BaseModel]) -> list[BaseMessage]:
    """`messages` with the format instructions at the end of the system prompt (one is added
    when there is none)."""
    instructions = format_instructions(schema)
    if messages and isinstance(messages[0], SystemMessage):
        first = messages[0]
        content = first.content if isinstance(first.content, str) else str(first.content)
        return [SystemMessage(f"{content.rstrip()}\n\n{instructions}\n"), *messages[1:]]
    return [SystemMessage(instructions), *messages]


def tool_spec(schema: type[BaseModel]) -> dict[str, Any]:
    """The one tool of `tool` mode, in OpenAI's function format (Anthropic reads it too)."""
    description = (schema.__doc__ or "").strip().split("\n\n")[0] or schema_name(schema)
    return {
        "type": "function",
        "function": {
            "name": schema_name(schema),
            "description": " ".join(description.split()),
            "parameters": inlined_schema_of(schema),
        },
    }


def response_format(schema: type[BaseModel]) -> dict[str, Any]:
    """OpenAI's JSON-schema response format for `schema` (not strict: any schema is allowed)."""
    return {
        "type": "json_schema",
        "json_schema": {
            "name": schema_name(schema),
            "schema": inlined_schema_of(schema),
            "strict": False,
        },
    }


def structured_runnable(model: BaseChatModel, schema: type[BaseModel], mode: StructuredMode) -> Any:
    """The model bound for a structured answer in `mode`."""
    if mode == "json_schema":
        return model.bind(response_format=response_format(schema))
    if mode == "tool":
        return model.bind_tools([tool_spec(schema)], tool_choice=schema_name(schema))
    return model


def structured_answer(
    message: AIMessage, schema: type[BaseModel], mode: StructuredMode
) -> str | dict[str, Any]:
    """What the model answered: the forced tool call's arguments (`tool` mode, when it made
    the call), else its text."""
    if mode == "tool":
        name = schema_name(schema)
        for call in message.tool_calls:
            if call.get("name") == name:
                return dict(call.get("args") or {})
        for invalid in message.invalid_tool_calls:
            if invalid.get("name") == name:
                return str(invalid.get("args") or "")
    content = message.content
    if isinstance(content, str):
        return content
    return "".join(
        str(block.get("text", "")) if isinstance(block, dict) else str(block)
        for block in content
        if isinstance(block, str) or (isinstance(block, dict) and block.get("type") == "text")
    )


def extract_json(text: str) -> Any:
    """The JSON object in `text`: the whole text, a fenced block, or the first object that
    parses from a `{` on (words before and after it are ignored)."""
    stripped = text.strip()
    if not stripped:
        raise StructuredOutputError("the answer was empty; expected one JSON object")
    candidates = [stripped, *(m.group(1).strip() for m in _FENCE.finditer(stripped))]
    for candidate in candidates:
        try:
            return json.loads(candidate)
        except json.JSONDecodeError:
            continue
    decoder = json.JSONDecoder()
    start = stripped.find("{")
    while start != -1:
        try:
            value, _ = decoder.raw_decode(stripped, start)
        except json.JSONDecodeError:
            start = stripped.find("{", start + 1)
            continue
        return value
    raise StructuredOutputError("the answer holds no JSON object")


def summarise(exc: ValidationError) -> str:
    """A validation error in a line: where and what, for the first few problems."""
    errors = exc.errors(include_url=False)
    parts = []
    for error in errors[:_ERRORS_SHOWN]:
        where = ".".join(str(part) for part in error["loc"])
        message = str(error["msg"]).removeprefix("Value error, ")
        parts.append(f"{where}: {message}" if where else message)
    if len(errors) > _ERRORS_SHOWN:
        parts.append(f"and {len(errors) - _ERRORS_SHOWN} more problems")
    return "; ".join(parts)


def parse_structured(answer: str | dict[str, Any], schema: type[T]) -> T:
    """The answer validated as `schema` (by alias); StructuredOutputError when it is not."""
    data = extract_json(answer) if isinstance(answer, str) else answer
    if not isinstance(data, dict):
        raise StructuredOutputError(f"expected a JSON object, got {type(data).__name__}")
    try:
        return schema.model_validate(data)
    except ValidationError as exc:
        raise StructuredOutputError(summarise(exc), misfit=True) from None


def reask(error: StructuredOutputError, schema: type[BaseModel], mode: StructuredMode) -> str:
    """The message that asks once more, carrying what was wrong."""
    if mode == "tool":
        again = f"Call the tool {schema_name(schema)} again with corrected arguments."
    elif mode == "json_schema" and error.misfit:
        # JSON that breaks a rule: the server did apply the response format, which carries
        # the schema; sending it again (thousands of tokens) can overflow a small model.
        again = "Answer again with only the corrected JSON object."
    elif mode == "json_schema":
        # No JSON at all: a server that ignores the response format leaves the model
        # without the schema.
        again = (
            "Answer again with only the corrected JSON object, matching this JSON schema:\n\n"
            f"```json\n{_schema_text(schema)}\n```"
        )
    else:
        again = "Answer again with only the corrected JSON object, in the form given above."
    return f"Your answer did not match the expected form: {error}\n\n{again}"
