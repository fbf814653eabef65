"""``python -m probes``: take a snapshot of the installed JAX's Pallas surface."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from common import Parser, ProbeStatus, UsageError, run_cli, unwritable, write_or_keep
from probes._groups import GROUPS, GROUPS_BY_NAME
from probes._runner import GroupResult, Launcher, run_groups
from probes._snapshot import assemble, dumps
from probes.imports import check_forked

PROG = "python -m probes"
#: Exit status of --check-imports when JAX imports packages it does not declare.
UNDECLARED_DEPENDENCIES = 3


def usable_cpus() -> int:
    """The CPUs this process may run on: a job pinned with ``taskset`` or a CPU-limited
    container may use fewer than the machine has (``os.cpu_count``), and a worker per
    machine CPU there only adds memory."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0)) or 1
    return os.cpu_count() or 1


def _parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog=PROG,
        description="Record the live Pallas surface of the installed JAX as one JSON snapshot.",
    )
    parser.add_argument("--out", type=Path, help="write the snapshot here (default: stdout)")
    parser.add_argument(
        "--timings",
        type=Path,
        help="write when it ran and how long each probe took here (kept out of the snapshot)",
    )
    parser.add_argument(
        "--groups",
        help=f"comma-separated probe groups to run (default: all of {', '.join(GROUPS_BY_NAME)})",
    )
    parser.add_argument(
        "--jobs",
        "-j",
        type=int,
        default=usable_cpus(),
        help="groups to run at once (default: the number of CPUs this process may use)",
    )
    parser.add_argument(
        "--isolation",
        choices=("auto", "fork", "spawn"),
        default="auto",
        help="start workers by forking this (JAX-loaded) process, or as fresh "
        "interpreters (default: fork when JAX imports here)",
    )
    parser.add_argument(
        "--xla-optimize",
        action="store_true",
        help="keep XLA's default optimization level (slower; by default the probes "
        "compile with --xla_backend_optimization_level=0)",
    )
    parser.add_argument(
        "--compilation-cache",
        type=Path,
        metavar="DIR",
        help="keep JAX's persistent compilation cache here, so that a re-run against the "
        "same JAX compiles less (the snapshot does not change; use one folder per JAX)",
    )
    _add_import_checks(parser)
    parser.add_argument("--quiet", "-q", action="store_true", help="no progress lines on stderr")
    return parser


def _add_import_checks(parser: argparse.ArgumentParser) -> None:
    """How a fresh environment's import of Pallas is checked and recorded."""
    imports = parser.add_mutually_exclusive_group()
    imports.add_argument(
        "--check-imports",
        type=Path,
        metavar="FILE",
        help="this environment is fresh: first import every public Pallas module and write "
        "what failed to FILE; when JAX imports packages it does not declare, stop with exit "
        "status 3 so that they can be installed before a run with --clean-imports FILE",
    )
    imports.add_argument(
        "--clean-imports",
        type=Path,
        metavar="FILE",
        help="JSON from --check-imports or `python -m probes.imports` in a fresh environment, "
        "before missing packages were installed: recorded as "
        "environment.undeclared_dependencies",
    )


def _selected_groups(text: str | None) -> list:
    if text is None:
        return list(GROUPS)
    names = [name.strip() for name in text.split(",") if name.strip()]
    if not names:
        raise UsageError(
            f"--groups {text!r} names no group; choose from {', '.join(GROUPS_BY_NAME)}"
        )
    unknown = [name for name in names if name not in GROUPS_BY_NAME]
    if unknown:
        raise UsageError(
            f"unknown probe group {unknown[0]!r}; choose from {', '.join(GROUPS_BY_NAME)}"
        )
    return [GROUPS_BY_NAME[name] for name in names]


def _check_out(path: Path | None, option: str = "--out") -> None:
    """Found before the work, not after it: a snapshot takes a minute."""
    problem = None if path is None else unwritable(path)
    if problem is not None:
        raise UsageError(f"{option} {path}: {problem}")


def _check_cache(path: Path | None) -> None:
    if path is None:
        return
    try:
        path.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        raise UsageError(f"--compilation-cache {path}: is not a folder") from None
    except OSError as exc:
        raise UsageError(f"--compilation-cache {path}: cannot create it ({exc.strerror})") from None
    if not os.access(path, os.W_OK):
        raise UsageError(f"--compilation-cache {path}: folder is not writable")


def _clean_imports(path: Path | None) -> dict | None:
    if path is None:
        return None
    try:
        data = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise UsageError(f"--clean-imports {path}: cannot read it ({exc})") from None
    if not isinstance(data, dict) or not {"errors", "undeclared", "install"} <= set(data):
        raise UsageError(f"--clean-imports {path}: not the output of `python -m probes.imports`")
    return data


def main(argv: Sequence[str] | None = None) -> int:
    """Usage errors: one line, exit 2; Ctrl-C: the runner has already killed its workers."""
    return run_cli(PROG, _main, argv)


def _progress(quiet: bool) -> Callable[[GroupResult], None]:
    def progress(result: GroupResult) -> None:
        if quiet:
            return
        bad = sum(o.status != ProbeStatus.OK for o in result.outcomes.values())
        note = f"  GROUP FAILED: {result.failure['type']}" if result.failure else ""
        print(
            f"probes: {result.name:<11} {len(result.outcomes):3d} probes, {bad} failed, "
            f"{result.seconds:6.1f} s{note}",
            file=sys.stderr,
        )

    return progress


def _check_imports(path: Path) -> int:
    """``--check-imports``: what importing Pallas needs that JAX does not declare; 0 when
    nothing is missing."""
    try:
        found = check_forked()
    except RuntimeError as exc:
        print(f"python -m probes: error: --check-imports: {exc}", file=sys.stderr)
        return 1
    if not write_or_keep(path, json.dumps(found, sort_keys=True), PROG):
        return 1
    if found["undeclared"]:
        print(
            f"python -m probes: JAX imports {', '.join(found['undeclared'])} without "
            f"declaring it; install {' '.join(found['install'])}, then run again with "
            f"--clean-imports {path}",
            file=sys.stderr,
        )
        return UNDECLARED_DEPENDENCIES
    return 0


def _write_results(
    args: argparse.Namespace, snapshot: dict[str, Any], timings: dict[str, Any]
) -> int:
    text = dumps(snapshot)
    if args.out is None:
        sys.stdout.write(text)
    elif not write_or_keep(args.out, text, PROG):
        return 1
    if args.timings is not None and not write_or_keep(args.timings, dumps(timings), PROG):
        return 1
    if not args.quiet:
        summary = snapshot["summary"]
        print(
            f"probes: {summary['probes']} probes, {summary['facts']} facts, "
            f"{len(summary['failed'])} failed, {timings['wall_s']:.1f} s"
            + (f" -> {args.out}" if args.out else ""),
            file=sys.stderr,
        )
    failed_groups = snapshot["summary"]["group_failures"]
    if failed_groups:
        print(
            f"python -m probes: error: probe group(s) {', '.join(sorted(failed_groups))} could not run; "
            "their reasons are in the snapshot's summary.group_failures",
            file=sys.stderr,
        )
        return 1
    return 0


def _main(argv: Sequence[str]) -> int:
    if argv and argv[0] in ("report", "diff", "guide"):  # where these lived until 2026-12
        from report._cli import main as report_main

        print(f"{PROG} {argv[0]}: moved; run `python -m report ...` next time", file=sys.stderr)
        return report_main(list(argv[1:]) if argv[0] == "report" else list(argv))
    args = _parser().parse_args(argv)
    groups = _selected_groups(args.groups)
    _check_out(args.out)
    _check_out(args.timings, "--timings")
    _check_out(args.check_imports, "--check-imports")
    if args.jobs < 1:
        raise UsageError(f"--jobs {args.jobs}: must be at least 1")
    _check_cache(args.compilation_cache)
    clean = _clean_imports(args.clean_imports)
    started = time.perf_counter()
    launcher = Launcher(
        args.isolation, fast_compile=not args.xla_optimize, compilation_cache=args.compilation_cache
    )
    if args.check_imports is not None:
        checking = time.perf_counter()
        status = _check_imports(args.check_imports)
        if status:
            return status
        started += time.perf_counter() - checking  # the check is not probe time
    results = run_groups(groups, args.jobs, launcher, on_done=_progress(args.quiet))
    snapshot, timings = assemble(results, time.perf_counter() - started)
    if clean is not None:
        snapshot["environment"]["undeclared_dependencies"] = clean["undeclared"]
        snapshot["environment"]["clean_venv_import_errors"] = clean["errors"]
    return _write_results(args, snapshot, timings)
