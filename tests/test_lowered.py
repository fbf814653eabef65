"""kernels._lowered: a program lowered once is shared only with the same program, whatever
file each copy of its kernel was loaded from."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax._src import compiler
from jax._src.interpreters import pxla

from kernels import _lowered


@pytest.fixture
def shared(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, int]]:
    """Sharing on for one test, with its own table and counts; JAX's jit caches cleared so
    that every call below reaches the lowering."""
    monkeypatch.setattr(pxla, "_cached_lowering_to_hlo", pxla._cached_lowering_to_hlo)
    monkeypatch.setattr(_lowered, "counts", {"asked": 0, "shared": 0})
    _lowered.share_lowerings()
    jax.clear_caches()
    yield _lowered.counts
    jax.clear_caches()


def loaded_by_a_route():
    """One kernel function as each route loads it: a new object from the same source."""

    def kernel(x):
        return jnp.tanh(x) * 2.0

    return kernel


def test_two_functions_that_trace_one_program_lower_it_once(shared: dict[str, int]) -> None:
    x = np.linspace(-1, 1, 64, dtype=np.float32)
    a, b = jax.jit(loaded_by_a_route())(x), jax.jit(loaded_by_a_route())(x)
    assert shared == {"asked": 2, "shared": 1}
    np.testing.assert_allclose(np.asarray(a), np.tanh(x) * 2.0, rtol=1e-6)
    np.testing.assert_array_equal(np.asarray(b), np.asarray(a))


KERNEL = """\
import jax
from jax.experimental import pallas as pl


def double(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2.0


def run(x):
    shape = jax.ShapeDtypeStruct(x.shape, x.dtype)
    return pl.pallas_call(double, out_shape=shape, interpret=True)(x)
"""


#: The same kernel in the TPU simulator, whose lowering makes host callbacks of its own.
SIMULATED = """\
import jax
from pallas_compat import pl, pltpu


def double(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2.0


def run(x):
    shape = jax.ShapeDtypeStruct(x.shape, x.dtype)
    return pl.pallas_call(double, out_shape=shape, interpret=pltpu.InterpretParams())(x)
"""


def copy_of_kernel(folder: Path, source: str = KERNEL) -> ModuleType:
    """The kernel file copied to ``folder`` and imported from there, as a route does."""
    folder.mkdir()
    (folder / "kernel.py").write_text(source)
    spec = importlib.util.spec_from_file_location(f"kernel_{folder.name}", folder / "kernel.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_copies_of_a_kernel_in_two_files_lower_once(shared: dict[str, int], tmp_path: Path) -> None:
    """What the corpus routes do: the same Pallas kernel from two files, whose jaxprs differ
    in their debug information (the file each came from)."""
    x = np.arange(64, dtype=np.float32).reshape(8, 8)
    first = np.asarray(jax.jit(copy_of_kernel(tmp_path / "patch").run)(x))
    asked = shared["asked"]
    assert asked >= 1 and shared["shared"] == 0
    second = np.asarray(jax.jit(copy_of_kernel(tmp_path / "shim").run)(x))
    assert shared == {"asked": 2 * asked, "shared": asked}
    np.testing.assert_array_equal(first, x * 2.0)
    np.testing.assert_array_equal(second, first)


def test_programs_that_differ_in_one_constant_are_not_shared(shared: dict[str, int]) -> None:
    first = np.zeros(4096, np.float32)
    second = first.copy()
    second[-1] = 1.0
    x = np.ones(4096, np.float32)
    a = jax.jit(lambda x: x + first)(x)
    b = jax.jit(lambda x: x + second)(x)
    assert shared["shared"] == 0
    assert float(np.asarray(a)[-1]) == 1.0 and float(np.asarray(b)[-1]) == 2.0


def test_zero_and_negative_zero_are_two_programs(shared: dict[str, int]) -> None:
    """``0.0 == -0.0`` in Python, but the literals lower apart: ``-1 * 0.0`` is ``-0.0``."""
    x = -np.ones(4, np.float32)
    a = jax.jit(lambda x: x * 0.0)(x)
    b = jax.jit(lambda x: x * -0.0)(x)
    assert shared["shared"] == 0
    assert np.signbit(np.asarray(a)).all() and not np.signbit(np.asarray(b)).any()


def test_the_simulators_program_is_shared_and_each_call_reads_its_own_input(
    shared: dict[str, int], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The simulator's callbacks are JAX's functions of the kernel's parameters: the second
    copy runs the first's program, compiled once, on its own input."""
    from pallas_compat import MissingFeatureError, pltpu

    try:
        pltpu.InterpretParams()
    except MissingFeatureError as absent:  # before 0.5.1
        pytest.skip(str(absent).partition(";")[0])
    compiles: list[object] = []
    compile_or_get_cached = compiler.compile_or_get_cached

    def counted(*args: object, **kwargs: object) -> object:
        compiles.append(args)
        return compile_or_get_cached(*args, **kwargs)

    monkeypatch.setattr(compiler, "compile_or_get_cached", counted)
    x = np.arange(64, dtype=np.float32).reshape(8, 8)
    patch, shim = (
        copy_of_kernel(tmp_path / "patch", SIMULATED),
        copy_of_kernel(tmp_path / "shim", SIMULATED),
    )
    first = np.asarray(jax.jit(patch.run)(x))
    asked, compiled = shared["asked"], len(compiles)
    second = np.asarray(jax.jit(shim.run)(x + 100))
    assert shared["asked"] > asked and shared["shared"] == shared["asked"] - asked
    assert len(compiles) == compiled  # JAX's own cache: one lowered module, one executable
    np.testing.assert_array_equal(first, x * 2.0)
    np.testing.assert_array_equal(second, (x + 100) * 2.0)
    assert "callback" in jax.jit(shim.run).lower(x).as_text()  # it did call back


def test_programs_that_call_back_into_functions_of_their_own_are_not_shared(
    shared: dict[str, int],
) -> None:
    def through(callback):
        def f(x):
            shape = jax.ShapeDtypeStruct(x.shape, x.dtype)
            return jax.pure_callback(callback, shape, x)

        return f

    x = np.arange(8, dtype=np.float32)
    a = jax.jit(through(lambda v: v + 1))(x)
    b = jax.jit(through(lambda v: v + 1))(x)
    assert shared["shared"] == 0
    np.testing.assert_array_equal(np.asarray(a), x + 1)
    np.testing.assert_array_equal(np.asarray(b), x + 1)


def test_sharing_is_installed_once(shared: dict[str, int]) -> None:
    wrapped = pxla._cached_lowering_to_hlo
    _lowered.share_lowerings()
    assert pxla._cached_lowering_to_hlo is wrapped
