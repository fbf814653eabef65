"""PAL107 enum-member-form: ``plgpu.Layout.WGMMA_ROW`` found with its scanned releases, and
written as ``plgpu.Layout.WGMMA.reduce(1)`` for a target that lacks the member."""

from __future__ import annotations

from pallas_compat.facts import release_ranges
from pallas_compat.lint._finder import uses_in
from pallas_compat.lint._migrate import MARKER, migrate_source

SOURCE = """\
import jax.experimental.pallas.mosaic_gpu as plgpu

row = plgpu.Layout.WGMMA_ROW
col = plgpu.Layout.WGMMA_COL
whole = plgpu.Layout.WGMMA
"""


def test_doctor_gives_the_scanned_releases_and_the_form() -> None:
    uses = [u for u in uses_in("k.py", SOURCE) if u.code == "PAL107"]
    assert [(u.api, u.line) for u in uses] == [
        ("plgpu.Layout.WGMMA_ROW", 3),
        ("plgpu.Layout.WGMMA_COL", 4),
    ]
    members = release_ranges()["members"]
    assert [list(s) for s in uses[0].releases] == members[
        "jax.experimental.pallas.mosaic_gpu:Layout.WGMMA_ROW"
    ]
    assert "plgpu.Layout.WGMMA.reduce(1)" in uses[0].hint


def test_migrate_writes_the_form_where_the_member_is_gone() -> None:
    code = migrate_source(SOURCE, "0.12.0.1")
    assert "row = plgpu.Layout.WGMMA.reduce(1)\n" in code
    assert "col = plgpu.Layout.WGMMA.reduce(0)\n" in code
    assert "whole = plgpu.Layout.WGMMA\n" in code and MARKER not in code


def test_migrate_leaves_the_member_where_the_target_has_it() -> None:
    assert migrate_source(SOURCE, "0.8.3") == SOURCE
