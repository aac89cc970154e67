"""How well the web page keeps up with a long streamed answer, in a real browser.

Runs web/bench/stream.bench.ts with Playwright (Debian's chromium) against the browser
tests' stack (tests/e2e/web_stack.py: `dataagent demo` with a scripted model). The same
answer, about 18,000 characters of sections, tables and code in about 1,000 pieces, is read
in one run by a plain client (Node's fetch, nothing rendered) and in the page, and reported:

- `plainClientFirstToLastMs`, `pageFirstToCompleteMs` and their ratio: whether the page
  shows the end of the answer as soon as a client that renders nothing has it;
- `pageLongTasksTotalMs`, `pageLongestTaskMs`: main-thread tasks over 50 ms while the
  answer streams (the browser's Long Tasks API): the time the page could not answer a
  click or a key.

Medians over --rounds rounds. Needs `make web` (the built page) and node_modules.

    .venv/bin/python benchmarks/web_stream_bench.py [--rounds 3]

Writes benchmarks/results/web_stream.json.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    """Run the browser benchmark and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    out = ROOT / "benchmarks" / "results" / "web_stream.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    env = {
        **os.environ,
        "BENCH_ROUNDS": str(args.rounds),
        "BENCH_OUT": str(out),
        "DATAAGENT_PYTHON": sys.executable,
    }
    done = subprocess.run(
        ["npx", "playwright", "test", "-c", "bench/playwright.config.ts"],
        cwd=ROOT / "web",
        env=env,
        check=False,
    )
    if done.returncode != 0:
        return done.returncode
    result = json.loads(out.read_text())
    for name, value in result.items():
        print(f"{name:28} {value:.2f}" if isinstance(value, float) else f"{name:28} {value}")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
