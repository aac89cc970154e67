"""Shared API schema pieces: camelCase models, the `data` envelope, error and page shapes."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Annotated, Any, Generic, TypeVar

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    GetJsonSchemaHandler,
    Strict,
    model_validator,
)
from pydantic.alias_generators import to_camel
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema, PydanticCustomError

T = TypeVar("T")

# Text may hold any character but NUL, which no database keeps (PostgreSQL refuses it).
NO_NUL = r"^[^\x00]*$"
# Text that must say something: no NUL, and at least one character that is not white space.
# Text is never trimmed: every length is the text's as sent, so a name of spaces is refused
# here rather than stored as "" (and a password keeps every character it was given).
HAS_TEXT = r"^[^\x00]*[^\s\x00][^\x00]*$"


def _no_text_or_flag(value: Any) -> Any:
    if isinstance(value, bool | str):
        raise PydanticCustomError("int_type", "Input should be a valid integer")
    return value


# The JSON types of a request body, as the schema states them. `JsonBool` is `true` or
# `false` only (lax mode takes 0, "no", "off" for false). JSON Schema's integer is a number
# without a fraction (5 and 5.0), never "5" or true, which lax mode takes: annotate an int
# `Annotated[int, Field(ge=.., le=..), INTEGER_ONLY]`, its bounds before the check so the
# schema states them as `minimum`/`maximum`.
JsonBool = Annotated[bool, Strict()]
INTEGER_ONLY = BeforeValidator(_no_text_or_flag)


class ApiModel(BaseModel):
    """A response model: camelCase on the wire, built from ORM objects."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, from_attributes=True)


class ApiInput(BaseModel):
    """A request body: camelCase on the wire, unknown fields refused, no NUL in any text."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid")

    @model_validator(mode="before")
    @classmethod
    def _refuse_nul(cls, data: Any) -> Any:
        if _holds_nul(data):
            raise ValueError("text cannot contain the NUL character (\\u0000)")
        return data

    @classmethod
    def __get_pydantic_json_schema__(
        cls, core_schema: CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        json_schema = handler(core_schema)
        _declare_no_nul(json_schema, handler.resolve_ref_schema, set())
        return json_schema


def _declare_no_nul(
    schema: JsonSchemaValue, resolve: Callable[[JsonSchemaValue], JsonSchemaValue], seen: set[str]
) -> None:
    """State in the schema what `_refuse_nul` does: every string the body holds (its fields,
    list items, the fields of models nested in it) gets the NO_NUL pattern unless it has a
    pattern of its own."""
    ref = schema.get("$ref")
    if ref is not None:
        if ref not in seen:
            seen.add(ref)
            _declare_no_nul(resolve(schema), resolve, seen)
        return
    if schema.get("type") == "string" and "pattern" not in schema:
        schema["pattern"] = NO_NUL
    parts = [
        *schema.get("properties", {}).values(),
        schema.get("items"),
        schema.get("additionalProperties"),
    ]
    for key in ("anyOf", "oneOf", "allOf"):
        parts.extend(schema.get(key, ()))
    for part in parts:
        if isinstance(part, dict):
            _declare_no_nul(part, resolve, seen)


def _holds_nul(value: Any) -> bool:
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, dict):
        return any(_holds_nul(k) or _holds_nul(v) for k, v in value.items())
    if isinstance(value, list | tuple):
        return any(_holds_nul(v) for v in value)
    return False


class Envelope(BaseModel, Generic[T]):
    """Every successful response body: `{"data": ...}`."""

    data: T


class ErrorDetail(BaseModel):
    """What went wrong: a machine code, a human sentence and optional details."""

    code: str
    message: str
    details: Any = None


class ErrorBody(BaseModel):
    """Every error response body: `{"error": {...}}`."""

    error: ErrorDetail


class PageOf(ApiModel, Generic[T]):
    """One page of a listing."""

    items: list[T]
    total: int
    page: int
    page_size: int
    total_pages: int


def page_of(items: list[T], total: int, page: int, page_size: int) -> PageOf[T]:
    """A page of items with the total page count worked out."""
    total_pages = math.ceil(total / page_size) if total else 0
    return PageOf[T](
        items=items, total=total, page=page, page_size=page_size, total_pages=total_pages
    )


ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorBody, "description": "Validation error"},
    401: {"model": ErrorBody, "description": "Not signed in"},
    403: {"model": ErrorBody, "description": "Permission missing"},
    404: {"model": ErrorBody, "description": "Not found (or not yours)"},
    413: {"model": ErrorBody, "description": "Request body over the size limit"},
}

# Routes that start an ontology's build: one that is building already is 409.
BUILD_RESPONSES: dict[int | str, dict[str, Any]] = {
    409: {"model": ErrorBody, "description": "The ontology is building already"},
}


def json_errors(responses: dict[int | str, dict[str, Any]]) -> dict[int | str, dict[str, Any]]:
    """The same error responses, stated as `application/json` for a route whose own media
    type is another (an event stream): FastAPI would otherwise file them under it."""
    stated: dict[int | str, dict[str, Any]] = {}
    for status, response in responses.items():
        if response.get("model") is not ErrorBody:
            stated[status] = response
            continue
        schema = {"$ref": "#/components/schemas/ErrorBody"}
        stated[status] = {
            "description": response["description"],
            "content": {"application/json": {"schema": schema}},
        }
    return stated


# Routes whose work runs on the query pool: a user over their share gets 429.
POOL_RESPONSES: dict[int | str, dict[str, Any]] = {
    429: {"model": ErrorBody, "description": "Too many of your queries running or waiting"},
    502: {
        "model": ErrorBody,
        "description": "The database could not be reached or opened (CONNECTION_FAILED)",
    },
}
