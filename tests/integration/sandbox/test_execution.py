"""Functional tests against the real sandbox: data in, charts and values out, failures."""

from __future__ import annotations

import asyncio
import base64
import io
import logging

import matplotlib.image
import pandas as pd
import pytest
from tests.integration.sandbox.conftest import bwrap_children, require_bwrap

from dataagent.config import Settings
from dataagent.errors import ErrorCode
from dataagent.sandbox import LocalSandbox, sandbox_from_settings
from dataagent.sandbox import pool as pool_module

pytestmark = [pytest.mark.sandbox, pytest.mark.asyncio(loop_scope="module")]

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


async def test_tables_become_dataframes(sandbox: LocalSandbox) -> None:
    sales = pd.DataFrame({"store": ["a", "b", "a"], "revenue": [10.5, 20.0, 4.5]})
    stores = pd.DataFrame({"store": ["a", "b"], "city": ["Oslo", "Lima"]})
    code = """
merged = step_1_data.merge(step_2_data, on="store")
print(type(df).__name__, df is current_data, len(merged))
merged.groupby("city")["revenue"].sum().to_dict()
"""
    data = {"current_data": sales, "step_1_data": sales, "step_2_data": stores}
    result = await sandbox.execute(code, data)
    assert result.ok, result.stderr
    assert result.stdout == "DataFrame True 3\n"
    assert result.value == {"Oslo": 15.0, "Lima": 20.0}


async def test_single_table_is_also_df(sandbox: LocalSandbox) -> None:
    frame = pd.DataFrame({"when": pd.to_datetime(["2024-01-01", "2024-02-01"]), "n": [1, 2]})
    result = await sandbox.execute(
        "str(df['when'].dtype), int(df['n'].sum())", {"step_1_data": frame}
    )
    assert result.value[0].startswith("datetime64") and result.value[1] == 3


async def test_chart_comes_back_as_png(sandbox: LocalSandbox) -> None:
    code = """
import matplotlib.pyplot as plt
fig, ax = plt.subplots()
ax.bar(["a", "b"], [3, 5])
fig.savefig("revenue.png")
plt.figure()
plt.plot([1, 2, 3])
"""
    result = await sandbox.execute(code)
    assert result.ok, result.stderr
    assert sorted(item.filename for item in result.charts) == ["figure_2.png", "revenue.png"]
    for chart in result.charts:
        content = base64.b64decode(chart.data)
        assert content.startswith(PNG_SIGNATURE)
        assert matplotlib.image.imread(io.BytesIO(content), format="png").shape[2] in (3, 4)


async def test_returned_json_value(sandbox: LocalSandbox) -> None:
    code = "import numpy as np\nset_result({'mean': np.float64(2.5), 'items': np.arange(3)})\n42"
    result = await sandbox.execute(code)
    assert result.value == {"mean": 2.5, "items": [0, 1, 2]}


async def test_syntax_error(sandbox: LocalSandbox) -> None:
    result = await sandbox.execute("def broken(:\n    pass")
    assert result.return_code == 1 and result.error is None
    assert "SyntaxError" in result.stderr


async def test_raised_exception_is_a_traceback(sandbox: LocalSandbox) -> None:
    result = await sandbox.execute("print('before')\nraise ValueError('bad input')")
    assert result.return_code == 1 and result.error is None
    assert result.stdout == "before\n"
    assert 'File "<analysis>", line 2' in result.stderr and "ValueError: bad input" in result.stderr
    assert "runner.py" not in result.stderr


async def test_timeout(sandbox: LocalSandbox) -> None:
    result = await sandbox.execute(
        "import time\nprint('start', flush=True)\ntime.sleep(60)", timeout_s=1
    )
    assert result.error is not None and result.error.code == ErrorCode.RUNNER_TIMEOUT
    assert result.stdout == "start\n"


async def test_exit_code(sandbox: LocalSandbox) -> None:
    result = await sandbox.execute("import sys\nsys.exit(3)")
    assert result.return_code == 3 and result.error is None


async def test_burst_beyond_concurrency_queues(sandbox: LocalSandbox) -> None:
    results = await asyncio.gather(*(sandbox.execute(f"print({n} * 2)") for n in range(6)))
    assert [result.stdout for result in results] == [f"{n * 2}\n" for n in range(6)]


async def test_wire_shape_is_camel_case(sandbox: LocalSandbox) -> None:
    wire = (await sandbox.execute("print(1)")).to_wire()
    assert set(wire) == {
        "stdout",
        "stderr",
        "returnCode",
        "files",
        "value",
        "executionTimeMs",
        "error",
    }


async def test_sandbox_from_settings_runs_locally() -> None:
    sandbox = sandbox_from_settings(Settings(sandbox_pool_size=0, sandbox_max_concurrency=1))
    try:
        assert isinstance(sandbox, LocalSandbox)
        assert (await sandbox.execute("print('cold')")).stdout == "cold\n"
    finally:
        await sandbox.aclose()


async def test_missing_bwrap_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pool_module, "find_bwrap", lambda: None)
    sandbox = LocalSandbox(pool_size=0)
    try:
        result = await sandbox.execute("print(1)")
        assert result.error is not None and result.error.code == ErrorCode.RUNNER_INTERNAL_ERROR
        assert "bubblewrap" in result.error.message
    finally:
        await sandbox.aclose()


async def test_unsafe_mode_runs_and_warns(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(pool_module, "find_bwrap", lambda: None)
    sandbox = LocalSandbox(pool_size=0, allow_unsafe=True)
    try:
        with caplog.at_level(logging.WARNING):
            first = await sandbox.execute(
                "print(sum(df['n']))", {"df": pd.DataFrame({"n": [1, 2]})}
            )
            second = await sandbox.execute("print('again')")
        assert first.stdout == "3\n" and second.stdout == "again\n"
        assert sum("WITHOUT a sandbox" in record.message for record in caplog.records) == 2
    finally:
        await sandbox.aclose()


async def test_warm_up_fills_the_pool_in_the_background(caplog: pytest.LogCaptureFixture) -> None:
    require_bwrap()
    caplog.set_level(logging.INFO, logger="dataagent.sandbox")
    before = set(bwrap_children())  # the module's shared pool
    sandbox = LocalSandbox(pool_size=2, max_concurrency=1)
    try:
        sandbox.warm_up()  # returns at once: the zygotes take seconds to import the stack
        assert sandbox.status() == {"mode": "bwrap", "idle": 0, "alive": 2}
        sandbox.warm_up()  # already under way: starts nothing more
        assert sandbox.status()["alive"] == 2
        for _ in range(1800):
            if sandbox.status()["idle"] == 2:
                break
            await asyncio.sleep(0.05)
        assert sandbox.status() == {"mode": "bwrap", "idle": 2, "alive": 2}
        await asyncio.sleep(0)  # the last start's done-callback writes the line
        ready = [r.message for r in caplog.records if "sandbox ready" in r.message]
        assert len(ready) == 1 and "(bwrap): 2 warm interpreters in" in ready[0]
        assert (await sandbox.execute("print('warm')")).stdout == "warm\n"
    finally:
        await sandbox.aclose()
    assert sandbox.status()["alive"] == 0 and set(bwrap_children()) <= before


async def test_closing_while_zygotes_start_leaves_nothing_behind() -> None:
    # Closed at once, a start is cancelled while the process is being created; later, while
    # the zygote imports. Neither may leave a process, hang, or miscount the pool.
    require_bwrap()
    before = set(bwrap_children())  # the module's shared pool
    for delay in (0.0, 0.0, 0.001, 0.01, 0.5):
        sandbox = LocalSandbox(pool_size=2)
        sandbox.warm_up()
        await asyncio.sleep(delay)
        await asyncio.wait_for(sandbox.aclose(), 30)
        assert sandbox.status()["alive"] == 0
        assert set(bwrap_children()) <= before


async def test_no_code_runs_without_the_system_call_filter(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    # As on a machine without libseccomp: the zygote cannot build its filter.
    require_bwrap()
    sources = pool_module.runner_sources()
    broken = [
        (content.replace(b'"libseccomp.so.2"', b'"libseccomp-missing.so.2"'), path)
        for content, path in sources
    ]
    assert broken != sources
    monkeypatch.setattr(pool_module, "runner_sources", lambda: broken)
    sandbox = LocalSandbox(pool_size=0)
    try:
        with caplog.at_level(logging.ERROR):
            result = await sandbox.execute("open('/tmp/ran', 'w').write('x')\nprint('ran')")
        assert result.error is not None and result.error.code == ErrorCode.RUNNER_INTERNAL_ERROR
        assert "cannot filter system calls" in result.error.message
        assert "libseccomp-missing.so.2" in result.error.message and result.stdout == ""
        assert sandbox.status()["alive"] == 0  # the zygote was not kept
    finally:
        await sandbox.aclose()
