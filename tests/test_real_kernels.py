"""JAX 0.4.30's own kernels (tests/fixtures/real) on the installed JAX, by the three routes.

Routes, as a user takes them: ``patch`` (the file unmodified, ``pallas_compat.patch()`` on),
``shim`` (only its Pallas imports changed to ``from pallas_compat import ...``) and ``migrate``
(``pallas-compat migrate`` for the installed JAX, then plain JAX). Each result is checked
against a NumPy float64 reference written here, not against JAX's own reference functions.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import pallas_compat
from kernels.corpus._references import attention64, softmax64
from pallas_compat import pltpu
from pallas_compat._cli import main as compat_main
from pallas_compat.facts._table import FEATURES_BY_KEY
from pallas_compat.lint._migrate import MARKER, migrate_source
from pallas_compat.shim._resolve import Resolution, resolve
from tests.conftest import load_prepared

REAL = Path(__file__).parent / "fixtures" / "real" / "jax_0_4_30"
ROUTES = ("patch", "shim", "migrate")


def load(name: str, route: str, tmp_path: Path) -> ModuleType:
    """The real kernel file ``name`` as the route prepares it, imported from ``tmp_path``."""
    module: ModuleType = load_prepared(REAL / f"{name}.py", route, tmp_path)
    return module


@pytest.fixture(params=ROUTES)
def route(request: pytest.FixtureRequest) -> Iterator[str]:
    if request.param == "patch":
        pallas_compat.patch()
    try:
        yield request.param
    finally:
        pallas_compat.unpatch()


def causal_attention64(q: np.ndarray, k: np.ndarray, v: np.ndarray, scale: float) -> np.ndarray:
    """[batch, seq, heads, dim] (the GPU kernels' layout), causal, float64 (scale 1 only)."""
    assert scale == 1.0
    return attention64(*(np.asarray(t, np.float64) for t in (q, k, v)), causal=True)[0]


@pytest.mark.parametrize("row", [100, 128])
def test_softmax_with_a_block_that_overhangs_the_row(route: str, row: int, tmp_path: Path) -> None:
    """``pl.load(x, (pl.dslice(0, 128),), mask=cols < 100, other=-inf)``: newer JAX refuses
    the static slice before the mask applies; the back-fill and migrate use index arrays."""
    module = load("softmax", route, tmp_path)
    x = np.random.default_rng(0).standard_normal((3, row)).astype(np.float32)
    out = module.softmax(jnp.asarray(x), interpret=True)
    np.testing.assert_allclose(np.asarray(out), softmax64(x.astype(np.float64)), atol=1e-6)


def test_rms_norm_with_its_in_kernel_for_loop(route: str, tmp_path: Path) -> None:
    """``from jax._src.lax.control_flow.for_loop import for_loop`` inside the kernel body: gone
    in 0.7.2; served by the shim and patch(), replaced by a local helper by migrate."""
    module = load("rms_norm", route, tmp_path)
    rng = np.random.default_rng(1)
    x, w, b = (rng.standard_normal(s).astype(np.float32) for s in ((2, 3, 200), (200,), (200,)))
    out = module.rms_norm(jnp.asarray(x), jnp.asarray(w), jnp.asarray(b), interpret=True)
    x64 = x.astype(np.float64)
    expected = x64 / np.sqrt(np.mean(x64**2, axis=-1, keepdims=True) + 1e-5) * w + b
    np.testing.assert_allclose(np.asarray(out), expected, atol=1e-5)


def test_flash_attention_forward_and_backward_of_the_gpu_kernel(route: str, tmp_path: Path) -> None:
    """``pl.dot`` (-> ``pltriton.dot``), masked loads and stores, the old BlockSpec order and
    dict ``compiler_params``: forward and ``jax.grad`` through JAX 0.4.30's Triton kernel."""
    module = load("attention", route, tmp_path)
    rng = np.random.default_rng(1)
    q, k, v = (rng.standard_normal((1, 128, 2, 64)).astype(np.float32) for _ in range(3))

    def attention(q: jax.Array) -> jax.Array:
        return module.mha(
            q,
            jnp.asarray(k),
            jnp.asarray(v),
            None,
            causal=True,
            block_q=64,
            block_k=64,
            interpret=True,
        )

    np.testing.assert_allclose(
        np.asarray(attention(jnp.asarray(q))), causal_attention64(q, k, v, 1.0), atol=2e-5
    )
    grad = jax.grad(lambda q: attention(q).sum())(jnp.asarray(q))
    eps = 1e-6  # central differences of the float64 reference, on a few entries
    for index in [(0, 0, 0, 0), (0, 37, 1, 5), (0, 127, 0, 63)]:
        up, down = q.astype(np.float64), q.astype(np.float64)
        up[index] += eps
        down[index] -= eps
        numeric = (
            causal_attention64(up, k, v, 1.0).sum() - causal_attention64(down, k, v, 1.0).sum()
        ) / (2 * eps)
        assert abs(float(grad[index]) - numeric) < 1e-3


@pytest.mark.xfail(
    resolve(FEATURES_BY_KEY["tpu_simulator"]).status is Resolution.UNAVAILABLE,
    reason=f"JAX {jax.__version__} has no TPU simulator (JAX 0.4.30-0.5.0), so "
    "force_tpu_interpret_mode can only choose interpret=True, and that HLO interpreter cannot "
    "discharge this kernel's loads (AttributeError: 'int' object has no attribute 'shape')",
    raises=AttributeError,
    strict=True,
)
def test_flash_attention_of_the_tpu_kernel(route: str, tmp_path: Path) -> None:
    """``pltpu.repeat`` (-> concatenation, JAX's jnp.tile), dict ``compiler_params`` and
    ``BlockSpec(index_map, block_shape)`` in JAX 0.4.30's TPU flash attention."""
    module = load("flash_attention", route, tmp_path)
    rng = np.random.default_rng(2)
    q, k, v = (rng.standard_normal((1, 2, 256, 128)).astype(np.float32) for _ in range(3))
    sizes = module.BlockSizes(block_q=128, block_k_major=128, block_k=128, block_b=1)
    with pltpu.force_tpu_interpret_mode():  # JAX's from 0.7.0, the shim's before
        out = module.flash_attention(
            *(jnp.asarray(t) for t in (q, k, v)), causal=True, sm_scale=1.0, block_sizes=sizes
        )
    as_gpu_layout = [t.transpose(0, 2, 1, 3) for t in (q, k, v)]
    expected = causal_attention64(*as_gpu_layout, 1.0).transpose(0, 2, 1, 3)
    np.testing.assert_allclose(np.asarray(out), expected, atol=5e-5)


# -- migrate and doctor over all six files


def comments(text: str) -> list[str]:
    return re.findall(r"#[^\n]*", text)


@pytest.mark.any_release
@pytest.mark.parametrize("target", ["0.6.2", "0.12.0.1"])
def test_migrate_leaves_nothing_that_breaks_and_keeps_every_comment(
    tmp_path: Path, target: str, capsys: pytest.CaptureFixture[str]
) -> None:
    tree = tmp_path / "ops"
    tree.mkdir()
    for path in REAL.glob("*.py"):
        (tree / path.name).write_text(path.read_text())
    assert compat_main(["doctor", str(tree), "--target", target]) == 1
    assert compat_main(["migrate", str(tree), "--target", target, "--write"]) == 0
    capsys.readouterr()
    assert compat_main(["doctor", str(tree), "--target", target]) == 0, capsys.readouterr().out
    for path in REAL.glob("*.py"):
        migrated = (tree / path.name).read_text()
        assert MARKER not in migrated
        for comment in comments(path.read_text()):
            assert comment in migrated, f"{path.name}: lost {comment!r}"


@pytest.mark.any_release
def test_what_migrate_writes_for_the_real_idioms(tmp_path: Path) -> None:
    written = {}
    for name in (
        "softmax",
        "attention",
        "flash_attention",
        "gmm",
        "splash_attention_kernel",
        "paged_attention_kernel",
    ):
        source = (REAL / f"{name}.py").read_text()
        written[name] = migrate_source(source, "0.12.0.1")
    assert (
        "pltriton.load(\n      input_ref.at[jnp.arange(block_row)], mask=mask" in written["softmax"]
    )
    assert "pltriton.dot(q, k.T)" in written["attention"]
    assert "from jax.experimental.pallas import triton as pltriton" in written["attention"]
    assert "pl.BlockSpec((None, seq_len), lambda _, j, k: (j, 0))" in written["attention"]
    assert "jnp.concatenate([m_next] * block_k_repeats, axis=1)" in written["flash_attention"]
    assert "cost_estimate = pl.CostEstimate(" in written["gmm"]
    assert (
        "compiler_params=pltpu.CompilerParams(**mosaic_params)"
        in written["splash_attention_kernel"]
    )
    assert "pl.BlockSpec(memory_space=pl.ANY)" in written["paged_attention_kernel"]
