"""What ``pallas_compat.patch()`` costs: the revision before the import hook (it imported every
Pallas backend module to fill it) against this tree (each module is filled when the program
imports it), side by side in one run.

    python benchmarks/patch_cost.py [--against REV] [--runs 5]

Each run is a fresh interpreter of this Python with the revision's ``pallas_compat`` first on
``sys.path``, which imports ``jax.experimental.pallas`` (as a kernel file does) and then times
``patch()``, counting the modules it imported; then the first lookups of two served names,
``pl.load`` and ``pl.max_contiguous`` (whose home is the Triton backend: this tree builds that
fill, importing the backend, only here). The median of ``--runs`` runs; the machine
is shared: read the ratios.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "scripts"))

from revision import checked_out  # noqa: E402

#: The last revision whose ``patch()`` imported every backend module.
BEFORE = "02ecd07"

RUN = """
import json, sys, time
import pallas_compat
import jax.experimental.pallas as pl
before = set(sys.modules)
start = time.perf_counter()
pallas_compat.patch(warn=False)
patched = time.perf_counter()
by_patch = [m for m in set(sys.modules) - before if not m.startswith("pallas_compat")]
pl.load, getattr(pl, "max_contiguous", None)
used = time.perf_counter()
print(json.dumps({"patch": patched - start, "first_use": used - patched, "imported": len(by_patch)}))
"""


def measured(checkout: Path, runs: int) -> dict[str, float]:
    """Median seconds of ``patch()`` and of the first use, and the modules it imported."""
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    seen = []
    for _ in range(runs):
        done = subprocess.run(
            [sys.executable, "-c", RUN],
            cwd=checkout.parent,  # not a folder with a pallas_compat of its own
            env=env,
            capture_output=True,
            text=True,
            stdin=subprocess.DEVNULL,
            check=True,
        )
        seen.append(json.loads(done.stdout))
    return {key: statistics.median(run[key] for run in seen) for key in seen[0]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", default=BEFORE, help="the revision to compare with")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        old = Path(tmp) / "old"
        with checked_out(args.against, old):
            before, after = measured(old, args.runs), measured(REPO, args.runs)
    import jax

    print(
        f"patch() after importing jax.experimental.pallas, JAX {jax.__version__}, median of {args.runs}:"
    )
    print(f"  {'':26} {'patch() s':>10} {'first use s':>16} {'modules patch() imported':>25}")
    for name, row in ((f"import all ({args.against})", before), ("import hook (this tree)", after)):
        print(f"  {name:26} {row['patch']:10.4f} {row['first_use']:16.4f} {row['imported']:25.0f}")
    print(
        f"  ratio: {after['patch'] / before['patch']:.3f}x the time of patch(); "
        f"{(after['patch'] + after['first_use']) / (before['patch'] + before['first_use']):.3f}x "
        "with the first use"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
