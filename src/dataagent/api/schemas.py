"""Shared API schema pieces: camelCase models, the `data` envelope, error and page shapes."""

from __future__ import annotations

import math
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel

T = TypeVar("T")


class ApiModel(BaseModel):
    """A response model: camelCase on the wire, built from ORM objects."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, from_attributes=True)


class ApiInput(BaseModel):
    """A request body: camelCase on the wire, unknown fields refused."""

    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, extra="forbid", str_strip_whitespace=True
    )


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
}
