"""The chapter's small kernels, written to run on every release the probes visit."""

from __future__ import annotations

from typing import Any

import numpy as np

from probes._pallas import block_spec, pl


def f64(a: Any) -> np.ndarray:
    return np.asarray(a, dtype=np.float64)


def max_err(a: Any, ref: Any) -> float:
    return float(np.max(np.abs(f64(a) - f64(ref))))


def close(a: Any, ref: Any, atol: float, rtol: float = 0.0) -> dict[str, Any]:
    """A verdict against float64 at the chapter's tolerance: stable across releases and XLA
    versions, where the raw error would change in its last digits and make diffs noisy."""
    return {
        "within": bool(np.allclose(f64(a), f64(ref), rtol=rtol, atol=atol)),
        "atol": atol,
        "rtol": rtol,
    }


def add_kernel(x_ref: Any, y_ref: Any, o_ref: Any) -> None:
    o_ref[...] = x_ref[...] + y_ref[...]


def copy_kernel(x_ref: Any, o_ref: Any) -> None:
    o_ref[...] = x_ref[...]


def double_kernel(x_ref: Any, o_ref: Any) -> None:
    o_ref[...] = x_ref[...] * 2


def sds(shape: tuple[int, ...], dtype: Any = None) -> Any:
    import jax
    import jax.numpy as jnp

    return jax.ShapeDtypeStruct(shape, dtype or jnp.float32)


def add8(interpret: Any) -> Any:
    """§0 probe 2: the 8-element add under one ``interpret=`` form; returns the output."""
    import jax.numpy as jnp

    x = jnp.arange(8, dtype=jnp.float32)
    y = jnp.full((8,), 10.0, jnp.float32)
    return pl().pallas_call(add_kernel, out_shape=sds((8,)), interpret=interpret)(x, y)


def add8_record(interpret: Any) -> dict[str, Any]:
    """Run ``add8`` and say whether it matched NumPy float64."""
    out = add8(interpret)
    expected = np.arange(8, dtype=np.float64) + 10.0
    return {
        "output": f64(out).tolist(),
        "matches_float64": bool(np.array_equal(f64(out), expected)),
    }


def matmul_inputs(m: int = 256, k: int = 384, n: int = 512) -> tuple[Any, Any]:
    import jax

    ka, kb = jax.random.split(jax.random.key(2))
    return jax.random.normal(ka, (m, k)), jax.random.normal(kb, (k, n))


def matmul_specs(bm: int, bk: int, bn: int) -> tuple[list[Any], Any]:
    """The (i, j, k) matmul BlockSpecs: A by (i, k), B by (k, j), the output by (i, j)."""
    in_specs = [
        block_spec((bm, bk), lambda i, j, k: (i, k)),
        block_spec((bk, bn), lambda i, j, k: (k, j)),
    ]
    return in_specs, block_spec((bm, bn), lambda i, j, k: (i, j))


def matmul_grid(
    kernel: Any, a: Any, b: Any, interpret: Any, bm: int = 64, bk: int = 128, bn: int = 128
) -> Any:
    """The chapter's (i, j, k) grid matmul around any kernel body."""
    import jax.numpy as jnp

    (m, k), (_, n) = a.shape, b.shape
    in_specs, out_spec = matmul_specs(bm, bk, bn)
    return pl().pallas_call(
        kernel,
        out_shape=sds((m, n), jnp.float32),
        grid=(m // bm, n // bn, k // bk),
        in_specs=in_specs,
        out_specs=out_spec,
        interpret=interpret,
    )(a, b)


def mm_bf16_scratch_kernel(a_ref: Any, b_ref: Any, o_ref: Any, acc_ref: Any) -> None:
    """§4.1 (scratch) and §6.2: accumulate in float32 scratch, write bf16 on the last K step."""
    import jax.numpy as jnp

    k = pl().program_id(2)

    @pl().when(k == 0)
    def _init() -> None:
        acc_ref[...] = jnp.zeros(acc_ref.shape, acc_ref.dtype)

    acc_ref[...] += jnp.dot(a_ref[...], b_ref[...], preferred_element_type=jnp.float32)

    @pl().when(k == pl().num_programs(2) - 1)
    def _store() -> None:
        o_ref[...] = acc_ref[...].astype(o_ref.dtype)


def matmul_bf16_scratch(
    m: int, k: int, n: int, block: tuple[int, int, int], interpret: Any = False, **params: Any
) -> Any:
    """The bf16 matmul with a ``pltpu.VMEM`` float32 scratch, as a callable (not yet called)."""
    import jax.numpy as jnp

    from probes._pallas import feature

    bm, bk, bn = block
    in_specs, out_spec = matmul_specs(bm, bk, bn)
    return pl().pallas_call(
        mm_bf16_scratch_kernel,
        out_shape=sds((m, n), jnp.bfloat16),
        grid=(m // bm, n // bn, k // bk),
        in_specs=in_specs,
        out_specs=out_spec,
        scratch_shapes=[feature("vmem")((bm, bn), jnp.float32)],
        interpret=interpret,
        **params,
    )


def mm_kernel_noinit(a_ref: Any, b_ref: Any, o_ref: Any) -> None:
    import jax.numpy as jnp

    o_ref[...] += jnp.dot(a_ref[...], b_ref[...], preferred_element_type=jnp.float32)


def mm_kernel_when(a_ref: Any, b_ref: Any, o_ref: Any) -> None:
    import jax.numpy as jnp

    @pl().when(pl().program_id(2) == 0)
    def _init() -> None:
        o_ref[...] = jnp.zeros(o_ref.shape, o_ref.dtype)

    o_ref[...] += jnp.dot(a_ref[...], b_ref[...], preferred_element_type=jnp.float32)


def rowsum(
    x: Any,
    interpret: Any,
    reduce_last: bool = True,
    compiler_params: Any = None,
    br: int = 32,
    bc: int = 128,
) -> Any:
    """§4.4 row sums over a 2-D grid; ``reduce_last=False`` is the wrong grid order."""
    import jax.numpy as jnp
    from jax import lax

    rows, cols = x.shape
    red_axis = 1 if reduce_last else 0

    def kernel(x_ref: Any, o_ref: Any) -> None:
        j = pl().program_id(red_axis)

        @pl().when(j == 0)
        def _init() -> None:
            o_ref[...] = jnp.zeros(o_ref.shape, o_ref.dtype)

        col = j * bc + lax.broadcasted_iota(jnp.int32, x_ref.shape, 1)
        o_ref[...] += jnp.sum(jnp.where(col < cols, x_ref[...], 0.0), axis=1)

    if reduce_last:
        grid = (pl().cdiv(rows, br), pl().cdiv(cols, bc))
        xmap, omap = (lambda i, j: (i, j)), (lambda i, j: (i,))
    else:
        grid = (pl().cdiv(cols, bc), pl().cdiv(rows, br))
        xmap, omap = (lambda j, i: (i, j)), (lambda j, i: (i,))
    extra = {} if compiler_params is None else {"compiler_params": compiler_params}
    return pl().pallas_call(
        kernel,
        out_shape=sds((rows,), jnp.float32),
        grid=grid,
        in_specs=[block_spec((br, bc), xmap)],
        out_specs=block_spec((br,), omap),
        interpret=interpret,
        **extra,
    )(x)


def softmax_kernel(x_ref: Any, o_ref: Any) -> None:
    import jax.numpy as jnp

    x = x_ref[...].astype(jnp.promote_types(x_ref.dtype, jnp.float32))
    e = jnp.exp(x - jnp.max(x, axis=-1, keepdims=True))
    o_ref[...] = (e / jnp.sum(e, axis=-1, keepdims=True)).astype(o_ref.dtype)


def row_call(kernel: Any, *xs: Any, br: int = 8, interpret: Any = True) -> Any:
    """§4.2: br full-width rows per program; every input and the output share the first's shape."""
    rows, cols = xs[0].shape
    spec = block_spec((br, cols), lambda i: (i, 0))
    return pl().pallas_call(
        kernel,
        out_shape=sds(xs[0].shape, xs[0].dtype),
        grid=(pl().cdiv(rows, br),),
        in_specs=[spec] * len(xs),
        out_specs=spec,
        interpret=interpret,
    )(*xs)


def softmax_ref64(x: Any) -> np.ndarray:
    x = f64(x)
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)
