"""Where the main job's time goes: CPU seconds and wall time per phase, measured in one run.

    python benchmarks/main_job.py [--phases install,import,probe,...] [-j 2] [--releases 0.6.2]

Phases, in the order ``nox`` runs them: ``install`` (every venv made and filled:
``nox --install-only``), ``import`` (``import jax`` and Pallas once per release venv),
``probe``, ``kernels``, ``corpus``, ``thirdparty`` and ``report`` (each ``nox -s PHASE --
--force``, every session recomputed), then ``up-to-date`` (a plain ``nox`` right after, every
session skipped). CPU seconds are those of every process each phase started (user + system,
from ``getrusage``), so the shares say where the next optimisation pays, whatever the machine's
load does to the wall times. Targets (issue 21), on a 2-core machine: a full recompute within
15 minutes wall, an up-to-date ``nox`` within 20 seconds.

Run from the repository root with nox and uv on PATH. Interpreter timings say nothing about
kernel speed. ``--releases`` and ``--kinds`` limit every phase to some sessions (CI's lint
session runs ``--kinds report --phases report,up-to-date`` to keep this script working).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SESSIONS = ("probe", "kernels", "corpus", "thirdparty", "report")
PHASES = ("install", "import", *SESSIONS, "up-to-date")
TARGETS = {"full recompute": 15 * 60, "up-to-date": 20}


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def measured(command: Sequence[str], log: Path) -> tuple[float, float]:
    """(wall, CPU) seconds of ``command`` and everything it started; its output to ``log``."""
    cpu, start = children_cpu(), time.perf_counter()
    with log.open("a") as out:
        out.write(f"\n$ {' '.join(command)}\n")
        out.flush()
        done = subprocess.run(
            command, cwd=REPO, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL
        )
    if done.returncode != 0:
        raise SystemExit(
            f"main_job: {' '.join(command)} failed (exit {done.returncode}); see {log}"
        )
    return time.perf_counter() - start, children_cpu() - cpu


def selected(kinds: list[str], releases: list[str]) -> list[str]:
    """``-s`` arguments: every session of the kinds, or of the releases asked for."""
    if not releases:
        return kinds
    per_release = [f"{kind}(jax='{r}')" for kind in kinds if kind != "report" for r in releases]
    return per_release + (["report"] if "report" in kinds else [])


def sessions_of(phase: str, kinds: list[str], releases: list[str]) -> list[str]:
    return [s for s in selected(kinds, releases) if s == phase or s.startswith(f"{phase}(")]


def existing(names: list[str]) -> list[str]:
    """Drop the sessions nox does not have (a release some kind does not run on)."""
    listed = subprocess.run(
        ["nox", "--list", "--json"], cwd=REPO, capture_output=True, text=True, check=True
    )
    known = {s["session"] for s in json.loads(listed.stdout)} | {
        s["name"] for s in json.loads(listed.stdout)
    }
    return [n for n in names if n in known]


def import_phase(log: Path) -> tuple[float, float]:
    wall = cpu = 0.0
    code = "import jax, jax.experimental.pallas, jax.experimental.pallas.tpu"
    for venv in sorted((REPO / ".nox").glob("probe-jax-*")):
        w, c = measured([str(venv / "bin" / "python"), "-c", code], log)
        wall, cpu = wall + w, cpu + c
    return wall, cpu


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--phases", default=",".join(PHASES), help="comma-separated")
    parser.add_argument("-j", "--jobs", default="2", help="nox -j (default 2, as nox runs)")
    parser.add_argument("--releases", default="", help="comma-separated (default: the matrix)")
    parser.add_argument(
        "--kinds", default=",".join(SESSIONS), help="the sessions' kinds (default: every one)"
    )
    parser.add_argument("--log", type=Path, default=REPO / ".nox" / "main_job.log")
    args = parser.parse_args(argv)
    phases = [p for p in args.phases.split(",") if p]
    unknown = [p for p in phases if p not in PHASES]
    if unknown:
        parser.error(f"unknown phase {unknown[0]!r}; known: {', '.join(PHASES)}")
    for tool in ("nox", "uv"):
        if shutil.which(tool) is None:
            parser.error(f"{tool} is not on PATH")
    releases = [r for r in args.releases.split(",") if r]
    kinds = [k for k in args.kinds.split(",") if k]
    if not kinds or any(k not in SESSIONS for k in kinds):
        parser.error(f"--kinds {args.kinds!r}: choose from {', '.join(SESSIONS)}")
    args.log.parent.mkdir(parents=True, exist_ok=True)
    args.log.write_text("")
    nox = ["nox", "-j", args.jobs]
    rows: list[tuple[str, float, float]] = []
    for phase in phases:
        print(f"main_job: {phase} ...", file=sys.stderr, flush=True)
        if phase == "import":
            rows.append((phase, *import_phase(args.log)))
            continue
        every = phase in ("install", "up-to-date")
        names = existing(
            selected(kinds, releases) if every else sessions_of(phase, kinds, releases)
        )
        if not names:  # a kind left out by --kinds: nothing to run (a bare -s runs the default)
            continue
        command = [*nox, *(["--install-only"] if phase == "install" else []), "-s", *names]
        command += [] if phase == "up-to-date" else ["--", "--force"]
        rows.append((phase, *measured(command, args.log)))
    recompute = [r for r in rows if r[0] != "up-to-date"]
    total_cpu = sum(c for _, _, c in recompute) or 1.0
    print(f"{'phase':12} {'wall s':>8} {'CPU s':>8} {'CPU share':>10}")
    for phase, wall, cpu in rows:
        share = f"{100 * cpu / total_cpu:9.1f}%" if phase != "up-to-date" else " " * 10
        print(f"{phase:12} {wall:8.1f} {cpu:8.1f} {share}")
    wall = sum(w for _, w, _ in recompute)
    print(f"{'recompute':12} {wall:8.1f} {total_cpu:8.1f}")
    if set(SESSIONS) <= set(phases) and set(kinds) == set(SESSIONS) and not releases:
        target = TARGETS["full recompute"]
        print(
            f"full recompute {wall / 60:.1f} min wall: {'ok' if wall <= target else 'over'} (target {target // 60} min)"
        )
    for phase, wall, _ in rows:
        if phase == "up-to-date":
            target = TARGETS[phase]
            print(
                f"up-to-date nox {wall:.1f} s: {'ok' if wall <= target else 'over'} (target {target} s)"
            )
    print(f"(cores here: {os.cpu_count()}; the log of every command: {args.log})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
