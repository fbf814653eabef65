from __future__ import annotations

import numpy as np
import pytest

import pallas_compat
from pallas_compat import pl

jax = pytest.importorskip("jax")
jnp = jax.numpy
OUT = jax.ShapeDtypeStruct((8, 128), jnp.float32)


def double(x_ref, o_ref):
    o_ref[...] = 2.0 * x_ref[...]


@pytest.mark.filterwarnings("ignore::pallas_compat.PallasCompatDeprecationWarning")
@pytest.mark.parametrize("keyword", ["f", "kernel"])
def test_kernel_by_either_keyword(keyword: str) -> None:
    x = np.arange(8 * 128, dtype=np.float32).reshape(8, 128)
    out = pl.pallas_call(**{keyword: double}, out_shape=OUT, interpret=True)(x)
    np.testing.assert_array_equal(np.asarray(out), 2.0 * x)


def test_unknown_argument_that_changes_results_is_refused() -> None:
    with pytest.raises(pallas_compat.RefusedArgumentError, match="not_an_argument"):
        pl.pallas_call(double, out_shape=OUT, not_an_argument=1)


def test_interpret_mode_names_are_accepted() -> None:
    x = np.ones((8, 128), np.float32)
    out = pl.pallas_call(double, out_shape=OUT, interpret="interpret")(x)
    np.testing.assert_array_equal(np.asarray(out), 2.0 * x)
    with pytest.raises(ValueError, match="not one of"):
        pl.pallas_call(double, out_shape=OUT, interpret="fast")
