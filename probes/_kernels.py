"""Drivers around the chapter's kernels, for the behaviour probes.

The kernel bodies are the ones of ``kernels/`` (one set, written against the shim, whose
``pl.program_id`` and friends are JAX's own objects); probe modules import them from there.
The drivers call them through the installed JAX's own ``pallas_call``, with inputs and shapes
of their own, so that what the probes record is what JAX does, not what the shim adapts."""

from __future__ import annotations

from typing import Any

import numpy as np

from kernels.advanced import matmul_bf16_kernel, rowsum_kernel
from kernels.basics import add_kernel
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


def matmul_bf16_scratch(
    m: int, k: int, n: int, block: tuple[int, int, int], interpret: Any = False, **params: Any
) -> Any:
    """The bf16 matmul with a ``pltpu.VMEM`` float32 scratch, as a callable (not yet called)."""
    import jax.numpy as jnp

    from probes._pallas import feature

    bm, bk, bn = block
    in_specs, out_spec = matmul_specs(bm, bk, bn)
    return pl().pallas_call(
        matmul_bf16_kernel,
        out_shape=sds((m, n), jnp.bfloat16),
        grid=(m // bm, n // bn, k // bk),
        in_specs=in_specs,
        out_specs=out_spec,
        scratch_shapes=[feature("vmem")((bm, bn), jnp.float32)],
        interpret=interpret,
        **params,
    )


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

    rows, cols = x.shape
    kernel = rowsum_kernel(cols, bc, 1 if reduce_last else 0)

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
