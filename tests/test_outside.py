"""JAX APIs outside Pallas that kernel files use: the shim's rebuilds agree with JAX's own.

Where the installed JAX still has ``for_loop`` (to 0.7.1) or ``dtypes.bit_width`` (0.5-0.8.1),
the rebuild is compared with it; on every release, with float64 answers written here.
"""

from __future__ import annotations

import ast
import importlib
import importlib.resources

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
import pytest

from pallas_compat.shim import _outside
from pallas_compat.shim._resolve import import_optional

NATIVE_FOR_LOOP = import_optional("jax._src.lax.control_flow.for_loop")


def body(i: jax.Array, refs: tuple[object, object]) -> None:
    """Writes through every index form a kernel's loop body uses: whole refs, a static
    slice, a traced scalar index."""
    total, row = refs
    total[...] = total[...] * 2 + i  # type: ignore[index]
    row[1:3] = row[1:3] + i  # type: ignore[index]
    row[i % 4] = row[i % 4] * 3  # type: ignore[index]


def by_hand(steps: list[int]) -> tuple[np.ndarray, np.ndarray]:
    total, row = np.float64(1.0), np.arange(4, dtype=np.float64)
    for i in steps:
        total = total * 2 + i
        row[1:3] += i
        row[i % 4] *= 3
    return np.asarray(total), row


@pytest.mark.parametrize("reverse", [False, True])
def test_for_loop_over_values_is_the_for_loop_over_refs(reverse: bool) -> None:
    init = (jnp.float32(1.0), jnp.arange(4, dtype=jnp.float32))
    out = jax.jit(lambda s: _outside.for_loop(5, body, s, reverse=reverse, unroll=2))(init)
    steps = list(range(5))[::-1] if reverse else list(range(5))
    for got, want in zip(out, by_hand(steps), strict=True):
        np.testing.assert_allclose(np.asarray(got, np.float64), want)
    if NATIVE_FOR_LOOP is not None:  # JAX to 0.7.1: the same as its own
        native = jax.jit(lambda s: NATIVE_FOR_LOOP.for_loop(5, body, s, reverse=reverse))(init)
        for got, want in zip(out, native, strict=True):
            np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


def test_for_loop_runs_inside_a_kernel_in_the_interpreter() -> None:
    """The in-kernel use (fjformer's norms): accumulate rows of a ref into a loop-carried ref."""
    from pallas_compat import pl

    def kernel(x_ref: object, o_ref: object) -> None:
        def step(i: jax.Array, acc_ref: object) -> None:
            acc_ref[:] += x_ref[i]  # type: ignore[index]

        o_ref[...] = _outside.for_loop(4, step, jnp.zeros(8))  # type: ignore[index]

    x = np.arange(32, dtype=np.float32).reshape(4, 8)
    out = pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct((8,), jnp.float32), interpret=True)(
        x
    )
    np.testing.assert_allclose(np.asarray(out), x.astype(np.float64).sum(0))


@pytest.mark.parametrize(
    ("dtype", "bits"),
    [(np.float32, 32), (np.bool_, 8), (ml_dtypes.int4, 4), (np.complex64, 64), (np.int16, 16)],
)
def test_bit_width_counts_the_bits_of_an_element(dtype: object, bits: int) -> None:
    assert _outside.bit_width(dtype) == bits
    native = getattr(importlib.import_module("jax._src.dtypes"), "bit_width", None)
    if native is not None:
        assert native(dtype) == bits


def test_bit_width_refuses_what_has_no_width() -> None:
    with pytest.raises(ValueError, match="unexpected input"):
        _outside.bit_width(np.dtype("O"))


REAL = importlib.resources.files("tests") / "fixtures" / "real"
#: Real kernel files and the outside-Pallas module each reaches through a name of its own.
#: (JAX 0.7.0-0.7.2 keep ``jax.util`` without ``HashableFunction``: patch() fills it in.)
USERS = (
    ("jax_0_4_30/splash_attention_mask_info.py", "jax_util", "from jax import util as jax_util"),
    ("jax_0_6_2/ragged_paged_attention_kernel.py", "dtypes", "from jax._src import dtypes"),
    ("jax_0_6_2/threefry.py", "prng", "from jax._src import prng"),
)


def attributes_of(file: str, alias: str) -> set[str]:
    """What the real file takes from the module it binds to ``alias`` (read, not typed)."""
    tree = ast.parse((REAL / file).read_text())
    return {
        node.attr
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == alias
    }


@pytest.mark.parametrize(("file", "alias", "statement"), USERS)
def test_patch_serves_what_real_kernels_take_from_outside_pallas(
    file: str, alias: str, statement: str
) -> None:
    """On every release, under ``patch()``, the real file's import runs and every name it
    takes from the module is there."""
    import pallas_compat

    wanted = attributes_of(file, alias)
    assert wanted
    pallas_compat.patch(warn=False)
    try:
        namespace: dict[str, object] = {}
        exec(statement, namespace)
        missing = {name for name in wanted if not hasattr(namespace[alias], name)}
    finally:
        pallas_compat.unpatch()
    assert missing == set()


def test_the_served_threefry_gives_the_random123_known_answer() -> None:
    """``prng.threefry_2x32`` under ``patch()``, wherever the release keeps it (the module
    moved in 0.10.2), on the key-0 counter-0 vector published with Random123."""
    import pallas_compat

    pallas_compat.patch(warn=False)
    try:
        from jax._src import prng  # type: ignore[attr-defined]

        bits = prng.threefry_2x32(jnp.zeros(2, jnp.uint32), jnp.zeros(2, jnp.uint32))
    finally:
        pallas_compat.unpatch()
    assert [int(b) for b in np.asarray(bits)] == [0x6B200159, 0x99BA4EFE]


@pytest.mark.parametrize(("dtype", "bits"), [(np.float32, 32), (np.bool_, 8), (ml_dtypes.int4, 4)])
def test_the_shim_serves_itemsize_bits_to_newer_code_on_every_release(
    dtype: object, bits: int
) -> None:
    """JAX 0.9.2's ragged paged attention calls ``dtypes.itemsize_bits`` (0.8.1's name): run by
    the shim on a release from before it, the name is there, and it says nothing (the code is
    not old)."""
    import warnings

    from pallas_compat import dtypes

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert dtypes.itemsize_bits(dtype) == bits
