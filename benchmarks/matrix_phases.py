"""The main job's cost: the warm probe phase serial vs ``nox -j 2``, the report, and the cold
cost of one release against the bare ``uv pip install`` of that release (the physical floor).

    python benchmarks/matrix_phases.py [--release 0.12.0.1] [--skip-cold | --skip-warm]

Run from the repository root with nox and uv on PATH, after one ``nox`` (warm venvs).
Targets (issue 5): warm probes of the default matrix plus the report under 2 minutes; a cold
release's overhead above its bare install under 10 s. Probe time is interpreter and compiler
work; it says nothing about kernel speed.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def timed(*command: str) -> float:
    start = time.perf_counter()
    subprocess.run(command, cwd=REPO, check=True, capture_output=True)
    return time.perf_counter() - start


def cold(release: str) -> tuple[float, float, float]:
    """(bare install, cold session, the probe run inside it) in seconds."""
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        subprocess.run(["uv", "venv", "-q", "-p", "3.12", f"{tmp}/v"], check=True)
        subprocess.run(
            [
                "uv",
                "pip",
                "install",
                "-q",
                "--python",
                f"{tmp}/v/bin/python",
                f"jax=={release}",
                f"jaxlib=={release}",
            ],
            check=True,
        )
        bare = time.perf_counter() - start
    session = timed("nox", "--reuse-venv", "no", "-s", f"probe(jax='{release}')", "--", "--force")
    # the probes' own wall time is kept beside the timings, out of the (golden) snapshot
    timings = json.loads((REPO / ".nox" / "timings" / f"probe-jax-{release}.json").read_text())
    return bare, session, timings["wall_s"]


def warm() -> None:
    # --force: an up-to-date session would be skipped, and timed as nothing
    serial = timed("nox", "-j", "1", "-s", "probe", "--", "--force")
    parallel = timed("nox", "-j", "2", "-s", "probe", "--", "--force")
    report = timed("nox", "-s", "report", "--", "--force")
    print(f"warm probe phase, serial     {serial:7.1f} s")
    print(f"warm probe phase, nox -j 2   {parallel:7.1f} s   {serial / parallel:4.2f}x faster")
    print(f"report                       {report:7.1f} s")
    best = min(serial, parallel) + report
    print(
        f"warm probes + report         {best:7.1f} s   {'ok' if best < 120 else 'over'} (target < 120 s)"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--release", default="0.12.0.1")
    skip = parser.add_mutually_exclusive_group()
    skip.add_argument("--skip-cold", action="store_true")
    skip.add_argument("--skip-warm", action="store_true")
    args = parser.parse_args()
    for tool in ("nox", "uv"):
        if shutil.which(tool) is None:
            parser.error(f"{tool} is not on PATH")
    if not args.skip_warm:
        warm()
    if not args.skip_cold:
        bare, session, probe = cold(args.release)
        overhead = session - probe - bare
        print(
            f"cold {args.release}: bare uv install {bare:.1f} s, session {session:.1f} s "
            f"(probes {probe:.1f} s) -> overhead {overhead:.1f} s "
            f"({'ok' if overhead < 10 else 'over'}; target < 10 s)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
