from __future__ import annotations

import importlib
import types

import jax
import pytest
from packaging.version import Version

import pallas_compat
from pallas_compat import FEATURES_BY_KEY
from tests.conftest import has_feature, installed_jax


def since(key: str) -> Version:
    return Version(FEATURES_BY_KEY[key].since or "0")


def test_interpret_and_auto_on_cpu() -> None:
    assert pallas_compat.interpret("interpret") is True
    assert pallas_compat.interpret() is True
    assert pallas_compat.interpret("auto") is (jax.default_backend() == "cpu")


@pytest.mark.parametrize(
    ("mode", "key"), [("tpu_sim", "tpu_simulator"), ("gpu_sim", "gpu_simulator")]
)
def test_simulators_where_the_release_has_them(mode: str, key: str) -> None:
    if has_feature(key):
        params = pallas_compat.interpret(mode)
        assert type(params).__name__ in {loc.attr for loc in FEATURES_BY_KEY[key].locations}
    else:
        with pytest.raises(pallas_compat.UnsupportedFeatureError) as info:
            pallas_compat.interpret(mode)
        message = str(info.value)
        assert f"first in JAX {FEATURES_BY_KEY[key].since}" in message
        assert str(installed_jax()) in message
        assert isinstance(info.value, NotImplementedError)


def native_simulator_fields() -> set[str]:
    """The fields of the TPU simulator's params class as this JAX defines it (read from JAX)."""
    import dataclasses
    import importlib

    for location in reversed(FEATURES_BY_KEY["tpu_simulator"].locations):
        try:
            cls = getattr(importlib.import_module(location.module), location.attr)
        except (ImportError, AttributeError):
            continue
        return {f.name for f in dataclasses.fields(cls)}
    return set()


def test_unknown_mode_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="'tpu_sim'"):
        pallas_compat.interpret("tpu-sim")


def simulator_state_modules() -> list[types.ModuleType]:
    """The modules of the installed TPU simulator that hold its global state (one module up to
    0.8, ``interpret/interpret_pallas_call.py`` after), found by the state, not by release."""
    found = []
    for name in (
        "jax._src.pallas.mosaic.interpret",
        "jax._src.pallas.mosaic.interpret.interpret_pallas_call",
    ):
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        if hasattr(module, "_shared_memory_init_lock"):
            found.append(module)
    return found


def test_reset_clears_what_a_failed_kernel_leaves_in_the_simulator() -> None:
    modules = simulator_state_modules()
    assert bool(modules) == has_feature("tpu_simulator")
    left = object()
    for module in modules:  # what a kernel that raised inside the simulator leaves behind
        module._shared_memory = module.races = left
    pallas_compat.reset_interpret_state()
    for module in modules:
        assert module._shared_memory is None and module.races is None
    pallas_compat.reset_interpret_state()  # a second reset, on a clean state, is no error


@pytest.mark.parametrize("takes_token", [True, False])
def test_grid_point_recorder_in_either_protocol(takes_token: bool) -> None:
    """0.6.2-0.10.1 call recorder(grid_point, core_id); 0.10.2 on recorder(token, ...)."""
    import numpy as np

    from pallas_compat import pl, pltpu

    if not has_feature("tpu_simulator"):
        with pytest.raises(pallas_compat.MissingFeatureError, match="InterpretParams"):
            pltpu.InterpretParams  # noqa: B018
        return
    if "grid_point_recorder" not in native_simulator_fields():  # 0.5.1-0.6.1's private class
        with pytest.raises(pallas_compat.RefusedArgumentError, match="grid_point_recorder"):
            pltpu.InterpretParams(grid_point_recorder=lambda grid_point, core_id: None)
        return

    visits: list[tuple[int, ...]] = []

    def with_token(token, grid_point, core_id):
        visits.append(tuple(int(c) for c in grid_point))
        return token

    def without_token(grid_point, core_id):
        visits.append(tuple(int(c) for c in grid_point))

    def copy(x_ref, o_ref):
        o_ref[...] = x_ref[...]

    spec = pl.BlockSpec((8, 128), lambda i, j: (i, j))
    x = np.ones((16, 256), np.float32)
    params = pltpu.InterpretParams(grid_point_recorder=with_token if takes_token else without_token)
    out = pl.pallas_call(
        copy,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(2, 2),
        in_specs=[spec],
        out_specs=spec,
        interpret=params,
    )(x)
    jax.block_until_ready(out)
    assert visits == [(0, 0), (0, 1), (1, 0), (1, 1)]


def doubled_without_interpret(call: object) -> object:
    import jax.numpy as jnp

    def kernel(x_ref: object, o_ref: object) -> None:
        o_ref[...] = x_ref[...] * 2  # type: ignore[index]

    x = jnp.arange(8 * 128, dtype=jnp.float32).reshape(8, 128)
    return jax.jit(lambda x: call(kernel, out_shape=x)(x))(x), x  # type: ignore[operator]


@pytest.mark.parametrize("spelling", ["jax", "shim"])
def test_force_tpu_interpret_mode_on_every_release(spelling: str) -> None:
    """A pallas_call that names no ``interpret=`` runs on this CPU inside the block, whether
    the kernel's file calls JAX's ``pl.pallas_call`` or the shim's; outside it, it does not."""
    import numpy as np
    from jax.experimental import pallas as native_pl

    from pallas_compat import pl, pltpu

    def call(*args: object, **kwargs: object) -> object:  # looked up at call time, as kernels do
        return (native_pl if spelling == "jax" else pl).pallas_call(*args, **kwargs)

    with pltpu.force_tpu_interpret_mode():
        out, x = doubled_without_interpret(call)
    np.testing.assert_array_equal(np.asarray(out), 2 * np.asarray(x))
    with pytest.raises(Exception, match=r"(?i)interpret"):
        doubled_without_interpret(call)


def test_force_tpu_interpret_mode_is_jaxs_own_where_it_exists() -> None:
    from jax.experimental.pallas import tpu as native_tpu

    from pallas_compat import pltpu

    native = getattr(native_tpu, "force_tpu_interpret_mode", None)
    assert (pltpu.force_tpu_interpret_mode is native) == (native is not None)
