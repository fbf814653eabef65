"""pallas_compat.shim._mosaic_gpu: the Mosaic GPU drift the shim absorbs, on every release.

Which release has what comes from the release scan (``release_ranges.json``), not from the
code under test. The kernels themselves run in the corpus (``kernels/corpus/
_cases_mosaic_gpu.py``: JAX 0.4.36's, 0.6.2's and 0.9.2's on every newer release).
"""

from __future__ import annotations

import dataclasses
import types
from typing import Any

import pytest

import pallas_compat
from pallas_compat.facts import release_ranges, works_in
from pallas_compat.shim import _mosaic_gpu
from tests.conftest import installed_jax

MGPU = "jax.experimental.pallas.mosaic_gpu"
HERE = str(installed_jax())


def scanned(kind: str, key: str) -> bool:
    """Is ``key`` (``names``/``locations``/``members``/``keywords``) in the installed release?"""
    table = release_ranges()[kind]
    if kind == "keywords":
        callable_key, _, word = key.rpartition(".")
        spans = table.get(callable_key, {}).get(word, [])
    else:
        entry = table.get(key, [])
        spans = entry["releases"] if isinstance(entry, dict) else entry
    return works_in(spans, HERE)


def has(name: str) -> bool:
    """Is ``plgpu.name`` in the installed release? Where not, the shim must say so (a
    ``PallasCompatError``) or serve it: a test that needs the native name checks that first."""
    key = f"{MGPU}:{name}"
    return scanned("names", key) or scanned("locations", key)


def native_or_refused(name: str) -> bool:
    """True where JAX has ``plgpu.name``; where it has not, the shim's refusal is checked."""
    if has(name):
        return True
    with pytest.raises((pallas_compat.PallasCompatError, ImportError)):
        getattr(plgpu, name)
    return False


plgpu = pallas_compat.plgpu


# -- members replaced by forms


def test_layout_rows_are_served_natively_or_as_their_form() -> None:
    if not native_or_refused("Layout"):
        return
    import jax.experimental.pallas.mosaic_gpu as native

    if scanned("members", f"{MGPU}:Layout.WGMMA_ROW"):
        assert plgpu.Layout.WGMMA_ROW is native.Layout.WGMMA_ROW
    else:  # 0.9.2 on: the form 0.7.0 introduced
        row, col = plgpu.Layout.WGMMA_ROW, plgpu.Layout.WGMMA_COL
        assert row == native.Layout.WGMMA.reduce(1)
        assert col == native.Layout.WGMMA.reduce(0)
    assert plgpu.Layout.WGMMA is native.Layout.WGMMA


def test_a_form_must_be_member_method_constants() -> None:
    with pytest.raises(ValueError, match=r"not a MEMBER\.method"):
        _mosaic_gpu.form_of(object(), "reduce(1)")


# -- what nd_loop hands its body


@dataclasses.dataclass(frozen=True)
class Info:
    index: tuple[int, ...]
    local_index: int
    num_local_steps: int


def test_a_loop_index_unpacks_and_reads_as_the_info() -> None:
    step = _mosaic_gpu.LoopIndex.of(Info((3, 4), 1, 2))
    mi, ni = step
    assert (mi, ni, step[1], len(step)) == (3, 4, 4, 2)
    assert step.index == (3, 4) and step.local_index == 1 and step.num_local_steps == 2


def test_the_loop_hands_every_body_a_loop_index() -> None:
    seen: list[Any] = []

    def native(grid: tuple[int, ...], *, collective_axes: str) -> Any:
        def decorate(body: Any) -> Any:
            return body(Info((0, 1), 0, 1), carry=5)

        return decorate

    loop = _mosaic_gpu.index_or_info_loop(native)

    @loop((2, 2), collective_axes="sm")
    def old(idx: Any, carry: int) -> int:
        a, b = idx
        seen.append((a, b, idx.index, carry))
        return carry + 1

    assert old == 6 and seen == [(0, 1, (0, 1), 5)]


def test_nd_loop_is_wrapped_exactly_where_jax_hands_an_info() -> None:
    if not native_or_refused("nd_loop"):
        return
    import jax.experimental.pallas.mosaic_gpu as native

    wrapped = plgpu.nd_loop is not native.nd_loop
    assert wrapped == has("NDLoopInfo")


# -- keywords JAX moved


def test_delay_release_goes_to_every_input() -> None:
    @dataclasses.dataclass(frozen=True)
    class Spec:
        shape: tuple[int, ...]
        delay_release: int = 0

    got: dict[str, Any] = {}
    pipeline = _mosaic_gpu.delay_release_per_input(lambda body, **kw: got.update(kw))
    pipeline(None, in_specs=[Spec((1,)), Spec((2,))], delay_release=1, grid=(4,))
    assert got == {"in_specs": [Spec((1,), 1), Spec((2,), 1)], "grid": (4,)}
    pipeline(None, in_specs=(Spec((1,)),))
    assert got["in_specs"] == (Spec((1,)),)


def test_emit_pipeline_takes_delay_release_on_every_release() -> None:
    if not native_or_refused("emit_pipeline"):
        return
    import inspect

    import jax.experimental.pallas.mosaic_gpu as native

    native_takes = "delay_release" in inspect.signature(native.emit_pipeline).parameters
    assert native_takes == scanned("keywords", f"{MGPU}:emit_pipeline.delay_release")
    assert (plgpu.emit_pipeline is native.emit_pipeline) == native_takes


def test_partitioned_axis_becomes_leader_tracked() -> None:
    if not native_or_refused("CopyPartition"):
        return
    got: dict[str, Any] = {}
    copy = _mosaic_gpu.partitioned_axis_as_leader_tracked(lambda *a, **kw: got.update(kw))
    copy("src", "dst", partitioned_axis=1, collective_axes="x")
    assert got == {"leader_tracked": plgpu.CopyPartition.PARTITIONED(1), "collective_axes": "x"}
    got.clear()
    copy("src", "dst", partitioned_axis=None)
    assert got == {}


def test_barrier_takes_both_spellings_of_the_tensor_core_order() -> None:
    spellings = ("for_tensor_core", "orders_tensor_core")
    if not native_or_refused("Barrier"):
        return
    if not any(scanned("keywords", f"{MGPU}:Barrier.{s}") for s in spellings):
        with pytest.raises(TypeError):  # 0.4.35-0.6.0: no tensor core to order
            plgpu.Barrier(num_arrivals=1, orders_tensor_core=True)
        return
    for spelling in spellings:
        barrier = plgpu.Barrier(num_arrivals=1, **{spelling: True})
        fields = {f.name: getattr(barrier, f.name) for f in dataclasses.fields(barrier)}
        assert True in (fields.get("for_tensor_core"), fields.get("orders_tensor_core"))


# -- GPUMesh as a Mesh


def test_gpu_mesh_is_the_mesh_of_its_axis_names() -> None:
    if not (has("GPUMesh") or native_or_refused("Mesh")):
        return
    mesh = plgpu.GPUMesh(grid=(2, 3), num_threads=3, axis_names=("x", "y", "wg"))
    if has("GPUMesh"):
        assert (mesh.grid, mesh.axis_names) == ((2, 3), ("x", "y", "wg"))
        return
    assert (mesh.grid, mesh.grid_names, mesh.num_threads, mesh.thread_name) == (
        (2, 3),
        ("x", "y"),
        3,
        "wg",
    )
    assert plgpu.GPUMesh((4,), (), None, ("i",)).grid_names == ("i",)
    with pytest.raises(ValueError, match="as many axis names"):
        plgpu.GPUMesh(grid=(2,), num_threads=1, axis_names=("x",))


def test_approx_math_on_the_mesh_reaches_the_core_maps_compiler_params() -> None:
    """``plgpu.GPUMesh(approx_math=True)`` (0.4.36-0.4.38, scanned) where the mesh no longer
    takes it: the mesh carries it, and ``pl.core_map(mesh)`` hands JAX compiler params with it,
    as JAX's own kernels write it from 0.5.0."""
    if not (has("GPUMesh") or native_or_refused("Mesh")):
        return
    mesh = plgpu.GPUMesh(grid=(2,), num_threads=1, axis_names=("x", "wg"), approx_math=True)
    if scanned("keywords", f"{MGPU}:GPUMesh.approx_math"):
        assert mesh.approx_math is True  # JAX's own mesh takes it
        return
    assert getattr(mesh, _mosaic_gpu.CARRIED) == {"approx_math": True}
    given: dict[str, Any] = {}
    params = pallas_compat.plmgpu.CompilerParams
    core_map = _mosaic_gpu.core_map_with_carried(lambda m, **kw: given.update(kw), lambda: params)
    core_map(mesh)
    assert given["compiler_params"] == params(approx_math=True)
    core_map(mesh, compiler_params=params(max_concurrent_steps=3))
    assert given["compiler_params"] == params(max_concurrent_steps=3, approx_math=True)


def test_a_stand_in_mesh_class_gets_the_split_names() -> None:
    made = _mosaic_gpu.mesh_from_axis_names(types.SimpleNamespace)(
        grid=(2,), num_threads=None, axis_names=("x",)
    )
    assert vars(made) == {
        "grid": (2,),
        "grid_names": ("x",),
        "cluster": (),
        "num_threads": None,
        "thread_name": None,
    }


def test_a_barrier_takes_its_old_positions_as_keywords() -> None:
    """``plgpu.Barrier(1, num_barriers=2)``: JAX 0.6.2 made ``Barrier`` keyword-only (the scan
    reads its ``kw_only`` dataclass); through the shim, and after ``patch()``, the position
    still means ``num_arrivals`` on every release that has a Barrier."""
    if not native_or_refused("Barrier"):
        return
    assert plgpu.Barrier(1, num_barriers=2).num_arrivals == 1
    from jax.experimental.pallas import mosaic_gpu as native

    pallas_compat.patch()
    try:
        assert native.Barrier(3, num_barriers=2).num_arrivals == 3
    finally:
        pallas_compat.unpatch()
