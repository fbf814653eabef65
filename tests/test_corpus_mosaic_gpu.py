"""kernels/corpus/_mosaic_gpu.py and _cases_mosaic_gpu.py: JAX's Mosaic GPU kernels as corpus
cases on a machine without a GPU, and what the committed corpus says of them."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import jax
import numpy as np
import pytest

from kernels._compile import GPU_KIND
from kernels.corpus._cases import cases
from kernels.corpus._compiles import interpret_off
from kernels.corpus._mosaic_gpu import CUDA_RUNTIME, NotInterpreted, as_if_on_gpu, interpreter
from pallas_compat.facts import release_ranges, works_in
from report._corpus import validated

REPO = Path(__file__).resolve().parents[1]
MOSAIC_GPU = [case for case in cases() if case.mosaic_gpu]
HAS_INTERPRETER = works_in(
    release_ranges()["names"]["jax.experimental.pallas.mosaic_gpu:force_gpu_interpret_mode"][
        "releases"
    ],
    jax.__version__,
)


def test_the_gpu_is_stood_in_while_a_case_runs_and_put_back() -> None:
    import jax.extend.backend as backend
    from jax._src import lib

    def places() -> tuple[object, ...]:  # get_default_device came in 0.4.36
        return (lib.cuda_versions, getattr(backend, "get_default_device", None), jax.devices)

    before = places()
    with as_if_on_gpu(GPU_KIND):
        assert jax.devices()[0].core_count == 132
        assert jax.devices()[0].platform == "cpu"  # everything else is the real device's
        if before[1] is not None:
            assert backend.get_default_device().device_kind == GPU_KIND
        if before[0] is None:
            assert lib.cuda_versions.cuda_runtime_get_version() == CUDA_RUNTIME
    assert places() == before


def test_a_call_lowered_for_the_gpu_enters_no_interpreter() -> None:
    why = "the interpreter cannot run a wgmma pipeline"
    with pytest.raises(NotInterpreted):  # interpreted: the case's reason (or the release) stops it
        interpreter(why)
    with interpret_off():  # lowered: nothing stops it, and nothing is forced into the interpreter
        assert isinstance(interpreter(why), contextlib.nullcontext)


def test_where_no_interpreter_runs_the_case_says_why() -> None:
    if not HAS_INTERPRETER:
        with pytest.raises(NotInterpreted, match=r"force_gpu_interpret_mode: JAX 0\.11\.1 on"):
            interpreter(None)
        return
    with pytest.raises(NotInterpreted, match="wgmma"):
        interpreter("the interpreter cannot run a wgmma pipeline")
    with interpreter(None):
        pass


def test_every_case_is_named_for_mosaic_gpu_and_states_its_precision() -> None:
    assert len(MOSAIC_GPU) == 6
    for case in MOSAIC_GPU:
        assert "Mosaic GPU" in case.name and case.file.endswith("_mgpu.py")
        assert case.atol > 0 and case.reference().dtype == np.float64
        assert case.hardware == "GPU"


def committed() -> dict[str, dict[str, object]]:
    found = {}
    for path in sorted((REPO / "reports" / "corpus").glob("jax-*.json")):
        document = json.loads(path.read_text())
        found[document["jax"]] = document
    return found


@pytest.mark.any_release
def test_every_shipped_mosaic_gpu_kernel_is_validated_on_its_own_release() -> None:
    """Each release of the corpus that shipped a case's file ran it natively, and it held:
    in the interpreter, or lowered for its GPU where no interpreter of the release runs it."""
    ops = {c.name for c in MOSAIC_GPU}
    results = committed()
    native = [
        r
        for release, document in results.items()
        for r in document["results"]  # type: ignore[attr-defined]
        if r["kernel"] in ops and r["route"] == "native" and r["from"] == release
    ]
    assert {r["from"] for r in native} >= {"0.4.36", "0.6.2", "0.9.2", "0.12.0.1"}
    assert len(native) >= 15
    assert [r for r in native if not validated(r)] == []


@pytest.mark.any_release
@pytest.mark.parametrize("release", ["0.11.2", "0.12.0.1"])
def test_jax_0_6_2s_attention_runs_on_newer_jax_by_every_route(release: str) -> None:
    """The issue's measure: JAX 0.6.2's Hopper flash attention, which fails as it is on
    0.11.2, lowers for an H100 by patch, the shim's imports and migrate."""
    records = [
        r
        for r in committed()[release]["results"]  # type: ignore[index]
        if r["from"] == "0.6.2" and r["kernel"] == "Mosaic GPU flash attention forward (float16)"
    ]
    by_route = {r["route"]: r for r in records}
    assert set(by_route) == {"patch", "shim", "migrate"}
    for record in by_route.values():
        assert record["status"] in ("works", "lowered only"), record
        assert record["lowered"]["status"] == "lowers", record
