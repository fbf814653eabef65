"""``python -m kernels.corpus [--ops DIR] [--out FILE]``: JAX's shipped kernels on this JAX.

For every release X extracted under ``DIR`` (``scripts/fetch_ops.py``), every case of
``kernels/corpus/_cases.py`` whose file X shipped runs on the installed release Y: natively
when X is Y (the validation: the report drops a case that is wrong on its own release),
through ``patch``, ``shim`` and ``migrate`` when X is older, and through the shim's imports
when X is newer (new kernels on old JAX, where the features exist). One JSON record per
X x case x route, with the verdict against float64 at the case's tolerance and, for an error, its first line and
whose it is (the shim's, JAX's, or the old code's). ``--mode gpu`` compiles and runs the GPU cases on this machine's GPU instead (the precision
and the device recorded). Exit status 0 unless the input is bad (2).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from packaging.version import InvalidVersion, Version

from common import Parser, UsageError, run_cli, unwritable, write_or_keep, write_side_file
from kernels import _compiled, _lowered
from kernels._progress import Progress
from kernels.corpus import SCHEMA, _memo, _mode
from kernels.corpus._bytecode import compiled_once
from kernels.corpus._cases import CorpusCase, cases
from kernels.corpus._package import Tree
from kernels.corpus._run import ROUTES, attempt, load, side_file, timed
from kernels.corpus._user_code import copies_are_user_code


def one(
    case: CorpusCase,
    release: str,
    route: str,
    target: str,
    ops: Path,
    work: Path,
    mode: str = "interpret",
) -> dict[str, Any]:
    tag = f"corpus_{release.replace('.', '_')}_{Path(case.file).stem}_{route}"
    tree = Tree(ops / release, written_for=release)
    verdict = timed(
        lambda: attempt(
            case, route, lambda: load(tree, case.file, route, target, work, tag), tag, work, mode
        )
    )
    return {"from": release, "kernel": case.name, "route": route, **verdict}


PROG = "python -m kernels.corpus"


def main(argv: Sequence[str] | None = None) -> int:
    return run_cli(PROG, _main, argv)


def _main(argv: Sequence[str]) -> int:
    import tempfile

    import jax

    parser = Parser(prog=PROG, description=__doc__.splitlines()[0])
    parser.add_argument("--ops", type=Path, help="the ops cache (default: scripts/fetch_ops.py's)")
    parser.add_argument("--out", type=Path, help="write the results here (default: stdout)")
    parser.add_argument(
        "--only", metavar="TEXT", default="", help="run only the cases whose name contains TEXT"
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
    if args.ops is None:
        sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
        from fetch_ops import default_cache

        args.ops = default_cache() / "ops"
    for option, path in (("--out", args.out), ("--timings", args.timings)):
        problem = None if path is None else unwritable(path)
        if problem is not None:
            raise UsageError(f"{option} {path}: {problem}")
    if not args.ops.is_dir():
        raise UsageError(f"{args.ops}: no such folder (run scripts/fetch_ops.py first)")
    target = jax.__version__
    try:
        releases = sorted((p.name for p in args.ops.iterdir() if p.is_dir()), key=Version)
    except InvalidVersion as exc:
        raise UsageError(f"{args.ops}: {exc}") from None
    plan = []
    for release in releases:
        if Version(release) == Version(target):
            routes: tuple[str, ...] = ("native",)
        elif Version(release) < Version(target):
            routes = ROUTES
        else:  # the other direction: newer kernels on this older JAX, through the shim
            routes = ("shim",)
        chosen = [
            c
            for c in cases()
            if args.only in c.name
            and (args.ops / release / c.file).is_file()
            and _mode.wanted(c.hardware, args.mode)
        ]
        plan += [(release, case, route) for case in chosen for route in routes]
    records = []
    progress = Progress(f"JAX's own kernels on JAX {target}", len(plan))
    with (
        tempfile.TemporaryDirectory(prefix="corpus-") as work,
        copies_are_user_code(Path(work)),
        compiled_once(Path(work)),
    ):
        for release, case, route in plan:
            record = one(case, release, route, target, args.ops, Path(work), args.mode)
            records.append(record)
            progress.record(
                record["status"], f"{release:>9} {route:7} {record['status']:11} {case.name}"
            )
    seconds, measured = side_file(records, "from", "kernel", "route")
    text = (
        json.dumps(
            {"schema": SCHEMA, "jax": target, **header, "results": records},
            indent=1,
            sort_keys=True,
        )
        + "\n"
    )
    if args.out is None:
        sys.stdout.write(text)
    elif not write_or_keep(args.out, text, PROG):
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
