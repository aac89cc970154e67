"""Runs one piece of model-written Python inside the sandbox's worker process.

Standalone like `zygote.py` (bound next to it read-only; imports nothing from
`dataagent`). `preload` runs once in the zygote; `run_worker` runs in each forked
worker after the supervisor has isolated it: it applies the rlimits, turns the
Arrow tables into DataFrames, executes the code, saves figures left open and
reports a JSON value.
"""

from __future__ import annotations

import ast
import contextlib
import io
import json
import math
import os
import random
import resource
import signal
import string
import sys
import traceback
from typing import Any

CODE_FILENAME = "<analysis>"
_saved_figures: set[int] = set()


def preload() -> None:
    """Import the analysis stack once, so every forked worker starts with it loaded."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.figure
    import matplotlib.pyplot as plt
    import numpy
    import openpyxl  # noqa: F401
    import pandas
    import pyarrow
    import pyarrow.ipc
    import scipy
    import scipy.stats
    import seaborn
    import sklearn
    import sklearn.linear_model

    del numpy, pandas, pyarrow, scipy, seaborn, sklearn
    original_savefig = matplotlib.figure.Figure.savefig

    def savefig(self: Any, *args: Any, **kwargs: Any) -> Any:
        _saved_figures.add(id(self))  # figures saved by the code are not saved again
        return original_savefig(self, *args, **kwargs)

    matplotlib.figure.Figure.savefig = savefig  # type: ignore[method-assign]
    plt.show = lambda *args, **kwargs: None  # non-interactive: figures are collected instead
    warm_up()


def warm_up() -> None:
    """Exercise the lazy parts (fonts, Agg, pandas formatting) once, before any fork."""
    import matplotlib.pyplot as plt
    import pandas as pd
    import seaborn as sns

    frame = pd.DataFrame({"x": [1, 2, 3], "y": [2.0, 1.0, 3.0], "g": ["a", "b", "a"]})
    frame.describe()
    frame.groupby("g").sum().to_string()
    figure, axes = plt.subplots()
    sns.barplot(data=frame, x="g", y="y", ax=axes)
    axes.plot(frame["x"], frame["y"], label="line")
    axes.set_title("warm-up")
    axes.legend()
    figure.savefig(io.BytesIO(), format="png", dpi=100, bbox_inches="tight")
    # pandas imports its matplotlib backend on the first DataFrame.plot: do it here, once.
    # Rendering every printable character fills the font glyph caches the children inherit.
    for _ in range(2):
        frame.plot(x="x", y="y", title=string.printable.strip())
        plt.savefig(io.BytesIO(), format="png")
    plt.close("all")
    _saved_figures.clear()


def vm_size_kb() -> int:
    """This process's virtual memory size (the base the memory limit is added to)."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmSize:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def apply_limits(limits: dict[str, Any], baseline_vm_kb: int) -> None:
    """Per-run rlimits: address space above the preloaded base, CPU, processes, files."""
    memory = baseline_vm_kb * 1024 + int(limits["memory_mb"]) * 1024 * 1024
    cpu = max(1, math.ceil(float(limits["cpu_s"])))
    fsize = int(limits["fsize_mb"]) * 1024 * 1024
    for name, soft, hard in (
        (resource.RLIMIT_AS, memory, memory),
        (resource.RLIMIT_CPU, cpu, cpu + 1),
        (resource.RLIMIT_NPROC, int(limits["nproc"]), int(limits["nproc"])),
        (resource.RLIMIT_FSIZE, fsize, fsize),
        (resource.RLIMIT_NOFILE, int(limits["nofile"]), int(limits["nofile"])),
        (resource.RLIMIT_CORE, 0, 0),
    ):
        resource.setrlimit(name, (soft, hard))


def load_tables(tables: list[dict[str, Any]]) -> dict[str, Any]:
    """The named Arrow IPC tables as pandas DataFrames, plus the `df` alias."""
    import pyarrow as pa

    frames: dict[str, Any] = {}
    for table in tables:
        with pa.ipc.open_stream(pa.py_buffer(table.pop("data"))) as reader:
            frames[table["name"]] = reader.read_all().to_pandas()
    if "df" not in frames:
        if "current_data" in frames:
            frames["df"] = frames["current_data"]
        elif len(frames) == 1:
            frames["df"] = next(iter(frames.values()))
    return frames


def to_jsonable(value: Any) -> Any:
    """A JSON-compatible copy of a value (pandas and numpy included); TypeError otherwise."""
    import numpy as np
    import pandas as pd

    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, pd.DataFrame | pd.Series):
        return json.loads(value.to_json(orient="split", date_format="iso", default_handler=str))
    if isinstance(value, np.ndarray):
        return to_jsonable(value.tolist())
    if isinstance(value, np.generic):
        return to_jsonable(value.item())
    if isinstance(value, dict):
        return {str(key): to_jsonable(item) for key, item in value.items()}
    if isinstance(value, list | tuple | set):
        return [to_jsonable(item) for item in value]
    raise TypeError(f"a {type(value).__name__} is not JSON-serialisable")


class _Outcome:
    """What the code chose to return, and how the run ended."""

    def __init__(self) -> None:
        self.value: Any = None
        self.has_value = False
        self.explicit = False
        self.memory_error = False
        self.notes: list[str] = []

    def set_result(self, value: Any) -> None:
        """Return `value` (JSON-serialisable, pandas or numpy) as the run's result."""
        self.value = to_jsonable(value)
        self.has_value = True
        self.explicit = True


def _print_exception(exc: BaseException) -> None:
    tb = exc.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename != CODE_FILENAME:
        tb = tb.tb_next  # show the user's frames, not the runner's
    traceback.print_exception(type(exc), exc, tb, file=sys.stderr)


def execute(code: str, namespace: dict[str, Any], outcome: _Outcome) -> int:
    """Execute the code; the last bare expression is the value unless set_result was called."""
    try:
        tree = ast.parse(code, filename=CODE_FILENAME)
    except SyntaxError as exc:
        traceback.print_exception(type(exc), exc, None, file=sys.stderr)
        return 1
    last = tree.body[-1] if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    if last is not None:
        tree.body.pop()
    try:
        exec(compile(tree, CODE_FILENAME, "exec"), namespace)
        if last is not None:
            expression = ast.Expression(last.value)
            result = eval(compile(expression, CODE_FILENAME, "eval"), namespace)
            if not outcome.explicit and result is not None:
                with contextlib.suppress(TypeError):  # e.g. an Axes on the last line: no value
                    outcome.value, outcome.has_value = to_jsonable(result), True
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except MemoryError as exc:
        outcome.memory_error = True
        _print_exception(exc)
        return 1
    except BaseException as exc:
        _print_exception(exc)
        return 1
    return 0


def save_open_figures(outcome: _Outcome) -> None:
    """Save every figure the code left open and did not save itself, as figure_N.png."""
    import matplotlib.pyplot as plt

    for number in plt.get_fignums():
        figure = plt.figure(number)
        if id(figure) in _saved_figures:
            continue
        name = f"figure_{number}.png"
        suffix = 1
        while os.path.lexists(name):
            suffix += 1
            name = f"figure_{number}_{suffix}.png"
        try:
            figure.savefig(name, dpi=100, bbox_inches="tight")
        except Exception as exc:
            outcome.notes.append(f"figure {number} not saved: {type(exc).__name__}: {exc}")
    plt.close("all")


def run_worker(job: dict[str, Any], workdir: str, out_w: int, err_w: int, res_w: int) -> None:
    """The forked worker: redirect, limit, run the code, report; never returns."""
    code = 1
    outcome = _Outcome()
    try:
        os.setsid()
        devnull = os.open(os.devnull, os.O_RDONLY)
        for source, target in ((devnull, 0), (out_w, 1), (err_w, 2)):
            os.dup2(source, target)
            os.close(source)
        os.chdir(workdir)
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a too-large file is an OSError, not death
        sys.stdout = io.TextIOWrapper(
            io.FileIO(1, "w", closefd=False), "utf-8", "backslashreplace", line_buffering=True
        )
        sys.stderr = io.TextIOWrapper(
            io.FileIO(2, "w", closefd=False), "utf-8", "backslashreplace", line_buffering=True
        )
        apply_limits(job["limits"], int(job["baseline_vm_kb"]))
        import numpy as np

        seed = int.from_bytes(os.urandom(4), "little")
        random.seed(seed)  # forked workers would otherwise share the zygote's random state
        np.random.seed(seed)
        import matplotlib.pyplot as plt
        import pandas as pd

        namespace: dict[str, Any] = {"__name__": "__main__", "__builtins__": __builtins__}
        namespace.update({"pd": pd, "np": np, "plt": plt, "set_result": outcome.set_result})
        namespace.update(load_tables(job.get("tables", [])))
        code = execute(job["code"], namespace, outcome)
        save_open_figures(outcome)
    except MemoryError:
        outcome.memory_error = True
        code = 1
    except BaseException:
        traceback.print_exc(file=sys.stderr)
        code = 1
    _report(outcome, int(job["limits"]["value_max_bytes"]), res_w)
    os._exit(code)


def _report(outcome: _Outcome, value_max_bytes: int, res_w: int) -> None:
    message: dict[str, Any] = {"memory_error": outcome.memory_error, "notes": outcome.notes}
    if outcome.has_value:
        encoded = json.dumps(outcome.value)
        if len(encoded) <= value_max_bytes:
            message["value"], message["has_value"] = outcome.value, True
        else:
            message["notes"].append(
                f"returned value dropped: {len(encoded)} bytes > {value_max_bytes}"
            )
    try:
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
        data = memoryview(json.dumps(message).encode())
        while data:
            data = data[os.write(res_w, data) :]
    except (OSError, ValueError, MemoryError):
        pass
