"""pallas_compat.shim._atomic_ops: ``pl.atomic_*`` in the forms old Triton-style kernels wrote, in
interpret mode on every release (the real-style kernels: tests/fixtures/idioms/atomics.py)."""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from pallas_compat import pl
from pallas_compat.shim import _atomic_ops


def test_an_integer_index_becomes_a_one_element_slice() -> None:
    sliced = _atomic_ops.one_element_slices((3, slice(None)))
    assert sliced is not None
    (start, rest), axes = sliced
    assert (start.start, start.size, rest, axes) == (3, 1, slice(None), (0,))
    assert _atomic_ops.one_element_slices((slice(None),)) is None


@pytest.mark.parametrize(
    ("op", "old", "new", "stored"),
    [("add", 2, 3, 5), ("max", 2, 3, 3), ("min", 2, 3, 2), ("xchg", 2, 3, 3), ("xor", 6, 3, 5)],
)
def test_what_each_atomic_stores(op: str, old: int, new: int, stored: int) -> None:
    combine = _atomic_ops.combine(op)
    assert combine is not None and int(combine(jnp.int32(old), jnp.int32(new))) == stored


def test_a_compiled_kernel_gets_jaxs_own_call() -> None:
    """Outside the shim's interpret mode nothing is taken apart: the native call, as is."""
    calls: list[tuple[Any, ...]] = []
    wrapped = _atomic_ops.interpretable(lambda *a, **k: calls.append(a) or "native", "add")
    assert wrapped("ref", (), 1.0) == "native" and calls == [("ref", (), 1.0)]


def kernel_0d(x_ref: Any, o_ref: Any) -> None:
    @pl.when(pl.program_id(0) == 0)
    def _() -> None:
        o_ref[...] = jnp.zeros((), o_ref.dtype)

    pl.atomic_add(o_ref, (), jnp.sum(x_ref[...]))


def kernel_int_index(x_ref: Any, o_ref: Any) -> None:
    @pl.when(pl.program_id(0) == 0)
    def _() -> None:
        o_ref[...] = jnp.zeros(o_ref.shape, o_ref.dtype)

    pl.atomic_add(o_ref, 1, jnp.sum(x_ref[...]))


@pytest.mark.filterwarnings("ignore::pallas_compat.PallasCompatDeprecationWarning")
@pytest.mark.parametrize(("kernel", "out"), [(kernel_0d, ()), (kernel_int_index, (3,))])
def test_the_old_forms_run_in_interpret_mode(kernel: Any, out: tuple[int, ...]) -> None:
    x = np.arange(4 * 8, dtype=np.float32).reshape(4, 8)
    call = pl.pallas_call(
        kernel,
        grid=(4,),
        in_specs=[pl.BlockSpec((1, 8), lambda i: (i, 0))],
        out_specs=pl.BlockSpec(out, lambda i: (0,) * len(out)),
        out_shape=jax.ShapeDtypeStruct(out, jnp.float32),
        interpret=True,
    )
    expected = np.zeros(out) if out else np.zeros(())
    if out:
        expected[1] = x.astype(np.float64).sum()
    else:
        expected = np.asarray(x.astype(np.float64).sum())
    np.testing.assert_allclose(np.asarray(call(x)), expected)
