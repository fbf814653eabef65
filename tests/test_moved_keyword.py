"""PAL211 moved-keyword: ``plgpu.emit_pipeline(delay_release=)`` into each input's
``BlockSpec`` and ``plgpu.copy_gmem_to_smem(partitioned_axis=)`` as ``leader_tracked=``,
where the source shows every piece; a note where it does not."""

from __future__ import annotations

from pallas_compat.lint._finder import uses_in
from pallas_compat.lint._migrate import MARKER, migrate_source

SOURCE = """\
from jax.experimental.pallas import mosaic_gpu as plgpu


def body(lhs, rhs, specs, barrier, collective):
    plgpu.emit_pipeline(
        compute,
        grid=(4,),
        in_specs=[
            plgpu.BlockSpec((64, 64), lambda k: (0, k)),
            plgpu.BlockSpec((64, 64), lambda k: (k, 0)),
        ],
        max_concurrent_steps=2,
        delay_release=1,
    )(lhs, rhs)
    plgpu.emit_pipeline(compute, grid=(4,), in_specs=specs, delay_release=1)(lhs)
    plgpu.copy_gmem_to_smem(lhs, rhs, barrier, partitioned_axis=0 if collective else None)
    plgpu.copy_gmem_to_smem(lhs, rhs, barrier, partitioned_axis=1)
    plgpu.copy_gmem_to_smem(lhs, rhs, barrier, partitioned_axis=None)
"""


def migrated(target: str) -> str:
    return migrate_source(SOURCE, target)


def test_doctor_names_each_move_with_its_releases() -> None:
    uses = [u for u in uses_in("k.py", SOURCE) if u.code == "PAL211"]
    apis = [u.api for u in uses]
    assert apis.count("plgpu.emit_pipeline(delay_release=...)") == 2
    assert apis.count("plgpu.copy_gmem_to_smem(partitioned_axis=...)") == 3
    assert uses[0].state_on("0.7.1").value == "works" and uses[0].state_on("0.7.2").value != "works"
    assert "delay_release=n" in uses[0].hint


def test_a_literal_spec_list_takes_the_keyword_each() -> None:
    code = migrated("0.12.0.1")
    assert "plgpu.BlockSpec((64, 64), lambda k: (0, k), delay_release=1)," in code
    assert "plgpu.BlockSpec((64, 64), lambda k: (k, 0), delay_release=1)," in code
    assert "        max_concurrent_steps=2,\n    )(lhs, rhs)" in code


def test_a_spec_list_it_cannot_see_is_noted() -> None:
    code = migrated("0.12.0.1")
    line = next(x for x in code.splitlines() if "in_specs=specs" in x)
    assert "delay_release=1" in line and MARKER in line


def test_partitioned_axis_becomes_a_copy_partition() -> None:
    code = migrated("0.12.0.1")
    assert "leader_tracked=plgpu.CopyPartition.PARTITIONED(0) if collective else None)" in code
    assert "barrier, leader_tracked=plgpu.CopyPartition.PARTITIONED(1))" in code
    assert "plgpu.copy_gmem_to_smem(lhs, rhs, barrier)\n" in code


def test_a_target_that_takes_the_old_keywords_is_left_alone() -> None:
    assert migrated("0.6.2") == SOURCE


def test_a_target_between_the_two_places_is_noted() -> None:
    """0.7.2 has no ``emit_pipeline(delay_release=)`` but BlockSpec takes it; the copy keeps
    ``partitioned_axis`` until 0.9.1."""
    code = migrated("0.8.3")
    assert "lambda k: (0, k), delay_release=1)" in code
    assert "partitioned_axis=0 if collective else None" in code
