"""PAL108 function-to-method: ``plgpu.transpose_ref(ref, perm)`` written ``ref.transpose(perm)``
where the target deprecates the function, left where it does not."""

from __future__ import annotations

from pallas_compat.facts import release_ranges
from pallas_compat.lint._finder import uses_in
from pallas_compat.lint._migrate import MARKER, migrate_source

SOURCE = """\
from jax.experimental.pallas import mosaic_gpu as plgpu


def compute(acc, q, k, slot):
    plgpu.wgmma(acc, q, plgpu.transpose_ref(k.at[slot], (1, 0)))
    plgpu.wgmma(acc, q, plgpu.transpose_ref(k[0] if slot else k[1], (1, 0)))
"""
KEY = "jax.experimental.pallas.mosaic_gpu:transpose_ref"


def test_doctor_names_the_deprecation() -> None:
    uses = [u for u in uses_in("k.py", SOURCE) if u.code == "PAL108"]
    assert [u.line for u in uses] == [5, 6]
    deprecated = release_ranges()["deprecated"][KEY]
    assert uses[0].state_on(deprecated[0][0]).value == "works with a warning"
    assert "ref.transpose" in uses[0].hint


def test_migrate_writes_the_method_where_the_function_is_deprecated() -> None:
    code = migrate_source(SOURCE, "0.12.0.1")
    assert "plgpu.wgmma(acc, q, k.at[slot].transpose((1, 0)))" in code
    assert "plgpu.wgmma(acc, q, (k[0] if slot else k[1]).transpose((1, 0)))" in code
    assert MARKER not in code


def test_a_target_that_has_the_function_quietly_keeps_it() -> None:
    assert migrate_source(SOURCE, "0.9.2") == SOURCE
