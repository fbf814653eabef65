"""One case of a real-kernel corpus by one route: load the files as the route prepares them,
run the kernel, compare with float64, and say what went wrong and whose it is.

Shared by JAX's own ops (``python -m kernels.corpus``) and third-party libraries (``python -m
kernels.thirdparty``): the records have one shape, so the report reads both the same way.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import re
import sys
import time
import traceback
import warnings
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any, Protocol

import numpy as np

from common import CorpusStatus, LoweringStatus, normalize, quiet_callback_logs, reset_simulator
from kernels._measured import MEASURED, stated
from kernels.corpus._compiles import compiled_per_chip, lowering
from kernels.corpus._mode import compiled_on_gpu
from kernels.corpus._mosaic_gpu import NotInterpreted
from kernels.corpus._package import Tree, build, forget, prng_registry

ROUTES = ("patch", "shim", "migrate")
ADDRESS = re.compile(r" at 0x[0-9a-f]+")


class Check(Protocol):
    """What a case calls in the loaded module, and the float64 answer it must give."""

    @property
    def run(self) -> Callable[[ModuleType], Any]: ...

    @property
    def reference(self) -> Callable[[], np.ndarray]: ...

    @property
    def atol(self) -> float: ...

    @property
    def finish(self) -> Callable[[np.ndarray], np.ndarray]:
        """NumPy work on what ``run`` returned, outside ``jax.jit`` (``run`` is traced there
        for the lowering verdict)."""
        ...

    @property
    def hardware(self) -> str:
        """``GPU`` or ``TPU``: what the kernel was written for, and so is lowered for."""
        ...

    @property
    def precision(self) -> str:
        """The matmul precision the tolerance assumes (``jax.default_matmul_precision``)."""
        ...

    @property
    def device(self) -> str | None:
        """The device kind it is lowered for, where not its hardware's default (a Blackwell
        kernel's B200)."""
        ...

    def machine(self) -> contextlib.AbstractContextManager[Any]:
        """What the machine answers while the case loads, runs and lowers (a Mosaic GPU
        kernel's GPU, stood in on a machine without one: ``_mosaic_gpu.as_if_on_gpu``)."""
        ...


class Dependency(Exception):
    """The kernel file needs something outside Pallas that this environment lacks: a JAX API
    outside Pallas the release does not have (a private loop helper that is gone; ``@jax.jit(
    static_argnames=...)`` on a release before that form), or a package of its own."""

    def __init__(self, what: str, *, of_jax: bool = True) -> None:
        super().__init__(what)
        self.of_jax = of_jax

    @property
    def detail(self) -> str:
        return f"the kernel's own {'JAX ' if self.of_jax else ''}dependency: {self}"


PALLAS_CODE = ("/pallas_compat/", "/jax/experimental/pallas/", "/jax/_src/pallas/")
NON_PALLAS_ATTRIBUTE = re.compile(
    r"module 'jax(\.(?!experimental\.pallas)[\w.]+)?' has no attribute"
    r"|type object '(ShapeDtypeStruct|Array|Device|Sharding)' has no attribute"
)


#: ``Blocked.__init__() missing 1 required positional argument``: a call refused before any
#: frame of the callee runs, so only the message names it.
ARGUMENT_ERROR = re.compile(r"^(\w+)(?:\.__init__)?\(\) (?:missing|got|takes)")


@functools.cache
def pallas_names() -> frozenset[str]:
    """Every public name of a Pallas module in some scanned release."""
    from pallas_compat.facts import release_ranges

    keys = release_ranges()["names"]
    return frozenset(k.partition(":")[2] for k in keys if k.startswith("jax.experimental.pallas"))


#: Changes of JAX outside Pallas that old kernel code trips over while it runs (jax.numpy 0.8:
#: ``x.astype(y)`` with an array for a dtype): no Pallas tool's to fix, nor doctor's to find.
NON_PALLAS_CHANGE = re.compile(r"Passing an array as a dtype argument is no longer supported")


def outside_pallas(exc: BaseException) -> bool:
    """Did it fail in JAX outside Pallas (or in the kernel file calling such JAX)? A call a
    Pallas callable refused its arguments counts as Pallas's though no Pallas frame ran."""
    if isinstance(exc, AttributeError) and NON_PALLAS_ATTRIBUTE.search(str(exc)):
        return True
    refused = ARGUMENT_ERROR.match(str(exc)) if isinstance(exc, TypeError) else None
    if refused is not None and refused.group(1) in pallas_names():
        return False
    frames = traceback.extract_tb(exc.__traceback__)
    return not any(part in frame.filename for frame in frames for part in PALLAS_CODE)


def surface(module: str) -> bool:
    """The JAX modules outside Pallas that kernel files import and pallas-compat serves
    (``for_loop``, ``jax.util``, ...): a missing one is a failure of the surface, not the
    kernel's own dependency."""
    from pallas_compat.facts import OUTSIDE_MODULES

    return module in OUTSIDE_MODULES


#: ``from jax import util`` on a JAX without it: the module named, and the name it lacked.
CANNOT_IMPORT_NAME = re.compile(r"cannot import name '(\w+)' from '([\w.]+)'")


def surface_import(exc: BaseException) -> bool:
    """An import of a served module outside Pallas that this JAX lacks, by name from its
    parent (``from jax._src.lax.control_flow import for_loop``, ``from jax import util``)."""
    if not isinstance(exc, ImportError) or isinstance(exc, ModuleNotFoundError):
        return False
    found = CANNOT_IMPORT_NAME.search(str(exc))
    name = getattr(exc, "name_from", None) or (found.group(1) if found else None)
    module = exc.name or (found.group(2) if found else None)
    return bool(name and module) and (surface(f"{module}.{name}") or surface(str(module)))


def load(tree: Tree | Path, file: str, route: str, target: str, work: Path, tag: str) -> ModuleType:
    if str(work) not in sys.path:
        sys.path.insert(0, str(work))
    module_name = build(tree, file, route, target, work, tag)
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        missing = exc.name or ""
        if missing.startswith("jax.") and ".pallas" not in missing and not surface(missing):
            raise Dependency(f"imports {missing}, which JAX {target} does not have") from None
        top = missing.partition(".")[0]
        if top and top not in ("jax", "jaxlib", tag, "pallas_compat"):
            raise Dependency(
                f"imports {missing}, which is not installed here", of_jax=False
            ) from None
        raise
    except Exception as exc:  # at import time, outside Pallas: the file's own JAX needs
        if outside_pallas(exc) and not surface_import(exc):
            raise Dependency(f"on import: {first_line(exc, work)}") from None
        raise


def whose(exc: BaseException, work: Path) -> str:
    """The innermost frame of the traceback tells: the shim, JAX, or the old kernel file."""
    frames = traceback.extract_tb(exc.__traceback__)
    for frame in reversed(frames):
        name = frame.filename
        if "/pallas_compat/" in name:
            return "shim"
        if "/jax/" in name or "/jaxlib/" in name:
            return "JAX"
        if name.startswith(str(work)) or "/corpus-" in name:
            return "old code"
    return "JAX"


def first_line(exc: BaseException, work: Path) -> str:
    """The error's first line; for an error raised inside a callback (the TPU simulator's),
    the last line of the traceback it carries, which names the real error."""
    lines = [line for line in str(exc).strip().splitlines() if line.strip()] or [""]
    text = lines[-1].strip() if "Traceback (most recent call last)" in lines[0] else lines[0]
    text = normalize(ADDRESS.sub("", text.replace(str(work), "<ops>")))  # no install paths
    return f"{type(exc).__name__}: {text}"[:300]


def compare(check: Check, module: ModuleType, jitted: bool = False) -> dict[str, Any]:
    """The verdict against float64. ``jitted``: the call runs under ``jax.jit``, so that every
    ``pallas_call`` goes through its lowering rule (before 0.7 an eager call with
    ``interpret=True`` ran the interpreter without lowering)."""
    import jax

    run = jax.jit(lambda: check.run(module)) if jitted else lambda: check.run(module)
    out = np.asarray(check.finish(np.asarray(run())), dtype=np.float64)
    expected = check.reference()
    if out.shape != expected.shape:
        return {
            "status": CorpusStatus.WRONG,
            "detail": f"shape {out.shape}, expected {expected.shape}",
        }
    err = float(np.max(np.abs(out - expected)))
    return {
        "status": CorpusStatus.WORKS if err <= check.atol else CorpusStatus.WRONG,
        "tolerance": stated(0.0, check.atol),
        "precision": check.precision,
        MEASURED: err,
    }


def timed(run: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """A record with how long it took (``seconds``): the CLI moves that, and the measured
    error, to the timings file, out of the committed results."""
    start = time.perf_counter()
    record = run()
    return {**record, "seconds": round(time.perf_counter() - start, 3)}


def side_file(records: list[dict[str, Any]], *fields: str) -> tuple[dict, dict]:
    """Take the seconds and measured errors out of the records, keyed by ``fields``."""
    seconds, measured = {}, {}
    for record in records:
        key = " ".join(str(record[f]) for f in fields)
        seconds[key] = record.pop("seconds", None)
        if MEASURED in record:
            measured[key] = record.pop(MEASURED)
    return seconds, measured


def describe(exc: BaseException, work: Path) -> dict[str, str]:
    """An error's first line and whose it is."""
    return {"detail": first_line(exc, work), "whose": whose(exc, work)}


def attempt(
    check: Check,
    route: str,
    loader: Callable[[], ModuleType],
    tag: str,
    work: Path,
    mode: str = "interpret",
) -> dict[str, Any]:
    """The verdict of one case by one route: ``status`` and, where it did not work, why; and
    ``lowered``, the same call lowered for the kernel's hardware with ``interpret`` off
    (``kernels/corpus/_compiles.py``). The kernel's own dependencies get neither. In the
    ``gpu`` mode the call is compiled and run on the GPU instead, with no lowering verdict."""
    import pallas_compat

    prngs = set(prng_registry())
    if route == "patch":
        pallas_compat.patch()
    try:
        return verdicts(check, loader, work, mode)
    finally:
        pallas_compat.unpatch()
        forget(tag, prngs)


def verdicts(
    check: Check, loader: Callable[[], ModuleType], work: Path, mode: str
) -> dict[str, Any]:
    """``attempt``'s record, with the route's preparation (``patch()``) in force."""
    with check.machine():
        return _verdicts(check, loader, work, mode)


def _verdicts(
    check: Check, loader: Callable[[], ModuleType], work: Path, mode: str
) -> dict[str, Any]:
    module = None
    where = compiled_on_gpu(check.precision) if mode == "gpu" else contextlib.nullcontext()
    try:
        with warnings.catch_warnings(), quiet_callback_logs(), where:
            warnings.simplefilter("ignore")
            module = loader()
            verdict = compare(check, module, jitted=mode == "gpu")
    except NotInterpreted as exc:
        verdict = {"status": CorpusStatus.LOWERED_ONLY, "detail": str(exc)}
    except Dependency as exc:
        return {"status": CorpusStatus.DEPENDENCY, "detail": exc.detail}
    except Exception as exc:
        if NON_PALLAS_ATTRIBUTE.search(str(exc)):
            detail = f"the kernel's own JAX dependency: {first_line(exc, work)}"
            return {"status": CorpusStatus.DEPENDENCY, "detail": detail}
        reset_simulator()
        verdict = {"status": CorpusStatus.ERROR, **describe(exc, work)}
    if mode == "gpu":
        return verdict
    if module is None:  # it did not load: nor can it lower
        failed = {k: v for k, v in verdict.items() if k in ("detail", "whose")}
        lowered = {"for": check.hardware, "status": LoweringStatus.FAILS, **failed}
    else:
        lowered = lowering(
            check.run, module, check.hardware, lambda e: describe(e, work), check.device
        )
    if mode == "tpu_compile" and module is not None:
        chips = compiled_per_chip(check.run, module, lambda e: describe(e, work))
        return {**verdict, "lowered": lowered, "compiled": chips}
    return {**verdict, "lowered": lowered}
