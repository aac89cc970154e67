"""What one sandboxed execution returns, and the limits it runs under."""

from __future__ import annotations

import base64
from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from dataagent.config import Settings
from dataagent.errors import ErrorCode


class _CamelModel(BaseModel):
    """Python names in code, the seed's camelCase names on the wire."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True)


class OutputFile(_CamelModel):
    """A file the code left in its working directory (charts are PNG files)."""

    filename: str
    data: str = Field(description="The file's bytes, base64-encoded.")

    @property
    def is_image(self) -> bool:
        """True for PNG/JPEG/SVG/GIF files."""
        return self.filename.lower().endswith((".png", ".jpg", ".jpeg", ".svg", ".gif"))

    def content(self) -> bytes:
        """The decoded bytes."""
        return base64.b64decode(self.data)


class ExecutionError(_CamelModel):
    """Why an execution did not complete normally (not raised: part of the result)."""

    code: ErrorCode
    message: str


class ExecutionResult(_CamelModel):
    """stdout, stderr, return code, files, the returned value and timing of one execution."""

    stdout: str = ""
    stderr: str = ""
    return_code: int = 0
    files: list[OutputFile] = Field(default_factory=list)
    value: Any = Field(None, description="The JSON value the code returned, if any.")
    execution_time_ms: int = 0
    error: ExecutionError | None = None

    @property
    def ok(self) -> bool:
        """True when the code ran to the end without raising."""
        return self.error is None and self.return_code == 0

    @property
    def charts(self) -> list[OutputFile]:
        """The image files among the outputs."""
        return [item for item in self.files if item.is_image]

    def to_wire(self) -> dict[str, Any]:
        """The camelCase JSON shape of the HTTP service (the seed's response)."""
        return self.model_dump(mode="json", by_alias=True)


class SandboxLimits(BaseModel):
    """Every limit applied to one execution (defaults follow DESIGN's sandbox rules)."""

    model_config = ConfigDict(frozen=True)

    timeout_s: float = Field(30.0, gt=0, description="Wall time of one execution.")
    memory_mb: int = Field(512, ge=64, description="Address space above the preloaded stack.")
    cpu_s: float | None = Field(None, description="CPU seconds; default: the wall time.")
    nproc: int = Field(64, ge=4, description="Processes and threads at once (RLIMIT_NPROC).")
    fsize_mb: int = Field(50, ge=1, description="Largest file the code may write.")
    nofile: int = Field(256, ge=32, description="Open file descriptors.")
    tmp_mb: int = Field(100, ge=1, description="Size of the private writable /tmp.")
    shm_mb: int = Field(64, ge=1, description="Size of the private /dev/shm.")
    output_max_bytes: int = Field(1_000_000, ge=1024, description="Cap on stdout and on stderr.")
    files_max_count: int = Field(20, ge=0, description="Output files returned at most.")
    file_max_bytes: int = Field(10_000_000, ge=1, description="Largest output file returned.")
    files_max_total_bytes: int = Field(25_000_000, ge=1, description="All output files together.")
    value_max_bytes: int = Field(1_000_000, ge=16, description="Largest returned JSON value.")

    @classmethod
    def from_settings(cls, settings: Settings, **overrides: Any) -> SandboxLimits:
        """The limits the settings ask for, with optional overrides."""
        values: dict[str, Any] = {
            "timeout_s": settings.sandbox_timeout_s,
            "memory_mb": settings.sandbox_memory_mb,
        }
        values.update(overrides)
        return cls(**values)

    def for_run(self, timeout_s: float | None) -> dict[str, Any]:
        """The limits of one run as sent to the zygote (the wall time may be per call)."""
        wall = float(timeout_s) if timeout_s is not None else self.timeout_s
        values = self.model_dump()
        values["timeout_s"] = wall
        values["cpu_s"] = self.cpu_s if self.cpu_s is not None else wall
        return values
