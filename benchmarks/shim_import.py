"""What ``import pallas_compat`` adds over importing Pallas directly, side by side in one run.

    python benchmarks/shim_import.py [--repeat N]

Two measurements per case, each sample a fresh interpreter: "added" times the shim statement
alone after the native modules are already imported (the shim's own cost, precise); the two
columns time native and shim statements from scratch, JAX included, alternating so that load
on this shared machine hits both alike (their difference is noisy: JAX alone takes seconds).
Target (issue 3): the shim adds under 50 ms. Import cost only: nothing about kernel speed.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TARGET_MS = 50.0

#: (what is compared, native statement, shim statement)
PAIRS = (
    (
        "pl",
        "import jax.experimental.pallas as pl; pl.program_id",
        "from pallas_compat import pl; pl.program_id",
    ),
    (
        "pl + pltpu, CompilerParams",
        "from jax.experimental.pallas import tpu as pltpu; pltpu.CompilerParams",
        "from pallas_compat import pl, pltpu; pltpu.CompilerParams; pl.BlockSpec; pl.pallas_call",
    ),
)


def sample(statement: str, setup: str = "pass") -> float:
    code = f"{setup}; import time; t = time.perf_counter(); {statement}; print(time.perf_counter() - t)"
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, check=True, capture_output=True, text=True
    )
    return float(out.stdout.strip().splitlines()[-1]) * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15, help="samples per statement")
    args = parser.parse_args()
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    print(f"{'compared':28} {'native ms':>10} {'shim ms':>10} {'added ms':>9}  verdict")
    for label, native, shim in PAIRS:
        natives, shims, added = [], [], []
        for _ in range(args.repeat):
            natives.append(sample(native))
            shims.append(sample(shim))
            added.append(sample(shim, setup=native))
        n, s, a = (statistics.median(x) for x in (natives, shims, added))
        verdict = "ok" if a < TARGET_MS else f"over {TARGET_MS:.0f} ms"
        print(f"{label:28} {n:10.0f} {s:10.0f} {a:9.1f}  {verdict}")
    print(
        f"medians of {args.repeat} alternating fresh-process samples; target < {TARGET_MS:.0f} ms"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
