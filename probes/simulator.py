"""Behaviours of the TPU simulator (``pltpu.InterpretParams``) and the Mosaic GPU interpreter."""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np

from common import CallOutcome, quiet_callback_logs, reset_simulator
from kernels.advanced import matmul_acc_kernel
from kernels.interpret_mode import copy_kernel
from kernels.wrong import mm_kernel_noinit
from probes._kernels import (
    add8,
    add8_record,
    close,
    f64,
    matmul_grid,
    matmul_inputs,
    max_err,
    rowsum,
    sds,
)
from probes._observe import observe
from probes._pallas import block_spec, feature, pl
from probes._registry import probe


def tpu_params(**fields: Any) -> Any:
    return feature("tpu_simulator")(**fields)


@probe("behaviours.interpret_tpu_params")
def interpret_tpu_params() -> dict[str, Any]:
    params = tpu_params()
    return observe(lambda: add8(params), lambda _: add8_record(params))


@probe("behaviours.interpret_gpu_params")
def interpret_gpu_params() -> dict[str, Any]:
    params = feature("gpu_simulator")()
    return observe(lambda: add8(params), lambda _: add8_record(params))


@probe("behaviours.grid_point_recorder")
def grid_point_recorder() -> dict[str, Any]:
    """§3.1: the simulator's visit order, and which callback arity it really calls."""
    import jax

    field_names = [f for f in inspect.signature(feature("tpu_simulator")).parameters]
    if "grid_point_recorder" not in field_names:
        return {"available": False}
    x = jax.random.normal(jax.random.key(3), (16, 384))
    spec = block_spec((8, 128), lambda i, j: (i, j))

    def run(recorder: Any) -> Any:
        out = pl().pallas_call(
            copy_kernel,
            out_shape=sds(x.shape),
            grid=(2, 3),
            in_specs=[spec],
            out_specs=spec,
            interpret=tpu_params(grid_point_recorder=recorder),
        )(x)
        return jax.block_until_ready(out)

    orders: dict[str, list[list[int]]] = {"three_args": [], "two_args": []}

    def three(token: Any, grid_point: Any, core_id: Any) -> Any:
        """(token, grid_point, core_id) -> token: what the 0.12 source calls."""
        orders["three_args"].append([int(c) for c in grid_point])
        return token

    def two(grid_point: Any, core_id: Any) -> None:
        """(grid_point, core_id): what the docstring describes."""
        orders["two_args"].append([int(c) for c in grid_point])

    record: dict[str, Any] = {"available": True}
    for name, recorder in (("three_args", three), ("two_args", two)):
        with quiet_callback_logs():
            record[name] = observe(
                lambda r=recorder: run(r), lambda out: bool(np.array_equal(f64(out), f64(x)))
            )
        reset_simulator()
        if record[name]["outcome"] == CallOutcome.RETURNED:
            record[name]["visit_order"] = orders[name]
    return record


@probe("behaviours.revisited_block_detection")
def revisited_block_detection() -> dict[str, Any]:
    """§4.4: the reduction axis first in the grid: right by luck under interpret=True, caught here."""
    import jax

    x = jax.random.normal(jax.random.key(8), (96, 300))
    ref = f64(x).sum(1)
    generic = close(rowsum(x, True, reduce_last=False), ref, 1e-3)
    params = tpu_params()
    with quiet_callback_logs():
        caught = observe(lambda: jax.block_until_ready(rowsum(x, params, reduce_last=False)))
    reset_simulator()
    if "error" in caught:
        lines = [
            line.strip() for line in caught["error"]["message"].splitlines() if "Revisited" in line
        ]
        caught["error"]["revisited_line"] = lines[0] if lines else None
    correct = observe(
        lambda: rowsum(x, tpu_params(), reduce_last=True), lambda out: close(out, ref, 1e-4, 1e-5)
    )
    return {
        "interpret_true_wrong_order": generic,
        "simulator_wrong_order": caught,
        "simulator_reduce_last": correct,
    }


@probe("behaviours.uninitialized_memory")
def uninitialized_memory() -> dict[str, Any]:
    """§4.1: an accumulator never zeroed, under both fill modes of the simulator."""
    import jax

    a, b = matmul_inputs(
        128, 256, 256
    )  # grid (2, 2, 2): the chapter's effect, a sixth of the steps
    ref = f64(a) @ f64(b)
    record: dict[str, Any] = {}
    for mode in ("nan", "zero"):
        params = tpu_params(uninitialized_memory=mode)
        record[f"no_init_{mode}"] = observe(
            lambda p=params: jax.block_until_ready(matmul_grid(mm_kernel_noinit, a, b, p)),
            lambda out: {
                "nan_fraction": float(np.isnan(f64(out)).mean()),
                "max_err_above_1": bool(max_err(out, ref) > 1.0),
            },
        )
        record[f"with_init_{mode}"] = observe(
            lambda p=params: matmul_grid(matmul_acc_kernel, a, b, p),
            lambda out: close(out, ref, 1e-4, 1e-4),
        )
    return record


@probe("behaviours.reset_after_raise")
def reset_after_raise() -> dict[str, Any]:
    """After the simulator raised, does reset_tpu_interpret_mode_state() make it usable again?"""
    import jax

    x = jax.random.normal(jax.random.key(8), (96, 300))
    with quiet_callback_logs():
        first = observe(lambda: jax.block_until_ready(rowsum(x, tpu_params(), reduce_last=False)))
    reset_fn = feature("tpu_simulator_reset")
    reset_fn()
    after = observe(
        lambda: jax.block_until_ready(rowsum(x, tpu_params(), reduce_last=True)),
        lambda out: close(out, f64(x).sum(1), 1e-4, 1e-5),
    )
    return {"first_raised": first["outcome"] == CallOutcome.RAISED, "after_reset": after}
