"""``python -m kernels [--modes ...] [--only NAME...] [--out results.json]``."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from common import (
    KernelStatus,
    Parser,
    UsageError,
    run_cli,
    unwritable,
    write_or_keep,
    write_side_file,
)
from kernels import _compiled, _lowered
from kernels._modes import DEFAULT_MODES, Mode

PROG = "python -m kernels"


def parse(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = Parser(prog=PROG, description=__doc__.splitlines()[0])
    parser.add_argument(
        "--modes",
        nargs="+",
        default=[m.value for m in DEFAULT_MODES],
        help=f"any of {', '.join(m.value for m in Mode)}, space- or comma-separated "
        f"(default: {','.join(m.value for m in DEFAULT_MODES)})",
    )
    parser.add_argument("--only", nargs="+", default=[], metavar="NAME", help="kernel names")
    parser.add_argument("--out", type=Path, help="write the results JSON here (atomically)")
    parser.add_argument(
        "--timings",
        type=Path,
        help="write how long each kernel took and its max abs error here (they move with the "
        "machine, so they are kept out of the results)",
    )
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress lines")
    _compiled.add_option(parser)
    _lowered.add_option(parser)
    return parser.parse_args(argv)


def split_modes(values: Sequence[str]) -> list[str]:
    """``--modes a b`` and ``--modes a,b`` (the form pytest and nox users type) alike."""
    names = [name.strip() for value in values for name in value.split(",") if name.strip()]
    if not names:
        raise UsageError(f"--modes {' '.join(values)!r} names no mode")
    return list(dict.fromkeys(names))


def main(argv: Sequence[str] | None = None) -> int:
    return run_cli(PROG, _main, argv)


def _main(argv: Sequence[str]) -> int:
    args = parse(argv)
    args.modes = split_modes(args.modes)
    modes = [Mode(m) for m in args.modes if m in {x.value for x in Mode}]
    unknown = sorted(set(args.modes) - {m.value for m in Mode})
    if unknown:
        raise UsageError(
            f"unknown mode(s) {', '.join(unknown)}; known: {', '.join(m.value for m in Mode)}"
        )
    from kernels import _registry

    names = _registry.names()
    missing = sorted(set(args.only) - names)
    if missing:
        raise UsageError(f"unknown kernel(s) {', '.join(missing)}; see --only in the README")
    for option, path in (("--out", args.out), ("--timings", args.timings)):
        problem = None if path is None else unwritable(path)
        if problem is not None:  # found now, not after minutes of kernels
            raise UsageError(f"{option} {path}: {problem}")
    from kernels._results import collect

    _compiled.configure(args)
    _lowered.configure(args)
    results = collect(modes, args.only, progress=None if args.quiet else sys.stderr)
    from kernels._measured import MEASURED

    key = "{0[kernel]} {0[mode]}".format
    seconds = {key(r): r.pop("seconds") for r in results["results"]}
    measured = {key(r): r.pop(MEASURED) for r in results["results"] if MEASURED in r}
    text = json.dumps(results, indent=1, sort_keys=True) + "\n"
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
    bad = [r for r in results["results"] if r["status"] in (KernelStatus.FAIL, KernelStatus.ERROR)]
    return 1 if bad else 0
