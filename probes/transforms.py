"""How pallas_call composes with jit, vmap, grad, linearize and jvp (chapter §5)."""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from common import CallOutcome
from kernels.advanced import matmul_acc_kernel, softmax_kernel
from kernels.basics import add_kernel
from probes._kernels import close, f64, matmul_grid, matmul_inputs, row_call, sds, softmax_ref64
from probes._observe import first_line, observe, py_repr
from probes._pallas import block_spec, enable_x64, pl
from probes._registry import probe


def add2d(x: Any, y: Any, bm: int = 64, bn: int = 128) -> Any:
    m, n = x.shape
    spec = block_spec((bm, bn), lambda i, j: (i, j))
    return pl().pallas_call(
        add_kernel,
        out_shape=sds(x.shape, x.dtype),
        grid=(m // bm, n // bn),
        in_specs=[spec, spec],
        out_specs=spec,
        interpret=True,
    )(x, y)


def matmul_acc(a: Any, b: Any, bm: int = 64, bk: int = 128, bn: int = 128) -> Any:
    return matmul_grid(matmul_acc_kernel, a, b, True, bm=bm, bk=bk, bn=bn)


def with_first_line(record: dict[str, Any]) -> dict[str, Any]:
    if "error" in record:
        record["error"]["first_line"] = first_line(record["error"]["message"])
    return record


@probe("behaviours.vmap_grid_and_block")
def vmap_grid_and_block() -> dict[str, Any]:
    """§5.2: vmap adds a leading grid dimension and a squeezed leading block dimension."""
    import jax

    xs = jax.random.normal(jax.random.key(10), (3, 256, 512))
    ys = jax.random.normal(jax.random.key(11), (3, 256, 512))
    batched = jax.vmap(add2d)
    correct = bool(np.allclose(f64(batched(xs, ys)), f64(xs) + f64(ys), rtol=1e-6))
    eqn = jax.make_jaxpr(batched)(xs, ys).jaxpr.eqns[0]
    mapping = eqn.params.get("grid_mapping")
    record: dict[str, Any] = {"primitive": str(eqn.primitive), "correct": correct}
    if mapping is not None:
        record["grid"] = list(mapping.grid)
        record["block_shape"] = py_repr(mapping.block_mappings[0].block_shape)
    return record


@probe("behaviours.vmap_in_axes_none")
def vmap_in_axes_none() -> dict[str, Any]:
    import jax

    a = jax.random.normal(jax.random.key(12), (3, 256, 384))
    _, b = matmul_inputs()
    out = jax.vmap(matmul_acc, in_axes=(0, None))(a, b)
    return close(out, np.einsum("bmk,kn->bmn", f64(a), f64(b)), 1e-4, 1e-4)


@probe("behaviours.jit_block_sizes")
def jit_block_sizes() -> dict[str, Any]:
    """§5.1: traced block sizes fail; static_argnames and functools.partial work."""
    import jax

    a, b = matmul_inputs()
    ref = f64(a) @ f64(b)
    traced = with_first_line(observe(lambda: jax.jit(matmul_acc)(a, b, 64, 128, 128)))
    static = observe(
        lambda: jax.jit(matmul_acc, static_argnames=("bm", "bk", "bn"))(
            a, b, bm=128, bk=128, bn=256
        ),
        lambda out: close(out, ref, 1e-4, 1e-4),
    )
    partial = observe(
        lambda: jax.jit(functools.partial(matmul_acc, bm=32, bk=64, bn=128))(a, b),
        lambda out: close(out, ref, 1e-4, 1e-4),
    )
    return {"traced": traced, "static_argnames": static, "functools_partial": partial}


def _softmax(x: Any) -> Any:
    return row_call(softmax_kernel, x)


@probe("behaviours.grad_direct")
def grad_direct() -> dict[str, Any]:
    """§5.3: reverse mode straight through pallas_call, and linearize, which fails first."""
    import jax
    import jax.numpy as jnp

    x = jax.random.normal(jax.random.key(13), (16, 128))
    grad = with_first_line(observe(lambda: jax.grad(lambda v: jnp.sum(_softmax(v) ** 2))(x)))
    linearize = with_first_line(observe(lambda: jax.linearize(_softmax, x)))
    vjp = with_first_line(observe(lambda: jax.vjp(_softmax, x)))
    return {"grad": grad, "linearize": linearize, "vjp": vjp}


@probe("behaviours.jvp_direct")
def jvp_direct() -> dict[str, Any]:
    """§5.3: the automatic JVP rule: fine for a simple kernel, fragile otherwise."""
    import jax

    x = jax.random.normal(jax.random.key(13), (16, 128))
    t = jax.random.normal(jax.random.key(17), x.shape)
    simple = observe(
        lambda: jax.jvp(_softmax, (x,), (t,))[1],
        lambda out: close(out, jax.jvp(jax.nn.softmax, (x,), (t,))[1], 1e-6, 1e-5),
    )
    xa = jax.random.normal(jax.random.key(18), (256, 512))
    partial = with_first_line(
        observe(lambda: jax.block_until_ready(jax.jvp(lambda u: add2d(u, xa), (xa,), (xa,))))
    )
    a, b = matmul_inputs()
    program_id = with_first_line(
        observe(lambda: jax.block_until_ready(jax.jvp(lambda u: matmul_acc(u, b), (a,), (a,))))
    )
    return {"simple": simple, "partial_tangents": partial, "uses_program_id": program_id}


def softmax_custom_vjp() -> Any:
    import jax
    import jax.numpy as jnp

    def bwd_kernel(y_ref: Any, dy_ref: Any, dx_ref: Any) -> None:
        y, dy = y_ref[...], dy_ref[...]
        dx_ref[...] = y * (dy - jnp.sum(dy * y, axis=-1, keepdims=True))

    @jax.custom_vjp
    def softmax_pl(x: Any) -> Any:
        return _softmax(x)

    def fwd(x: Any) -> Any:
        y = _softmax(x)
        return y, y

    softmax_pl.defvjp(fwd, lambda y, dy: (row_call(bwd_kernel, y, dy),))
    return softmax_pl


@probe("behaviours.custom_vjp")
def custom_vjp() -> dict[str, Any]:
    """§5.3: custom_vjp with a Pallas backward kernel: grad, check_grads, jit(grad), vmap(grad), jvp."""
    import jax
    import jax.numpy as jnp
    from jax.test_util import check_grads

    softmax_pl = softmax_custom_vjp()
    x = jax.random.normal(jax.random.key(13), (16, 128))
    w = jax.random.normal(jax.random.key(14), (16, 128))
    loss = lambda v, w: jnp.sum(softmax_pl(v) * w)  # noqa: E731
    y64, w64 = softmax_ref64(x), f64(w)
    by_hand = y64 * (w64 - (w64 * y64).sum(-1, keepdims=True))
    grad = observe(lambda: jax.grad(loss)(x, w), lambda g: close(g, by_hand, 1e-6, 1e-4))
    # jit only spares re-tracing on every finite-difference step; what is checked is unchanged.
    f32 = observe(lambda: check_grads(jax.jit(softmax_pl), (x,), order=1, modes=["rev"]))

    def float64_check() -> str:
        with enable_x64()(True):
            x64 = jnp.asarray(np.random.default_rng(0).normal(size=(16, 128)))
            check_grads(jax.jit(softmax_pl), (x64,), order=1, modes=["rev"])
            return str(softmax_pl(x64).dtype)

    f64_check = observe(float64_check, str)
    jit_grad = observe(
        lambda: jax.jit(jax.grad(loss))(x, w), lambda g: close(g, by_hand, 1e-6, 1e-4)
    )
    xb = jax.random.normal(jax.random.key(15), (3, 16, 128))
    wb = jax.random.normal(jax.random.key(16), (3, 16, 128))
    ref_vm = jax.vmap(jax.grad(lambda v, w: jnp.sum(jax.nn.softmax(v) * w)))(xb, wb)
    vmap_grad = observe(
        lambda: jax.vmap(jax.grad(loss))(xb, wb), lambda g: close(g, ref_vm, 1e-7, 1e-5)
    )
    jvp = observe(lambda: jax.jvp(softmax_pl, (x,), (x,)))
    return {
        "grad_vs_float64": grad,
        "check_grads_float32": f32,
        "check_grads_float64": f64_check,
        "jit_grad_vs_float64": jit_grad,
        "vmap_grad": vmap_grad,
        "jvp": jvp,
    }


@probe("autodiff.grad_check")
def grad_check() -> dict[str, Any]:
    """Whether reverse mode works in practice, next to the rules registered for it."""
    import jax
    import jax.numpy as jnp

    from probes.autodiff import REVERSE_MODE_TABLES, tables_holding

    x = jnp.arange(8, dtype=jnp.float32)

    def double(v: Any) -> Any:
        return pl().pallas_call(
            lambda x_ref, o_ref: o_ref.__setitem__(..., x_ref[...] * 2),
            out_shape=sds((8,)),
            interpret=True,
        )(v)

    grad = observe(lambda: jax.grad(lambda v: jnp.sum(double(v)))(x), lambda g: f64(g).tolist())
    registered = [t for t in tables_holding(pl().pallas_call_p) if t in REVERSE_MODE_TABLES]
    works = grad["outcome"] == CallOutcome.RETURNED
    return {
        "grad_works": works,
        "reverse_mode_rules": registered,
        "placeholder_rules": [] if works else registered,
    }
