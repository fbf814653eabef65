"""Time a full probe snapshot of the installed JAX, in the ways the runner can take one.

    python benchmarks/probe_snapshot.py [--repeat N]

Prints wall seconds per configuration (median of N), side by side in one run, with ratios
against the default. Target (issue 2): the default configuration under 15 s on a 2-core machine.
These are probe-suite costs, mostly interpreter and compiler time: they say nothing about the
speed of any kernel.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

CONFIGS = {
    "default (fork, fast compile)": [],
    "spawn workers": ["--isolation", "spawn"],
    "XLA default optimization": ["--xla-optimize"],
    "one job": ["--jobs", "1"],
}


def one_run(args: list[str]) -> tuple[float, dict]:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "snapshot.json"
        started = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "probes", "--quiet", "--out", str(out), *args],
            cwd=REPO,
            check=True,
        )
        wall = time.perf_counter() - started
        return wall, json.loads(out.read_text())["summary"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only-default", action="store_true")
    args = parser.parse_args()
    configs = dict(list(CONFIGS.items())[:1]) if args.only_default else CONFIGS
    one_run([])  # warm the OS file cache so that the first configuration is not penalised
    results: dict[str, float] = {}
    summary: dict = {}
    for name, extra in configs.items():
        walls = []
        for _ in range(args.repeat):
            wall, summary = one_run(extra)
            walls.append(wall)
        results[name] = statistics.median(walls)
        print(
            f"{name:32s} median {results[name]:6.2f} s   runs: {', '.join(f'{w:.2f}' for w in walls)}",
            flush=True,
        )
    base = results["default (fork, fast compile)"]
    print(
        f"\n{summary['probes']} probes, {summary['facts']} facts, {len(summary['failed'])} failed"
    )
    for name, wall in results.items():
        print(f"{name:32s} {wall / base:5.2f}x the default")
    verdict = "meets" if base < 15 else "misses"
    print(f"default snapshot {base:.2f} s: {verdict} the 15 s target")


if __name__ == "__main__":
    main()
