"""The same shim-based kernels on every release: old-style and new-style, float64-checked.

Each kernel runs where the release supports the mode; where it does not, the test checks the
documented error instead. Which releases support what comes from the API-facts table's
``since`` (found by scanning the sources of every release), not from the code under test.
"""

from __future__ import annotations

import contextlib

import jax
import numpy as np
import pytest

import pallas_compat
from pallas_compat import pl, pltpu
from tests.conftest import has_feature, installed_jax

jnp = jax.numpy

RNG = np.random.default_rng(0)
pytestmark = pytest.mark.filterwarnings("ignore::pallas_compat.PallasCompatDeprecationWarning")


MODES = ["interpret", "tpu_sim"]


def run_mode(mode: str) -> object:
    """The interpret= value, or pytest.raises for the documented error where it cannot run."""
    if mode == "tpu_sim" and not has_feature("tpu_simulator"):
        with pytest.raises(pallas_compat.UnsupportedFeatureError, match=r"first in JAX 0\.6\.2"):
            pallas_compat.interpret(mode)
        pytest.xfail(f"the TPU simulator is not in JAX {installed_jax()} (first in 0.6.2)")
    return pallas_compat.interpret(mode)


def sds(shape: tuple[int, ...], dtype: object = None) -> object:
    return jax.ShapeDtypeStruct(shape, dtype or jnp.float32)


# -- old style: pl.load/pl.store with masks, TPUCompilerParams, dict params, old BlockSpec order


def masked_kernel(x_ref, o_ref, *, n: int, block: int):
    offsets = pl.program_id(0) * block + jnp.arange(block)
    mask = offsets < n
    x = pl.load(x_ref, (pl.ds(0, block),), mask=mask, other=-1.0)
    pl.store(o_ref, (pl.ds(0, block),), jnp.where(mask, 2.0 * x + 1.0, x))


def masked_in(mode: str) -> object:
    """Masked loads are Triton semantics: JAX's TPU simulator refuses them (NotImplementedError
    "masked load_p"; masked stores it runs); the shim passes JAX's error through."""
    if mode == "tpu_sim":
        return pytest.raises(NotImplementedError, match="masked")
    return contextlib.nullcontext()


@pytest.mark.parametrize("mode", MODES)
def test_masked_load_gives_other_outside_the_mask(mode: str) -> None:
    interpret = run_mode(mode)
    x = RNG.standard_normal(24).astype(np.float32)
    n, block = 19, 8
    spec = pl.BlockSpec(lambda i: (i,), (block,))
    with masked_in(mode):
        out = pl.pallas_call(
            f=lambda x_ref, o_ref: masked_kernel(x_ref, o_ref, n=n, block=block),
            out_shape=sds(x.shape),
            grid=(3,),
            in_specs=[spec],
            out_specs=spec,
            interpret=interpret,
        )(x)
    if mode == "tpu_sim":
        pallas_compat.reset_interpret_state()
        return
    want = np.where(np.arange(24) < n, 2.0 * x.astype(np.float64) + 1.0, -1.0)
    np.testing.assert_allclose(np.asarray(out, np.float64), want, rtol=1e-6)


def masked_store_kernel(x_ref, o_ref, *, n: int, block: int):
    offsets = pl.program_id(0) * block + jnp.arange(block)
    o_ref[...] = jnp.full((block,), 7.0, jnp.float32)
    pl.store(o_ref, (pl.ds(0, block),), -x_ref[...], mask=offsets < n)


@pytest.mark.parametrize("mode", MODES)
def test_masked_store_leaves_the_rest(mode: str) -> None:
    interpret = run_mode(mode)
    x = RNG.standard_normal(16).astype(np.float32)
    spec = pl.BlockSpec((8,), lambda i: (i,))
    out = pl.pallas_call(
        lambda x_ref, o_ref: masked_store_kernel(x_ref, o_ref, n=11, block=8),
        out_shape=sds(x.shape),
        grid=(2,),
        in_specs=[spec],
        out_specs=spec,
        interpret=interpret,
    )(x)
    want = np.where(np.arange(16) < 11, -x.astype(np.float64), 7.0)
    np.testing.assert_allclose(np.asarray(out, np.float64), want, rtol=0)


def dot_kernel(x_ref, y_ref, o_ref):
    o_ref[...] = pl.dot(x_ref[...], y_ref[...], trans_b=True)


@pytest.mark.parametrize("params", ["dict", "TPUCompilerParams"])
@pytest.mark.parametrize("mode", MODES)
def test_old_style_matmul(mode: str, params: str) -> None:
    interpret = run_mode(mode)
    x = RNG.standard_normal((16, 32)).astype(np.float32)
    y = RNG.standard_normal((16, 32)).astype(np.float32)
    semantics = ("parallel", "arbitrary")
    compiler_params = (
        {"mosaic": {"dimension_semantics": semantics}}
        if params == "dict"
        else pltpu.TPUCompilerParams(dimension_semantics=semantics)
    )
    out = pl.pallas_call(
        dot_kernel,
        out_shape=sds((16, 16)),
        grid=(2, 2),
        in_specs=[
            pl.BlockSpec(lambda i, j: (i, 0), (8, 32)),
            pl.BlockSpec(lambda i, j: (j, 0), (8, 32)),
        ],
        out_specs=pl.BlockSpec(lambda i, j: (i, j), (8, 8)),
        compiler_params=compiler_params,
        interpret=interpret,
    )(x, y)
    want = x.astype(np.float64) @ y.astype(np.float64).T
    np.testing.assert_allclose(np.asarray(out, np.float64), want, rtol=1e-5, atol=1e-5)


# -- new style: CompilerParams, GridDimensionSemantics, Squeezed, scratch_shapes, InterpretParams


def rowsum_kernel(x_ref, o_ref, acc_ref):
    @pl.when(pl.program_id(1) == 0)
    def _init():
        acc_ref[...] = jnp.zeros_like(acc_ref)

    acc_ref[...] += jnp.sum(x_ref[...], axis=1, keepdims=True)
    o_ref[...] = acc_ref[...]


@pytest.mark.parametrize("mode", MODES)
def test_new_style_row_sums_with_scratch(mode: str) -> None:
    interpret = run_mode(mode)
    x = RNG.standard_normal((16, 256)).astype(np.float32)
    semantics = pltpu.GridDimensionSemantics
    out = pl.pallas_call(
        rowsum_kernel,
        out_shape=sds((16, 1)),
        grid=(2, 2),
        in_specs=[pl.BlockSpec((8, 128), lambda i, k: (i, k))],
        out_specs=pl.BlockSpec((8, 1), lambda i, k: (i, 0)),
        scratch_shapes=[pltpu.VMEM((8, 1), jnp.float32)],
        compiler_params=pltpu.CompilerParams(
            dimension_semantics=(semantics.PARALLEL, semantics.ARBITRARY),
            vmem_limit_bytes=32 * 1024 * 1024,
        ),
        cost_estimate=pl.CostEstimate(flops=x.size, transcendentals=0, bytes_accessed=x.nbytes),
        interpret=interpret,
    )(x)
    want = x.astype(np.float64).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(np.asarray(out, np.float64), want, rtol=1e-5, atol=1e-5)


def squeezed_kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2.0


@pytest.mark.parametrize("marker", ["Squeezed()", "squeezed", "None"])
def test_new_style_squeezed_block_dimension(marker: str) -> None:
    dim = {"Squeezed()": pl.Squeezed(), "squeezed": pl.squeezed, "None": None}[marker]
    x = RNG.standard_normal((3, 8, 128)).astype(np.float32)
    spec = pl.BlockSpec((dim, 8, 128), lambda b: (b, 0, 0))
    out = pl.pallas_call(
        squeezed_kernel,
        out_shape=sds(x.shape),
        grid=(3,),
        in_specs=[spec],
        out_specs=spec,
        interpret=True,
    )(x)
    np.testing.assert_allclose(np.asarray(out, np.float64), 2.0 * x.astype(np.float64), rtol=0)


def test_new_style_interpret_params() -> None:
    if not has_feature("tpu_simulator"):
        with pytest.raises(pallas_compat.MissingFeatureError, match=r"first in JAX 0\.6\.2"):
            pltpu.InterpretParams  # noqa: B018
        return
    x = RNG.standard_normal((8, 128)).astype(np.float32)
    out = pl.pallas_call(
        squeezed_kernel,
        out_shape=sds(x.shape),
        interpret=pltpu.InterpretParams(detect_races=True),
    )(x)
    np.testing.assert_allclose(np.asarray(out, np.float64), 2.0 * x.astype(np.float64), rtol=0)
    pltpu.reset_tpu_interpret_mode_state()
