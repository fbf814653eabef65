"""Run cases under modes and record one result per kernel x mode."""

from __future__ import annotations

import functools
import time
import traceback
from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np

import pallas_compat
from common import KernelStatus, one_line_error, quiet_callback_logs, reset_simulator
from kernels import _compile
from kernels._case import CASES, WRONG, Case, Kernel, WrongCase
from kernels._measured import MEASURED, stated
from kernels._modes import Mode, interpret_value

#: The TPU that tpu_lower targets (the chapter's §6 examples use v5e).
LOWER_CHIP = "v5e"
#: The matmul precision the gpu mode runs at: float32 products, as the tolerances assume.
GPU_PRECISION = "highest"


def flat(value: Any) -> list[np.ndarray]:
    if isinstance(value, tuple | list):
        return [a for v in value for a in flat(v)]
    return [np.asarray(value, dtype=np.float64)]


def compare(case: Kernel, out: Any, inputs: tuple[Any, ...]) -> tuple[bool, float]:
    """(within tolerance everywhere, max abs error) against the float64 reference."""
    got, want = flat(out), flat(case.reference(*inputs))
    if len(got) != len(want) or any(g.shape != w.shape for g, w in zip(got, want, strict=False)):
        return False, float("inf")
    tol = case.tolerance
    ok = all(
        np.allclose(g, w, rtol=tol.rtol, atol=tol.atol) for g, w in zip(got, want, strict=True)
    )
    errors = [np.max(np.abs(g - w)) if g.size else 0.0 for g, w in zip(got, want, strict=True)]
    worst = float(max(errors, default=0.0))
    return ok, (worst if np.isfinite(worst) else float("inf"))


#: Errors that are known limitations of a JAX release, not bugs of the kernel or the shim:
#: (pattern in JAX's message, the reason recorded with ``unavailable``).
KNOWN_LIMITATIONS = (
    (
        "Cannot lower jaxpr with verifier errors",
        "this JAX's interpreter emits invalid MLIR for a grid whose blocks do not divide the "
        "array (JAX 0.4.30's interpret mode; later releases run it)",
    ),
)


def limitation(exc: BaseException) -> str | None:
    text = str(exc)
    return next((reason for pattern, reason in KNOWN_LIMITATIONS if pattern in text), None)


def execute(case: Kernel, mode: Mode) -> dict[str, Any]:
    """Run one case in an executing mode: status and error against float64."""
    try:
        interpret = interpret_value(mode)
    except pallas_compat.PallasCompatError as exc:
        return {"status": KernelStatus.UNAVAILABLE, "detail": str(exc)}
    import jax

    inputs = case.inputs(case.rng())
    if mode is Mode.TPU_SIM:
        # A fresh simulator per case: on 0.6.2 state left by one kernel broke a later float64
        # one ("Incorrect output dtype") that passes on its own.
        reset_simulator()
    build = functools.partial(case.build, triton=True) if mode is Mode.GPU else case.build
    # Compiled on a GPU, a float32 dot is TF32 unless asked: the tolerances assume float32.
    precision = jax.default_matmul_precision(GPU_PRECISION if mode is Mode.GPU else None)
    try:
        with quiet_callback_logs(), precision:
            out = jax.block_until_ready(build(interpret)(*inputs))
    except pallas_compat.PallasCompatError as exc:  # the shim's documented "not on this JAX"
        return {"status": KernelStatus.UNAVAILABLE, "detail": str(exc)}
    except Exception as exc:
        if mode is Mode.TPU_SIM:
            reset_simulator()
        reason = limitation(exc)
        if reason is not None:
            return {
                "status": KernelStatus.UNAVAILABLE,
                "detail": f"{reason}: {one_line_error(exc)}",
            }
        return {"status": KernelStatus.ERROR, "detail": one_line_error(exc)}
    ok, err = compare(case, out, inputs)
    stated_at = {"precision": GPU_PRECISION} if mode is Mode.GPU else {}
    return {
        "status": KernelStatus.PASS if ok else KernelStatus.FAIL,
        "tolerance": stated(case.tolerance.rtol, case.tolerance.atol),
        **stated_at,
        MEASURED: err,
    }


def lower(case: Kernel, expected: bool | str) -> dict[str, Any]:
    """Cross-lower for TPU. Passes when the custom call is emitted, or when Mosaic refuses a
    block shape that the chapter's rule predicts it refuses; ``as_chapter_says`` compares the
    outcome with that prediction (a release that lowers what 0.12 refuses is drift, recorded)."""
    import jax

    inputs = case.inputs(case.rng())
    shapes = [jax.ShapeDtypeStruct(np.shape(x), x.dtype) for x in inputs]
    try:
        text = pallas_compat.lower(case.build(False), *shapes, platform="tpu", chip=LOWER_CHIP)
    except Exception as exc:
        refused = expected is not True
        return {
            "status": KernelStatus.PASS if refused else KernelStatus.FAIL,
            "detail": (f"refused as predicted ({expected}): " if refused else "")
            + one_line_error(exc),
            "as_chapter_says": refused,
        }
    calls = text.count("tpu_custom_call")
    detail = f"{calls} tpu_custom_call"
    if expected is not True:
        detail += f"; lowered although JAX 0.12 refuses it ({expected})"
    return {
        "status": KernelStatus.PASS if calls else KernelStatus.FAIL,
        "detail": detail,
        "as_chapter_says": expected is True,
    }


def tpu_compile(case: Case) -> dict[str, Any]:
    """Deviceless AOT compilation per chip; passes when every chip's verdict is the one the
    hardware table predicts (all fit, unless the case says otherwise)."""
    missing = _compile.libtpu_missing()
    if missing:
        return {"status": KernelStatus.UNAVAILABLE, "detail": missing}
    if case.lowers is not True:
        return {
            "status": KernelStatus.NOT_APPLICABLE,
            "detail": f"does not lower for TPU: {case.lowers}",
        }
    inputs = case.inputs(case.rng())
    chips = {}
    for chip in _compile.TOPOLOGIES:
        problem = _compile.compile_for(chip, case.build(False), inputs)
        chips[chip] = "fits" if problem is None else f"does not fit: {problem}"
    predicted = case.fits or {chip: True for chip in chips}
    agree = all((chips[c] == "fits") == predicted.get(c, True) for c in chips)
    return {"status": KernelStatus.PASS if agree else KernelStatus.FAIL, "chips": chips}


def gpu_lower(case: Case) -> dict[str, Any]:
    if not case.gpu:
        return {
            "status": KernelStatus.NOT_APPLICABLE,
            "detail": "a TPU-shaped kernel; gpu_lower runs the GPU variants",
        }
    inputs = case.inputs(case.rng())
    try:
        text = _compile.gpu_lower(case.build(False, triton=True), inputs)
    except Exception as exc:
        reason = limitation(exc)
        if reason is not None:
            return {
                "status": KernelStatus.UNAVAILABLE,
                "detail": f"{reason}: {one_line_error(exc)}",
            }
        return {"status": KernelStatus.FAIL, "detail": one_line_error(exc)}
    calls = [w for w in ("__gpu$xla.gpu.triton", "mosaic_gpu") if w in text]
    return {
        "status": KernelStatus.PASS if calls else KernelStatus.FAIL,
        "detail": ", ".join(calls) or "no GPU kernel",
    }


def run_case(case: Case, mode: Mode) -> dict[str, Any]:
    if mode.value in case.skip_modes:
        return {"status": KernelStatus.NOT_APPLICABLE, "detail": case.skip_modes[mode.value]}
    if mode is Mode.TPU_LOWER:
        return lower(case, case.lowers)
    if mode is Mode.TPU_COMPILE:
        return tpu_compile(case)
    if mode is Mode.GPU_LOWER:
        return gpu_lower(case)
    if mode is Mode.GPU and not case.gpu:
        return {
            "status": KernelStatus.NOT_APPLICABLE,
            "detail": "a TPU-shaped kernel; the gpu mode runs the GPU variants",
        }
    return execute(case, mode)


def run_wrong(case: WrongCase, mode: Mode) -> dict[str, Any]:
    """Does this mode catch the bug? caught = a wrong result or an error; missed = passes."""
    if mode in (Mode.TPU_COMPILE, Mode.GPU_LOWER, Mode.GPU):
        return {
            "status": KernelStatus.NOT_APPLICABLE,
            "detail": "the wrong kernels are checked by the default modes",
        }
    if mode is Mode.TPU_LOWER:
        result = lower(case, True)
        result.pop("as_chapter_says")
        caught = result["status"] != KernelStatus.PASS
    else:
        result = execute(case, mode)
        if result["status"] == KernelStatus.UNAVAILABLE:
            return {**result, "expected": case.chapter_says.get(mode.value)}
        caught = result["status"] in (KernelStatus.FAIL, KernelStatus.ERROR)
    observed = KernelStatus.CAUGHT if caught else KernelStatus.MISSED
    expected = case.chapter_says.get(mode.value)
    return {
        **result,
        "status": observed,
        "expected": expected,
        "as_chapter_says": expected in (None, observed),
    }


def run(
    modes: Iterable[Mode], only: Iterable[str] = (), include_wrong: bool = True
) -> Iterator[dict[str, Any]]:
    """One record per kernel x mode, in registration order."""
    wanted = set(only)
    cases: list[tuple[str, Kernel]] = [("kernel", c) for c in CASES.values()]
    if include_wrong:
        cases += [("wrong", c) for c in WRONG.values()]
    for kind, case in cases:
        if wanted and case.name not in wanted:
            continue
        for mode in modes:
            start = time.perf_counter()
            try:
                if isinstance(case, WrongCase):
                    result = run_wrong(case, mode)
                else:
                    result = run_case(case, mode)
            except Exception as exc:  # a bug in the harness itself: recorded, never fatal
                result = {
                    "status": KernelStatus.ERROR,
                    "detail": one_line_error(exc),
                    "trace": traceback.format_exc(limit=3),
                }
            yield {
                "kernel": case.name,
                "kind": kind,
                "section": case.section,
                "mode": mode.value,
                **result,
                "seconds": round(time.perf_counter() - start, 3),
            }
