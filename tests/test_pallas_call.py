from __future__ import annotations

import jax
import numpy as np
import pytest

import pallas_compat
from pallas_compat import pl
from tests.conftest import jax_object

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


def captured_call(signature_of: object) -> tuple[object, dict[str, object]]:
    """The shim's pallas_call over a stand-in with ``signature_of``'s parameters, and what the
    stand-in was called with."""
    import functools

    from pallas_compat.shim._pallas_call import make_pallas_call

    seen: dict[str, object] = {}

    @functools.wraps(signature_of)  # type: ignore[arg-type]
    def native(*args: object, **kwargs: object) -> object:
        seen.update(kwargs)
        return lambda *operands: "called"  # what pallas_call returns: the call to make

    return make_pallas_call(native, None), seen


#: The backends whose params were a dict before they were a class (Mosaic GPU never was).
HAD_A_DICT_FORM = frozenset({"triton"})


@pytest.mark.filterwarnings("ignore::pallas_compat.PallasCompatDeprecationWarning")
@pytest.mark.parametrize(
    ("backend", "params"),
    [("triton", "triton"), ("mosaic_gpu", "mosaic_gpu"), ("mosaic_tpu", None), (None, None)],
)
def test_backend_keyword_becomes_the_backends_params(
    backend: str | None, params: str | None
) -> None:
    """``pallas_call(backend="triton")`` (0.4.35-0.9.0.1) on a pallas_call without it: the
    backend's CompilerParams type picks the same lowering."""
    from pallas_compat.facts._table import BACKENDS_BY_KEY, FEATURES_BY_KEY

    def without_backend(kernel, out_shape, *, compiler_params=None, interpret=False): ...

    call, seen = captured_call(without_backend)
    natives = []
    if params is not None:  # the params classes JAX itself has (asked of JAX, not the shim)
        feature = FEATURES_BY_KEY[BACKENDS_BY_KEY[params].feature]
        natives = [c for loc in feature.locations if (c := jax_object(loc.module, loc.attr))]
    if params is not None and not natives and params not in HAD_A_DICT_FORM:  # no Mosaic GPU
        with pytest.raises(pallas_compat.RefusedArgumentError, match="has no such backend"):
            call(double, out_shape=OUT, backend=backend)
        return
    assert call(double, out_shape=OUT, backend=backend)() == "called"
    assert "backend" not in seen
    if params is None:
        assert seen.get("compiler_params") is None
        return
    made = seen["compiler_params"]
    if natives:
        assert any(isinstance(made, native) for native in natives), made
    else:  # the dict the dict-era releases read
        assert made == {params: {}}, made


def test_an_unknown_backend_is_refused() -> None:
    def without_backend(kernel, out_shape, *, compiler_params=None): ...

    call, _ = captured_call(without_backend)
    with pytest.raises(pallas_compat.RefusedArgumentError, match="backend='cuda'"):
        call(double, out_shape=OUT, backend="cuda")
