"""``python -m kernels.corpus [--ops DIR] [--out FILE]``: JAX's shipped kernels on this JAX.

For every release X extracted under ``DIR`` (``scripts/fetch_ops.py``), every case of
``kernels/corpus/_cases.py`` whose file X shipped runs on the installed release Y: natively
when X is Y (the validation: the report drops a case that is wrong on its own release),
through ``patch``, ``shim`` and ``migrate`` when X is older, and through the shim's imports
when X is newer (new kernels on old JAX, where the features exist). One JSON record per
X x case x route, with the max error against float64 and, for an error, its first line and
whose it is (the shim's, JAX's, or the old code's). Exit status 0 unless the input is bad (2).
"""

from __future__ import annotations

import importlib
import json
import re
import sys
import traceback
import warnings
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
from packaging.version import InvalidVersion, Version

from common import (
    CorpusStatus,
    Parser,
    UsageError,
    normalize,
    reset_simulator,
    run_cli,
    unwritable,
    write_or_keep,
)
from kernels._error_bound import error_bound
from kernels.corpus import SCHEMA
from kernels.corpus._cases import CorpusCase, cases
from kernels.corpus._package import build, forget, prng_registry

ROUTES = ("patch", "shim", "migrate")
ADDRESS = re.compile(r" at 0x[0-9a-f]+")


class Dependency(Exception):
    """The kernel file needs a JAX API outside Pallas that this release lacks (a private loop
    helper that is gone; ``@jax.jit(static_argnames=...)`` on a release before that form)."""


PALLAS_CODE = ("/pallas_compat/", "/jax/experimental/pallas/", "/jax/_src/pallas/")
NON_PALLAS_ATTRIBUTE = re.compile(
    r"module 'jax(\.(?!experimental\.pallas)[\w.]+)?' has no attribute"
    r"|type object '(ShapeDtypeStruct|Array|Device|Sharding)' has no attribute"
)


def outside_pallas(exc: BaseException) -> bool:
    """Did it fail in JAX outside Pallas (or in the kernel file calling such JAX)?"""
    if isinstance(exc, AttributeError) and NON_PALLAS_ATTRIBUTE.search(str(exc)):
        return True
    frames = traceback.extract_tb(exc.__traceback__)
    return not any(part in frame.filename for frame in frames for part in PALLAS_CODE)


def load(release_dir: Path, file: str, route: str, target: str, work: Path, tag: str) -> ModuleType:
    if str(work) not in sys.path:
        sys.path.insert(0, str(work))
    module_name = build(release_dir, file, route, target, work, tag)
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name and exc.name.startswith("jax.") and ".pallas" not in exc.name:
            raise Dependency(f"imports {exc.name}, which JAX {target} does not have") from None
        raise
    except Exception as exc:  # at import time, outside Pallas: the file's own JAX needs
        if outside_pallas(exc):
            raise Dependency(f"on import: {first_line(exc, work)}") from None
        raise


def whose(exc: BaseException, ops: Path) -> str:
    """The innermost frame of the traceback tells: the shim, JAX, or the old kernel file."""
    frames = traceback.extract_tb(exc.__traceback__)
    for frame in reversed(frames):
        name = frame.filename
        if "/pallas_compat/" in name:
            return "shim"
        if "/jax/" in name or "/jaxlib/" in name:
            return "JAX"
        if name.startswith(str(ops)) or "/corpus-" in name:
            return "old code"
    return "JAX"


def first_line(exc: BaseException, ops: Path) -> str:
    """The error's first line; for an error raised inside a callback (the TPU simulator's),
    the last line of the traceback it carries, which names the real error."""
    lines = [line for line in str(exc).strip().splitlines() if line.strip()] or [""]
    text = lines[-1].strip() if "Traceback (most recent call last)" in lines[0] else lines[0]
    text = normalize(ADDRESS.sub("", text.replace(str(ops), "<ops>")))  # no install paths
    return f"{type(exc).__name__}: {text}"[:300]


def run_case(case: CorpusCase, module: ModuleType) -> dict[str, Any]:
    out = np.asarray(case.run(module), dtype=np.float64)
    expected = case.reference()
    if out.shape != expected.shape:
        return {
            "status": CorpusStatus.WRONG,
            "detail": f"shape {out.shape}, expected {expected.shape}",
        }
    err = float(np.max(np.abs(out - expected)))
    return {
        "status": CorpusStatus.WORKS if err <= case.atol else CorpusStatus.WRONG,
        "error_bound": error_bound(err),
    }


def one(
    case: CorpusCase, release: str, route: str, target: str, ops: Path, work: Path
) -> dict[str, Any]:
    import pallas_compat

    record: dict[str, Any] = {"from": release, "kernel": case.name, "route": route}
    if not (ops / release / case.file).is_file():
        return {}
    tag = f"corpus_{release.replace('.', '_')}_{Path(case.file).stem}_{route}"
    prngs = set(prng_registry())
    if route == "patch":
        pallas_compat.patch()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            module = load(ops / release, case.file, route, target, work, tag)
            record |= run_case(case, module)
    except Dependency as exc:
        record |= {
            "status": CorpusStatus.DEPENDENCY,
            "detail": f"the kernel's own JAX dependency: {exc}",
        }
    except Exception as exc:
        if NON_PALLAS_ATTRIBUTE.search(str(exc)):
            detail = f"the kernel's own JAX dependency: {first_line(exc, ops)}"
            return {**record, "status": CorpusStatus.DEPENDENCY, "detail": detail}
        record |= {
            "status": CorpusStatus.ERROR,
            "detail": first_line(exc, ops),
            "whose": whose(exc, work),
        }
        reset_simulator()
    finally:
        pallas_compat.unpatch()
        forget(tag, prngs)
    return record


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
    args = parser.parse_args(argv)
    if args.ops is None:
        sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
        from fetch_ops import default_cache

        args.ops = default_cache() / "ops"
    problem = None if args.out is None else unwritable(args.out)
    if problem is not None:
        raise UsageError(f"--out {args.out}: {problem}")
    if not args.ops.is_dir():
        raise UsageError(f"{args.ops}: no such folder (run scripts/fetch_ops.py first)")
    target = jax.__version__
    try:
        releases = sorted((p.name for p in args.ops.iterdir() if p.is_dir()), key=Version)
    except InvalidVersion as exc:
        raise UsageError(f"{args.ops}: {exc}") from None
    records = []
    with tempfile.TemporaryDirectory(prefix="corpus-") as work:
        for release in releases:
            if Version(release) == Version(target):
                routes: tuple[str, ...] = ("native",)
            elif Version(release) < Version(target):
                routes = ROUTES
            else:  # the other direction: newer kernels on this older JAX, through the shim
                routes = ("shim",)
            for case in (c for c in cases() if args.only in c.name):
                for route in routes:
                    record = one(case, release, route, target, args.ops, Path(work))
                    if record:
                        records.append(record)
                        print(
                            f"{release:>9} {route:7} {record['status']:11} {case.name}",
                            file=sys.stderr,
                        )
    text = (
        json.dumps({"schema": SCHEMA, "jax": target, "results": records}, indent=1, sort_keys=True)
        + "\n"
    )
    if args.out is None:
        sys.stdout.write(text)
        return 0
    if not write_or_keep(args.out, text, PROG):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
