from __future__ import annotations

import pytest
from packaging.version import Version

import pallas_compat
from pallas_compat import FEATURES_BY_KEY
from tests.conftest import installed_jax

jax = pytest.importorskip("jax")


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
    if installed_jax() >= since(key):
        params = pallas_compat.interpret(mode)
        assert type(params).__name__.startswith(("InterpretParams", "InterpretGPUParams"))
    else:
        with pytest.raises(pallas_compat.UnsupportedFeatureError) as info:
            pallas_compat.interpret(mode)
        message = str(info.value)
        assert f"first in JAX {FEATURES_BY_KEY[key].since}" in message
        assert str(installed_jax()) in message
        assert isinstance(info.value, NotImplementedError)


def test_unknown_mode_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="'tpu_sim'"):
        pallas_compat.interpret("tpu-sim")


def test_reset_is_safe_on_every_release() -> None:
    pallas_compat.reset_interpret_state()
    pallas_compat.reset_interpret_state()
