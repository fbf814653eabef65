"""The shim's ``for_loop`` (what ``migrate`` writes into a module too) must compile where
kernels compile: each form real kernels use is run in the interpreter against NumPy, and
lowered with ``interpret`` off for CUDA (Triton) and for TPU (Mosaic) on this CPU machine.

The forms: an accumulator updated whole (``acc_ref[:] += x``, JAX's and fjformer's norms),
read and written at a traced index, several refs in a reversed loop (recurrentgemma's scan),
and the forward-mode autodiff of a kernel that holds one."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import pallas_compat
from pallas_compat import pl, pltriton
from pallas_compat.shim._for_loop_local import for_loop

SHAPE = (8, 128)
STEPS = 4
#: What each backend's lowering calls its kernel in the StableHLO text.
KERNEL_CALL = {"tpu": "tpu_custom_call", "cuda": "__gpu$xla.gpu.triton"}


def whole(x_ref: Any, o_ref: Any, loop: Callable[..., Any] = for_loop) -> None:
    def body(i: Any, acc_ref: Any) -> None:
        acc_ref[:] += x_ref[...] * (i + 1).astype(jnp.float32)

    o_ref[...] = loop(STEPS, body, jnp.zeros(SHAPE, jnp.float32))


def whole_served(x_ref: Any, o_ref: Any) -> None:
    """The same through ``pallas_compat.for_loop.for_loop``: JAX's own where the release has one (to
    0.7.1), the rebuild after. JAX 0.4.30 cannot differentiate a kernel whose ``fori_loop``
    reads a ref (``JaxprInputEffect ... does not have corresponding input``); its own
    ``for_loop`` it can, and that is what the shim serves there."""
    whole(x_ref, o_ref, pallas_compat.for_loop.for_loop)


def at_index(x_ref: Any, o_ref: Any) -> None:
    def body(i: Any, acc_ref: Any) -> None:
        acc_ref[i] = acc_ref[i] + x_ref[...].sum(axis=0) * i.astype(jnp.float32)
        acc_ref[i, :] += 1.0

    o_ref[...] = for_loop(STEPS, body, jnp.zeros(SHAPE, jnp.float32))


def several_reversed(x_ref: Any, o_ref: Any) -> None:
    def body(i: Any, refs: Any) -> None:
        decayed, last = refs
        decayed[...] = decayed[...] * 0.5 + x_ref[...] * i.astype(jnp.float32)
        last[...] = jnp.full(SHAPE, i, jnp.float32)

    decayed, last = for_loop(
        STEPS, body, (jnp.ones(SHAPE, jnp.float32), jnp.zeros(SHAPE, jnp.float32)), reverse=True
    )
    o_ref[...] = decayed + last


def whole64(x: np.ndarray) -> np.ndarray:
    return x * sum(range(1, STEPS + 1))


def at_index64(x: np.ndarray) -> np.ndarray:
    out = np.zeros(SHAPE)
    for i in range(STEPS):
        out[i] += x.sum(axis=0) * i + 1.0
    return out


def several_reversed64(x: np.ndarray) -> np.ndarray:
    decayed = np.ones(SHAPE)
    for i in reversed(range(STEPS)):
        decayed = decayed * 0.5 + x * i
    return decayed + 0  # the last step written is i = 0


FORMS: dict[str, tuple[Callable[..., None], Callable[[np.ndarray], np.ndarray]]] = {
    "an accumulator updated whole": (whole, whole64),
    "read and written at a traced index": (at_index, at_index64),
    "several refs, reversed": (several_reversed, several_reversed64),
}


def call(kernel: Callable[..., None], *, interpret: bool, cuda: bool = False) -> Any:
    """Triton's params name the backend on CUDA (from 0.9 a bare GPU call is Mosaic GPU's)."""
    params = pltriton.CompilerParams(num_warps=4) if cuda else None
    shape = jax.ShapeDtypeStruct(SHAPE, jnp.float32)
    return pl.pallas_call(kernel, out_shape=shape, compiler_params=params, interpret=interpret)


def x() -> np.ndarray:
    return np.random.default_rng(0).standard_normal(SHAPE).astype(np.float32)


@pytest.mark.parametrize("form", FORMS)
def test_each_form_gives_numpys_answer_in_the_interpreter(form: str) -> None:
    kernel, expected = FORMS[form]
    out = call(kernel, interpret=True)(jnp.asarray(x()))
    np.testing.assert_allclose(np.asarray(out), expected(x().astype(np.float64)), atol=1e-4)


@pytest.mark.parametrize("platform", ["cuda", "tpu"])
@pytest.mark.parametrize("form", FORMS)
def test_each_form_lowers_with_interpret_off(form: str, platform: str) -> None:
    kernel, _ = FORMS[form]
    shape = jax.ShapeDtypeStruct(SHAPE, jnp.float32)
    chip = "NVIDIA H100 80GB HBM3" if platform == "cuda" else "v5e"
    fn = call(kernel, interpret=False, cuda=platform == "cuda")
    text = pallas_compat.lower(fn, shape, platform=platform, chip=chip)
    assert KERNEL_CALL[platform] in text


@pytest.mark.parametrize("platform", ["cuda", "tpu"])
def test_the_autodiff_of_a_kernel_that_holds_one_lowers(platform: str) -> None:
    """``jax.jvp`` of the call: Pallas differentiates the kernel, loop and masks included."""
    shape = jax.ShapeDtypeStruct(SHAPE, jnp.float32)
    chip = "NVIDIA H100 80GB HBM3" if platform == "cuda" else "v5e"
    fn = call(whole_served, interpret=False, cuda=platform == "cuda")
    text = pallas_compat.lower(
        lambda a, t: jax.jvp(fn, (a,), (t,)), shape, shape, platform=platform, chip=chip
    )
    assert KERNEL_CALL[platform] in text


def test_the_autodiff_gives_numpys_answer_in_the_interpreter() -> None:
    fn = call(whole_served, interpret=True)
    ones = jnp.ones(SHAPE, jnp.float32)
    _, tangent = jax.jvp(fn, (jnp.asarray(x()),), (ones,))
    np.testing.assert_allclose(np.asarray(tangent), whole64(np.ones(SHAPE)), atol=1e-5)


def test_an_index_form_it_cannot_mask_still_runs_in_the_interpreter() -> None:
    """A partial slice falls back to ``jnp`` indexing: right in the interpreter."""

    def partial(x_ref: Any, o_ref: Any) -> None:
        def body(i: Any, acc_ref: Any) -> None:
            acc_ref[2:4] += x_ref[2:4]

        o_ref[...] = for_loop(STEPS, body, jnp.zeros(SHAPE, jnp.float32))

    out = np.asarray(call(partial, interpret=True)(jnp.asarray(x())))
    expected = np.zeros(SHAPE)
    expected[2:4] = STEPS * x()[2:4]
    np.testing.assert_allclose(out, expected, atol=1e-5)
