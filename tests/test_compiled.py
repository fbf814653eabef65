"""kernels._compiled: a program compiled once is shared only with the same program."""

from __future__ import annotations

from collections.abc import Iterator

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax._src import compiler

from kernels import _compiled


@pytest.fixture
def shared(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, int]]:
    """Sharing on for one test, with its own table and counts; JAX's jit caches cleared so
    that every call below reaches the compiler."""
    monkeypatch.setattr(compiler, "compile_or_get_cached", compiler.compile_or_get_cached)
    monkeypatch.setattr(_compiled, "counts", {"asked": 0, "shared": 0})
    _compiled.share_compiles()
    jax.clear_caches()
    yield _compiled.counts
    jax.clear_caches()


def loaded_by_a_route():
    """One kernel function as each route loads it: a new object from the same source."""

    def kernel(x):
        return jnp.tanh(x) * 2.0

    return kernel


def test_two_functions_that_trace_one_program_compile_it_once(shared: dict[str, int]) -> None:
    x = np.linspace(-1, 1, 64, dtype=np.float32)
    a, b = jax.jit(loaded_by_a_route())(x), jax.jit(loaded_by_a_route())(x)
    assert shared == {"asked": 2, "shared": 1}
    np.testing.assert_allclose(np.asarray(a), np.tanh(x) * 2.0, rtol=1e-6)
    np.testing.assert_array_equal(np.asarray(b), np.asarray(a))


def test_programs_that_differ_in_one_constant_are_not_shared(shared: dict[str, int]) -> None:
    # large enough that MLIR's printer would elide it by default: the key must not
    first = np.zeros(4096, np.float32)
    second = first.copy()
    second[-1] = 1.0
    x = np.ones(4096, np.float32)
    a = jax.jit(lambda x: x + first)(x)
    b = jax.jit(lambda x: x + second)(x)
    assert shared["shared"] == 0
    assert float(np.asarray(a)[-1]) == 1.0 and float(np.asarray(b)[-1]) == 2.0


def test_a_program_that_calls_back_into_python_is_never_shared(shared: dict[str, int]) -> None:
    def through(callback):
        def f(x):
            shape = jax.ShapeDtypeStruct(x.shape, x.dtype)
            return jax.pure_callback(callback, shape, x)

        return f

    x = np.arange(8, dtype=np.float32)
    a = jax.jit(through(lambda v: v + 1))(x)
    b = jax.jit(through(lambda v: v * 10))(x)
    assert shared["shared"] == 0
    np.testing.assert_array_equal(np.asarray(a), x + 1)
    np.testing.assert_array_equal(np.asarray(b), x * 10)


def test_sharing_is_installed_once(shared: dict[str, int]) -> None:
    wrapped = compiler.compile_or_get_cached
    _compiled.share_compiles()
    assert compiler.compile_or_get_cached is wrapped
