"""Pure parts of the sandbox: names, tables, limits, result mapping, the bwrap command."""

from __future__ import annotations

import base64
import os
import signal
from pathlib import Path

import pandas as pd
import pytest

from dataagent.errors import DataAgentError, ErrorCode
from dataagent.sandbox import ExecutionResult, SandboxLimits
from dataagent.sandbox.bwrap import PythonLayout, bwrap_command, zygote_options
from dataagent.sandbox.outcome import result_from_report
from dataagent.sandbox.tables import check_table_name, decode_frame, encode_frame, encode_tables
from dataagent.sandbox.zygote import safe_filename

REPO = Path(__file__).resolve().parents[3]


@pytest.mark.parametrize("name", ["df", "current_data", "step_1_data", "_x"])
def test_valid_table_names(name: str) -> None:
    assert check_table_name(name) == name


@pytest.mark.parametrize("name", ["1x", "a-b", "import", "__class__", "pd", "set_result", ""])
def test_invalid_table_names(name: str) -> None:
    with pytest.raises(DataAgentError) as error:
        check_table_name(name)
    assert error.value.code == ErrorCode.VALIDATION_ERROR


def test_frames_round_trip_through_arrow() -> None:
    frame = pd.DataFrame({"a": [1, 2], "b": ["x", None], "c": pd.to_datetime(["2024-01-01"] * 2)})
    pd.testing.assert_frame_equal(decode_frame(encode_frame(frame)), frame, check_dtype=False)


def test_mixed_object_columns_become_strings() -> None:
    frame = pd.DataFrame({"mixed": [1, "two", 3.0]})
    assert decode_frame(encode_frame(frame))["mixed"].tolist() == ["1", "two", "3.0"]


def test_integers_past_64_bits_become_strings() -> None:
    frame = pd.DataFrame.from_records([{"big": 10**30}, {"big": 1}])
    assert decode_frame(encode_frame(frame))["big"].tolist() == [str(10**30), "1"]


def test_duplicate_column_names_are_refused() -> None:
    frame = pd.DataFrame([[1, 2]], columns=["a", "a"])
    with pytest.raises(DataAgentError) as error:
        encode_frame(frame)
    assert error.value.code == ErrorCode.VALIDATION_ERROR and "duplicate" in error.value.message


def test_non_frames_are_refused() -> None:
    with pytest.raises(DataAgentError):
        encode_tables({"df": [1, 2, 3]})  # type: ignore[dict-item]


@pytest.mark.parametrize(
    ("raw", "clean"),
    [("chart.png", "chart.png"), ("../../etc/passwd", "_.._etc_passwd"),
     ("a b;$(x).png", "a_b_x_.png"), (".hidden", "hidden"), ("", "file"), ("x" * 300, "x" * 100)],
)  # fmt: skip
def test_safe_filename(raw: str, clean: str) -> None:
    assert safe_filename(raw) == clean


def test_per_call_timeout_sets_cpu_limit() -> None:
    limits = SandboxLimits(timeout_s=30).for_run(5)
    assert limits["timeout_s"] == 5 and limits["cpu_s"] == 5


def _report(**values: object) -> dict[str, object]:
    base: dict[str, object] = {
        "stdout": "",
        "stderr": "",
        "wait_status": 0,
        "files": [],
        "notes": [],
    }
    return base | values


def test_timeout_maps_to_runner_timeout() -> None:
    result = result_from_report(_report(timed_out=True), SandboxLimits().for_run(2))
    assert result.error is not None and result.error.code == ErrorCode.RUNNER_TIMEOUT
    assert result.return_code == -1


def test_memory_error_maps_to_resource_exceeded() -> None:
    result = result_from_report(
        _report(memory_error=True, wait_status=256), SandboxLimits().for_run(2)
    )
    assert result.error is not None and result.error.code == ErrorCode.RUNNER_RESOURCE_EXCEEDED


def test_cpu_signal_maps_to_timeout() -> None:
    result = result_from_report(_report(wait_status=signal.SIGXCPU), SandboxLimits().for_run(2))
    assert result.error is not None and result.error.code == ErrorCode.RUNNER_TIMEOUT
    assert result.return_code == -signal.SIGXCPU


def test_supervisor_failure_is_internal() -> None:
    result = result_from_report({"internal_error": "boom"}, SandboxLimits().for_run(2))
    assert result.error is not None and result.error.code == ErrorCode.RUNNER_INTERNAL_ERROR


def test_host_rechecks_file_names_and_caps() -> None:
    png = base64.b64encode(b"\x89PNG").decode()
    files = [{"filename": "../x.png", "data": png}] * 3 + [{"filename": "bad", "data": "!!"}]
    limits = SandboxLimits(files_max_count=2).for_run(1)
    result = result_from_report(_report(files=files), limits)
    assert [item.filename for item in result.files] == ["_x.png"]


def test_result_wire_shape() -> None:
    wire = ExecutionResult(stdout="x", return_code=1, execution_time_ms=3).to_wire()
    assert wire["returnCode"] == 1 and wire["executionTimeMs"] == 3 and wire["error"] is None


def test_bwrap_command_exposes_only_what_python_needs(tmp_path: Path) -> None:
    layout = PythonLayout.current()
    command = bwrap_command("/usr/bin/bwrap", layout, [5, 6, 7], zygote_options(100, 64))
    text = " ".join(command)
    for flag in (
        "--unshare-pid",
        "--unshare-net",
        "--unshare-ipc",
        "--die-with-parent",
        "--clearenv",
    ):
        assert flag in command
    sources = [command[i + 1] for i, arg in enumerate(command) if arg in ("--ro-bind", "--bind")]
    for source in sources:
        assert not source.startswith("/etc")
        assert source == str(REPO / ".venv") or not source.startswith(str(REPO / "src"))
        assert not (REPO / "pyproject.toml").is_relative_to(source)
    assert "--bind " not in text  # nothing is writable from the host
    assert os.environ.get("HOME", "/root") not in sources


def test_a_run_refused_by_its_supervisor_says_why() -> None:
    report = {"internal_error": "trace", "setup_error": "OSError: seccomp_load: EINVAL"}
    result = result_from_report(report, SandboxLimits().for_run(2))
    assert result.error is not None and result.error.code == ErrorCode.RUNNER_INTERNAL_ERROR
    assert "no code ran" in result.error.message and "seccomp_load" in result.error.message
