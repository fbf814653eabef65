"""Behaviours of the generic interpreter (``interpret=True``) that the chapter asserts, §0 to §4."""

from __future__ import annotations

import os
import re
import tempfile
from typing import Any

import numpy as np

from kernels.basics import add_kernel, double_kernel
from kernels.interpret_mode import copy_kernel
from kernels.wrong import mm_kernel_noinit
from pallas_compat.facts import TPU_BACKEND
from probes._kernels import (
    add8,
    add8_record,
    close,
    f64,
    matmul_bf16_scratch,
    matmul_grid,
    matmul_inputs,
    rowsum,
    sds,
)
from probes._observe import first_line, observe, py_repr
from probes._pallas import block_spec, feature, pl, tpu_compiler_params
from probes._registry import probe


@probe("behaviours.interpret_true")
def interpret_true() -> dict[str, Any]:
    return observe(lambda: add8(True), lambda _: add8_record(True))


@probe("behaviours.cpu_without_interpret")
def cpu_without_interpret() -> dict[str, Any]:
    import jax

    return {"backend": jax.default_backend(), **observe(lambda: np.asarray(add8(False)), f64_list)}


def f64_list(value: Any) -> list[float]:
    return f64(value).tolist()


@probe("behaviours.old_load_store_kernel")
def old_load_store_kernel() -> dict[str, Any]:
    """§0: a kernel written with pl.load / pl.store, as older tutorials do."""
    import jax.numpy as jnp

    def add_kernel_old(x_ref: Any, y_ref: Any, o_ref: Any) -> None:
        pl().store(o_ref, ..., pl().load(x_ref, ...) + pl().load(y_ref, ...))

    x, y = jnp.arange(8, dtype=jnp.float32), jnp.full((8,), 10.0, jnp.float32)
    return observe(
        lambda: pl().pallas_call(add_kernel_old, out_shape=sds((8,)), interpret=True)(x, y),
        f64_list,
    )


@probe("behaviours.ds_halves")
def ds_halves() -> dict[str, Any]:
    import jax.numpy as jnp

    def kernel(x_ref: Any, y_ref: Any, o_ref: Any) -> None:
        o_ref[pl().ds(0, 4)] = x_ref[pl().ds(0, 4)] + y_ref[pl().ds(0, 4)]
        o_ref[4:] = x_ref[4:] + y_ref[4:]

    x, y = jnp.arange(8, dtype=jnp.float32), jnp.full((8,), 10.0, jnp.float32)
    return observe(
        lambda: pl().pallas_call(kernel, out_shape=sds((8,)), interpret=True)(x, y), f64_list
    )


@probe("behaviours.jaxpr_structure")
def jaxpr_structure() -> dict[str, Any]:
    """§1: pallas_call is one primitive whose kernel jaxpr takes Refs; no custom-call when interpreted."""
    import jax
    import jax.numpy as jnp

    x, y = jnp.arange(8, dtype=jnp.float32), jnp.full((8,), 10.0, jnp.float32)
    call = pl().pallas_call(add_kernel, out_shape=sds((8,)), interpret=True)
    closed = jax.make_jaxpr(call)(x, y)
    eqn = closed.jaxpr.eqns[0]
    inner = eqn.params.get("jaxpr")
    inner = getattr(inner, "jaxpr", inner)  # a ClosedJaxpr on some releases
    hlo = jax.jit(call).lower(x, y).compile().as_text()
    return {
        "outer_primitives": [str(e.primitive) for e in closed.jaxpr.eqns],
        "kernel_invar_avals": [re.sub(r"\s+", " ", str(v.aval)) for v in inner.invars]
        if inner
        else None,
        "params": sorted(eqn.params),
        "interpret_hlo_custom_calls": hlo.count("custom-call"),
        "interpret_hlo_has_while": "while" in hlo,
    }


@probe("behaviours.kernel_returns_value")
def kernel_returns_value() -> dict[str, Any]:
    import jax.numpy as jnp

    def bad(x_ref: Any, o_ref: Any) -> Any:
        return x_ref[...] * 2

    a = jnp.ones((4, 6), jnp.float32)
    return observe(
        lambda: pl().pallas_call(bad, out_shape=sds((4, 6)), interpret=True)(a), f64_list
    )


@probe("behaviours.kernel_captures_constant")
def kernel_captures_constant() -> dict[str, Any]:
    import jax.numpy as jnp

    w = jnp.arange(6, dtype=jnp.float32)

    def bad(x_ref: Any, o_ref: Any) -> None:
        o_ref[...] = x_ref[...] + w

    a = jnp.ones((4, 6), jnp.float32)
    captured = observe(
        lambda: pl().pallas_call(bad, out_shape=sds((4, 6)), interpret=True)(a), f64_list
    )
    scale = 0.5

    def scalar_ok(x_ref: Any, w_ref: Any, o_ref: Any) -> None:
        o_ref[...] = x_ref[...] * scale + w_ref[...]

    passed = pl().pallas_call(scalar_ok, out_shape=sds((4, 6)), interpret=True)(a, w)
    return {
        "array_constant": captured,
        "python_scalar_and_weight_input_correct": bool(np.allclose(f64(passed), 0.5 + f64(w))),
    }


@probe("behaviours.index_map_element_offsets")
def index_map_element_offsets() -> dict[str, Any]:
    """§2.2: an index_map that returns element offsets is silently wrong."""
    import jax.numpy as jnp

    xs = jnp.arange(64, dtype=jnp.float32)

    def run(in_map: Any) -> Any:
        return pl().pallas_call(
            double_kernel,
            out_shape=sds((64,)),
            grid=(4,),
            in_specs=[block_spec((16,), in_map)],
            out_specs=block_spec((16,), lambda i: (i,)),
            interpret=True,
        )(xs)

    bad, good = run(lambda i: (i * 16,)), run(lambda i: (i,))
    wrong = ~np.isclose(f64(bad), 2 * f64(xs))
    return {
        "wrong_elements": int(wrong.sum()),
        "of": 64,
        "outputs_16_to_19": f64(bad)[16:20].tolist(),
        "block_indices_correct": bool(np.array_equal(f64(good), 2 * f64(xs))),
    }


@probe("behaviours.padding_read_past_end")
def padding_read_past_end() -> dict[str, Any]:
    """§3.2: what a block reads past the end of the array, and that elementwise kernels don't care."""
    import jax.numpy as jnp

    x = jnp.arange(1, 101, dtype=jnp.float32)
    blocks = pl().cdiv(100, 32)

    def peek() -> Any:
        return pl().pallas_call(
            copy_kernel,
            out_shape=sds((4, 32)),
            grid=(blocks,),
            in_specs=[block_spec((32,), lambda i: (i,))],
            out_specs=block_spec((None, 32), lambda i: (i, 0)),
            interpret=True,
        )(x)

    def describe_tail(out: Any) -> dict[str, Any]:
        tail = f64(out)[3]
        pad = tail[4:]
        return {
            "valid_tail": tail[:4].tolist(),
            "padding": "nan" if np.isnan(pad).all() else sorted({py_repr(float(v)) for v in pad}),
        }

    def double() -> Any:
        return pl().pallas_call(
            double_kernel,
            out_shape=sds((100,)),
            grid=(blocks,),
            in_specs=[block_spec((32,), lambda i: (i,))],
            out_specs=block_spec((32,), lambda i: (i,)),
            interpret=True,
        )(x)

    return {
        "last_block_read": observe(peek, describe_tail),
        "elementwise_on_ragged_length": observe(
            double, lambda out: bool(np.array_equal(f64(out), 2 * f64(x)))
        ),
    }


@probe("behaviours.python_if_on_program_id")
def python_if_on_program_id() -> dict[str, Any]:
    import jax.numpy as jnp

    def kernel(a_ref: Any, b_ref: Any, o_ref: Any) -> None:
        if pl().program_id(2) == 0:
            o_ref[...] = jnp.zeros(o_ref.shape, o_ref.dtype)
        o_ref[...] += jnp.dot(a_ref[...], b_ref[...], preferred_element_type=jnp.float32)

    a, b = matmul_inputs()
    record = observe(lambda: matmul_grid(kernel, a, b, True))
    if "error" in record:
        record["error"]["first_line"] = first_line(record["error"]["message"])
    return record


@probe("behaviours.accumulator_without_init_interpret")
def accumulator_without_init_interpret() -> dict[str, Any]:
    """§4.1: no init at k == 0 under interpret=True: uninitialized output memory is NaN."""
    a, b = matmul_inputs()
    out = matmul_grid(mm_kernel_noinit, a, b, True)
    return {"nan_fraction": float(np.isnan(f64(out)).mean())}


@probe("behaviours.blockspec_argument_order")
def blockspec_argument_order() -> dict[str, Any]:
    """Which positional order BlockSpec takes, by running both on the same copy kernel."""
    import jax.numpy as jnp

    x = jnp.arange(64, dtype=jnp.float32)

    def run(spec_args: tuple[Any, Any]) -> Any:
        spec = pl().BlockSpec(*spec_args)
        return pl().pallas_call(
            copy_kernel,
            out_shape=sds((64,)),
            grid=(4,),
            in_specs=[spec],
            out_specs=spec,
            interpret=True,
        )(x)

    def correct(out: Any) -> bool:
        return bool(np.array_equal(f64(out), f64(x)))

    index_map = lambda i: (i,)  # noqa: E731
    return {
        "block_shape_first": observe(lambda: run(((16,), index_map)), correct),
        "index_map_first": observe(lambda: run((index_map, (16,))), correct),
    }


@probe("behaviours.dimension_semantics_in_interpret")
def dimension_semantics_in_interpret() -> dict[str, Any]:
    import jax

    x = jax.random.normal(jax.random.key(8), (96, 300))
    cp = tpu_compiler_params(dimension_semantics=("parallel", "arbitrary"))
    return {
        "compiler_params": type(cp).__name__,
        **observe(
            lambda: rowsum(x, True, compiler_params=cp),
            lambda out: close(out, f64(x).sum(1), 1e-4, 1e-5),
        ),
    }


@probe("behaviours.dict_compiler_params")
def dict_compiler_params() -> dict[str, Any]:
    """The old dict form ``{"mosaic": {...}}``: accepted, or how it is refused."""
    import jax

    x = jax.random.normal(jax.random.key(8), (96, 300))
    cp = {TPU_BACKEND.key: {"dimension_semantics": ("parallel", "arbitrary")}}
    return observe(
        lambda: rowsum(x, True, compiler_params=cp),
        lambda out: close(out, f64(x).sum(1), 1e-4, 1e-5),
    )


@probe("behaviours.vmem_scratch_in_interpret")
def vmem_scratch_in_interpret() -> dict[str, Any]:
    """§4.1 (scratch): bf16 matmul accumulating in a float32 pltpu.VMEM scratch, under interpret=True."""
    import jax.numpy as jnp

    a, b = matmul_inputs()
    a16, b16 = a.astype(jnp.bfloat16), b.astype(jnp.bfloat16)

    def run() -> Any:
        return matmul_bf16_scratch(256, 384, 512, (64, 128, 128), interpret=True)(a16, b16)

    def describe(out: Any) -> dict[str, Any]:
        ref = f64(a16) @ f64(b16)
        rel = float(np.max(np.abs(f64(out) - ref) / (np.abs(ref) + 1.0)))
        return {"dtype": str(out.dtype), "max_rel_err_below_2^-7": rel < 2**-7}

    return observe(run, describe)


@probe("behaviours.cost_estimate_and_aliases")
def cost_estimate_and_aliases() -> dict[str, Any]:
    import jax.numpy as jnp

    cost = feature("cost_estimate")

    def kernel(x_ref: Any, y_ref: Any, o_ref: Any) -> None:
        o_ref[...] = 2.0 * x_ref[...] + y_ref[...]

    x, y = jnp.arange(16, dtype=jnp.float32), jnp.ones(16, jnp.float32)

    def run() -> Any:
        return pl().pallas_call(
            kernel,
            out_shape=sds((16,)),
            input_output_aliases={1: 0},
            cost_estimate=cost(flops=32, transcendentals=0, bytes_accessed=192),
            interpret=True,
        )(x, y)

    return observe(run, lambda out: {"correct": bool(np.array_equal(f64(out), 2 * f64(x) + 1))})


@probe("behaviours.debug_print")
def debug_print() -> dict[str, Any]:
    """§3 extra: pl.debug_print in interpret mode, one line per program (captured at the fd)."""
    import jax
    import jax.numpy as jnp

    def kernel(x_ref: Any, o_ref: Any) -> None:
        pl().debug_print("pid={}", pl().program_id(0))
        o_ref[...] = x_ref[...]

    x = jnp.arange(24, dtype=jnp.float32)
    with tempfile.TemporaryFile() as sink:
        saved = os.dup(1)
        os.dup2(sink.fileno(), 1)
        try:
            record = observe(
                lambda: jax.block_until_ready(
                    pl().pallas_call(
                        kernel,
                        out_shape=sds((24,)),
                        grid=(3,),
                        in_specs=[block_spec((8,), lambda i: (i,))],
                        out_specs=block_spec((8,), lambda i: (i,)),
                        interpret=True,
                    )(x)
                )
            )
        finally:
            os.dup2(saved, 1)
            os.close(saved)
        sink.seek(0)
        lines = sink.read().decode(errors="replace").splitlines()
    record["lines"] = sorted(line.strip() for line in lines if line.strip())
    return record
