"""JAX 0.6.2's own Mosaic GPU kernels (tests/fixtures/real/jax_0_6_2) on the installed JAX.

On 0.6.2 the file runs as it is; on every newer release through ``patch()``, the shim's
imports and ``migrate``. Without a GPU, each is lowered for an H100 (sm_90a) with ``interpret``
off and must hold a Mosaic GPU kernel call; where the release's Mosaic GPU interpreter can run
it (ragged dot, JAX 0.11.1 on), it also runs there against a NumPy float64 reference. Before
0.6.2 the files do not apply (newer kernels on old JAX are the corpus's shim route).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import jax
import numpy as np
import pytest
from packaging.version import Version

import pallas_compat
from kernels._compile import GPU_KIND
from kernels.corpus._cases_mosaic_gpu import attention_case, ragged_dot_case
from kernels.corpus._compiles import lowered_text
from kernels.corpus._mosaic_gpu import NotInterpreted, as_if_on_gpu
from tests.conftest import load_prepared

REAL = Path(__file__).parent / "fixtures" / "real" / "jax_0_6_2"
WRITTEN_FOR = Version("0.6.2")
INSTALLED = Version(jax.__version__)


def routes() -> list[str]:
    if INSTALLED == WRITTEN_FOR:
        return ["native"]
    return ["patch", "shim", "migrate"] if INSTALLED > WRITTEN_FOR else []


@pytest.fixture(params=routes())
def route(request: pytest.FixtureRequest) -> Iterator[str]:
    if request.param == "patch":
        pallas_compat.patch()
    try:
        with as_if_on_gpu(GPU_KIND):
            yield request.param
    finally:
        pallas_compat.unpatch()


def load(name: str, route: str, tmp_path: Path) -> ModuleType:
    module: ModuleType = load_prepared(REAL / f"{name}.py", route, tmp_path, str(WRITTEN_FOR))
    return module


def lowers_for_hopper(case: Any, module: ModuleType) -> None:
    text = lowered_text(lambda: case.run(module), "GPU")
    assert "mosaic_gpu" in text, "the lowered program holds no Mosaic GPU kernel"


def test_flash_attention_lowers_for_hopper(route: str, tmp_path: Path) -> None:
    """``plgpu.kernel(out_shape=)`` and ``plgpu.Layout.WGMMA_ROW``: the issue's failures on
    0.11.2 (``Mesh.__init__() got an unexpected keyword argument 'out_shape'``, then ``type
    object 'Layout' has no attribute 'WGMMA_ROW'``)."""
    lowers_for_hopper(attention_case(), load("attention_mgpu", route, tmp_path))


def test_ragged_dot_lowers_and_runs_where_an_interpreter_can(route: str, tmp_path: Path) -> None:
    """``plgpu.nd_loop`` handing an ``NDLoopInfo`` (0.8.0) and ``emit_pipeline(delay_release=)``
    moved into each ``BlockSpec`` (0.7.2)."""
    case = ragged_dot_case()
    module = load("ragged_dot_mgpu", route, tmp_path)
    lowers_for_hopper(case, module)
    try:
        out = np.asarray(case.run(module), dtype=np.float64)
    except NotInterpreted as no:
        assert "force_gpu_interpret_mode" in str(no)  # before 0.11.1: lowering is the check
        return
    np.testing.assert_allclose(out, case.reference(), atol=case.atol)
