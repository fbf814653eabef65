"""One XLA compile for programs that are the same, in one process: the routes of a corpus
case (as shipped, patched, through the shim's imports, migrated) often trace one kernel to
one program, as do a chapter kernel's gradient checks and its modes, and compiling it is most
of the cost of running it under the interpreter.

The key is the whole program as text, every op and constant (only source locations, which
name each route's copy of the file, are left out), with the compile options and the devices:
a hit is the executable XLA would build again from the same input. A program that calls back
into Python (the TPU simulator's) is not shared here, since its callbacks belong to the
lowering that made it; where that lowering was shared (``kernels/_lowered.py``), JAX's own
cache, keyed by the lowered module, compiles it once. Entries live in memory only: JAX's
persistent cache, which serializes executables, stays off (on JAX 0.5.3 it gave wrong values
for the routes after the first).
"""

from __future__ import annotations

import argparse
import functools
import inspect
from collections.abc import Callable
from typing import Any

import numpy as np

#: How many compiles the process asked for, and how many of them were shared.
counts = {"asked": 0, "shared": 0}


def add_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--no-shared-compiles",
        action="store_true",
        help="compile every program the routes trace, even one compiled before in this run",
    )


def configure(args: argparse.Namespace) -> None:
    if not args.no_shared_compiles:
        share_compiles()


def share_compiles() -> None:
    """Wrap JAX's ``compile_or_get_cached``, which every jit compile of every release in the
    matrix goes through (``pxla`` calls it through the module)."""
    from jax._src import compiler

    if not getattr(compiler.compile_or_get_cached, "shares_programs", False):
        compiler.compile_or_get_cached = sharing(compiler.compile_or_get_cached)


def sharing(compile_or_get_cached: Callable[..., Any]) -> Callable[..., Any]:
    signature = inspect.signature(compile_or_get_cached)
    executables: dict[tuple[str, str, bytes, str], Any] = {}

    @functools.wraps(compile_or_get_cached)
    def shared(*args: Any, **kwargs: Any) -> Any:
        arguments = signature.bind(*args, **kwargs).arguments
        counts["asked"] += 1
        if arguments.get("host_callbacks") or arguments.get("pgle_profiler") is not None:
            return compile_or_get_cached(*args, **kwargs)
        key = program_key(arguments)
        if key in executables:
            counts["shared"] += 1
            return executables[key]
        executables[key] = executable = compile_or_get_cached(*args, **kwargs)
        return executable

    shared.shares_programs = True  # type: ignore[attr-defined]
    return shared


def program_key(arguments: dict[str, Any]) -> tuple[str, str, bytes, str]:
    """(platform, device ids, serialized compile options, the program without locations)."""
    program = arguments["computation"].operation.get_asm(
        enable_debug_info=False, large_elements_limit=None
    )
    devices = arguments.get("devices")
    ids = "" if devices is None else " ".join(str(d.id) for d in np.ravel(devices))
    options = arguments["compile_options"].SerializeAsString()
    return (arguments["backend"].platform, ids, bytes(options), program)
