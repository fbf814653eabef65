"""Wall time of the whole kernel set on the installed JAX, per mode and all together, side by
side in one run.

    python benchmarks/kernels_suite.py [--repeat N] [--only NAME...]

Each sample is a fresh ``python -m kernels`` process (JAX import included). Target (issue 4):
the three default modes together under 90 s on a 2-core machine. These are interpreter and
compiler costs of the suite: they say nothing about the speed of any kernel.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TARGET_S = 90.0
CONFIGS = {
    "interpret": ["interpret"],
    "tpu_sim": ["tpu_sim"],
    "tpu_lower": ["tpu_lower"],
    "all three (default)": ["interpret", "tpu_sim", "tpu_lower"],
}


def sample(modes: list[str], only: list[str]) -> float:
    """One fresh run; a run that fails is an error here, not a time."""
    command = [sys.executable, "-m", "kernels", "-q", "--modes", *modes]
    command += ["--only", *only] if only else []
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        done = subprocess.run(
            [*command, "--out", f"{tmp}/r.json"], cwd=REPO, capture_output=True, text=True
        )
        if done.returncode != 0:
            raise SystemExit(f"kernels_suite: {' '.join(command)} failed:\n{done.stderr[-2000:]}")
        return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--only", nargs="+", default=[], metavar="NAME", help="some kernels")
    args = parser.parse_args()
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    times: dict[str, list[float]] = {label: [] for label in CONFIGS}
    for _ in range(args.repeat):
        for label, modes in CONFIGS.items():
            times[label].append(sample(modes, args.only))
    default = statistics.median(times["all three (default)"])
    for label, samples in times.items():
        median = statistics.median(samples)
        print(f"{label:22} {median:7.1f} s   {median / default:5.2f}x of default")
    verdict = "ok" if default < TARGET_S else f"over the {TARGET_S:.0f} s target"
    if args.only:
        verdict = "some kernels only: no target"
    print(f"default: {default:.1f} s (median of {args.repeat}) - {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
