"""``python -m kernels [--modes ...] [--only NAME...] [--out results.json]``."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from kernels._modes import DEFAULT_MODES, Mode


class UsageError(Exception):
    pass


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(message)


def parse(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = Parser(prog="python -m kernels", description=__doc__.splitlines()[0])
    parser.add_argument(
        "--modes",
        nargs="+",
        default=[m.value for m in DEFAULT_MODES],
        help=f"any of {', '.join(m.value for m in Mode)} (default: all)",
    )
    parser.add_argument("--only", nargs="+", default=[], metavar="NAME", help="kernel names")
    parser.add_argument("--out", type=Path, help="write the results JSON here (atomically)")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress lines")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = parse(argv)
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
        if args.out and not args.out.parent.is_dir():
            raise UsageError(f"{args.out.parent}: no such directory")
    except UsageError as exc:
        print(f"python -m kernels: error: {exc}", file=sys.stderr)
        return 2
    from kernels._results import collect, write_atomic

    results = collect(modes, args.only, progress=None if args.quiet else sys.stderr)
    text = json.dumps(results, indent=1, sort_keys=True) + "\n"
    if args.out:
        write_atomic(args.out, text)
    else:
        sys.stdout.write(text)
    bad = [r for r in results["results"] if r["status"] in ("fail", "error")]
    return 1 if bad else 0
