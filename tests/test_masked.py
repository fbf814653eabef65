"""pallas_compat.shim._masked: an overhanging masked static slice becomes index arrays."""

from __future__ import annotations

import numpy as np
from jax.experimental import pallas as pl

from pallas_compat.shim._masked import as_index_arrays


def test_only_an_overhanging_static_slice_is_rewritten() -> None:
    inside = (pl.dslice(0, 64),)
    assert as_index_arrays((100,), inside) is inside
    assert as_index_arrays((100,), 3) == 3
    (rows,) = as_index_arrays((100,), (pl.dslice(0, 128),))
    np.testing.assert_array_equal(np.asarray(rows), np.arange(128))


def test_an_outer_grid_for_several_dimensions() -> None:
    rows, cols = as_index_arrays((100, 70), (pl.dslice(64, 64), slice(None)))
    assert rows.shape == (64, 1) and cols.shape == (1, 70)
    np.testing.assert_array_equal(np.asarray(rows[:, 0]), 64 + np.arange(64))
    scalar, cols = as_index_arrays((4, 100), (2, pl.dslice(0, 128)))
    assert scalar == 2 and cols.shape == (128,)


def test_what_the_grid_cannot_express_is_left_to_jax() -> None:
    idx = (pl.dslice(0, 128), slice(1, 5))
    assert as_index_arrays((100, 70), idx) is idx
