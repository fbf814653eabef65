"""``python -m kernels.thirdparty [--cache DIR] [--out FILE]``: published libraries' Pallas
kernels on this JAX.

Every case of ``kernels/thirdparty/_cases.py`` whose library was written for this release or
an older one runs on the installed JAX: natively when the library was written for this
release (the validation: the report drops a case that is wrong there), else natively and
through ``patch``, ``shim`` and ``migrate``. Each plain run also checks ``doctor``: what it
says breaks here must be what ran when the run failed, and nothing that ran when it worked. The libraries come unpacked from the cache
(``scripts/fetch_libraries.py``). One JSON record per library x case x route, as the ops
corpus writes them. ``--mode gpu`` compiles and runs the GPU cases on this machine's GPU
instead (the precision and the device recorded). Exit status 0 unless the input is bad (2).
"""

from __future__ import annotations

import json
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from packaging.version import Version

from common import Parser, UsageError, run_cli, unwritable, write_or_keep, write_side_file
from kernels import _compiled, _lowered
from kernels._progress import Progress
from kernels.corpus import _memo, _mode
from kernels.corpus._bytecode import compiled_once
from kernels.corpus._doctor_check import breaking_uses_run
from kernels.corpus._doctor_check import verdict as doctor_verdict
from kernels.corpus._lines import lines_run
from kernels.corpus._package import Tree
from kernels.corpus._run import ROUTES, attempt, load, side_file, timed
from kernels.thirdparty import SCHEMA
from kernels.thirdparty._cases import ThirdPartyCase, cases

PROG = "python -m kernels.thirdparty"


def tree(case: ThirdPartyCase, libraries: Path) -> Tree:
    """The library's own package, whose files import each other by its name."""
    lib = case.library
    base = libraries / f"{lib.name}-{lib.version}" / lib.package
    return Tree(base, lib.package, parent_inits=False, written_for=lib.written_for)


def one(
    case: ThirdPartyCase,
    route: str,
    target: str,
    libraries: Path,
    work: Path,
    mode: str = "interpret",
) -> dict[str, Any]:
    lib = case.library
    tag = f"thirdparty_{lib.package}_{Path(case.file).stem}_{route}"
    source = tree(case, libraries)

    def run() -> dict[str, Any]:
        return attempt(
            case, route, lambda: load(source, case.file, route, target, work, tag), tag, work, mode
        )

    if route == "native" and mode == "interpret":  # the plain run also checks doctor
        with lines_run(work / tag) as ran:
            verdict = timed(run)
        verdict |= doctor_verdict(verdict, breaking_uses_run(work / tag, ran, target))
    else:
        verdict = timed(run)
    return {
        "library": lib.name,
        "version": lib.version,
        "from": lib.written_for,
        "kernel": case.name,
        "route": route,
        **verdict,
    }


def main(argv: Sequence[str] | None = None) -> int:
    return run_cli(PROG, _main, argv)


def _main(argv: Sequence[str]) -> int:
    import jax

    parser = Parser(prog=PROG, description=__doc__.splitlines()[0])
    parser.add_argument(
        "--cache", type=Path, help="the libraries cache (default: scripts/fetch_libraries.py's)"
    )
    parser.add_argument("--out", type=Path, help="write the results here (default: stdout)")
    parser.add_argument(
        "--only",
        metavar="TEXT",
        default="",
        help="run only the cases whose library or name has TEXT",
    )
    parser.add_argument(
        "--routes",
        default="",
        help="comma-separated routes to run for every case up to this release (default: "
        "native on a library's own release, native, patch, shim and migrate on newer ones)",
    )
    _memo.add_option(parser)
    _compiled.add_option(parser)
    _lowered.add_option(parser)
    _mode.add_option(parser)
    parser.add_argument(
        "--timings",
        type=Path,
        help="write how long each case took and its max abs error here (kept out of the results)",
    )
    args = parser.parse_args(argv)
    header = _mode.configure(args)
    _memo.configure(args)
    _compiled.configure(args)
    _lowered.configure(args)
    routes_asked = tuple(r for r in args.routes.split(",") if r)
    unknown = [r for r in routes_asked if r not in ("native", *ROUTES)]
    if unknown:
        raise UsageError(f"--routes: unknown route {unknown[0]!r} (native, {', '.join(ROUTES)})")
    if args.cache is None:
        sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
        from fetch_ops import default_cache

        args.cache = default_cache()
    for option, path in (("--out", args.out), ("--timings", args.timings)):
        problem = None if path is None else unwritable(path)
        if problem is not None:
            raise UsageError(f"{option} {path}: {problem}")
    libraries = args.cache / "libraries"
    chosen = [
        c
        for c in cases()
        if args.only in f"{c.library.name} {c.name}" and _mode.wanted(c.hardware, args.mode)
    ]
    missing = sorted({c.library.label for c in chosen if not tree(c, libraries).base.is_dir()})
    if missing:
        raise UsageError(
            f"{libraries}: {', '.join(missing)} not unpacked (run scripts/fetch_libraries.py first)"
        )
    target = jax.__version__
    plan = []
    for case in chosen:
        written_for = Version(case.library.written_for)
        if written_for > Version(target):
            continue
        routes = routes_asked or (
            ("native",) if written_for == Version(target) else ("native", *ROUTES)
        )
        plan += [(case, route) for route in routes]
    records = []
    progress = Progress(f"published libraries' kernels on JAX {target}", len(plan))
    with (
        tempfile.TemporaryDirectory(prefix="corpus-") as work,
        compiled_once(Path(work)),
    ):
        for case, route in plan:
            record = one(case, route, target, libraries, Path(work), args.mode)
            records.append(record)
            line = f"{case.library.label:>22} {route:7} {record['status']:11} {case.name}"
            progress.record(record["status"], line)
    seconds, measured = side_file(records, "library", "version", "kernel", "route")
    text = json.dumps(
        {"schema": SCHEMA, "jax": target, **header, "results": records}, indent=1, sort_keys=True
    )
    if args.out is None:
        sys.stdout.write(text + "\n")
    elif not write_or_keep(args.out, text + "\n", PROG):
        return 1
    if args.timings is not None and not write_side_file(
        args.timings,
        PROG,
        seconds,
        measured,
        compiles=_compiled.counts,
        lowerings=_lowered.counts,
    ):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
