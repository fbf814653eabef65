"""migrate: old-style fixture code rewritten for the installed JAX runs there, float64-checked."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from packaging.version import Version

from pallas_compat.facts._table import installed_jax
from pallas_compat.lint._finder import uses_in
from pallas_compat.lint._migrate import MARKER, Migration, migrate_source
from tests.test_finder import BOUND

FIXTURE = Path(__file__).parent / "fixtures" / "migrate" / "old_kernels.py"
RNG = np.random.default_rng(3)


def migrated_source(target: str) -> str:
    return migrate_source(FIXTURE.read_text(), target)


def load(source: str, tmp_path: Path) -> ModuleType:
    path = tmp_path / "migrated_kernels.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("migrated_kernels", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["migrated_kernels"] = module
    spec.loader.exec_module(module)
    return module


def test_migrated_fixture_runs_on_the_installed_jax(tmp_path: Path) -> None:
    target = installed_jax()
    source = migrated_source(target)
    remaining = [u for u in uses_in("m.py", source) if u.breaks_on(target)]
    kernels = load(source, tmp_path)

    x = RNG.standard_normal(32).astype(np.float32)
    out = np.asarray(kernels.masked_affine(x, n=29), np.float64)
    np.testing.assert_allclose(out[:29], 2.0 * x[:29].astype(np.float64) + 1.0, rtol=1e-6)

    if remaining:
        # Only before 0.4.33, where no CompilerParams class exists to rename to: left marked.
        assert Version(target) < Version("0.4.33")
        assert {u.api for u in remaining} == {"pltpu.TPUCompilerParams"}
        assert source.count(MARKER) == 2
        return
    a = RNG.standard_normal((16, 128)).astype(np.float32)
    b = RNG.standard_normal((16, 128)).astype(np.float32)
    want = a.astype(np.float64) + b.astype(np.float64)
    np.testing.assert_allclose(np.asarray(kernels.add_rows(a, b), np.float64), want, rtol=1e-6)
    np.testing.assert_allclose(
        np.asarray(kernels.scale(a), np.float64), 3.0 * a.astype(np.float64), rtol=1e-6
    )


@pytest.mark.parametrize("target", ["0.4.30", "0.6.2", "0.12.0.1"])
def test_migrate_is_idempotent_and_keeps_comments(target: str) -> None:
    once = migrated_source(target)
    twice = migrate_source(once, target)
    assert twice == once
    assert once.count("# drift:") == FIXTURE.read_text().count("# drift:")


def test_only_what_breaks_or_warns_on_the_target_is_touched() -> None:
    """On 0.6.2 pl.load and pl.store still exist, without a warning (0.7.1-0.8.3 deprecate
    them): they stay. TPUCompilerParams works there with a warning: it moves, like what
    breaks."""
    source = migrated_source("0.6.2")
    assert "pl.load(x_ref" in source and "pallas.store(o_ref" in source
    assert "TPUCompilerParams(" not in source and "f=lambda" not in source
    assert "pltpu.CompilerParams(dimension_semantics=" in source
    assert "pl.load(" not in migrated_source("0.7.1")


def test_nothing_breaking_means_nothing_changes() -> None:
    clean = "import jax.experimental.pallas as pl\n\nx = pl.program_id(0)  # kept\n"
    assert migrate_source(clean, "0.12.0.1") == clean


def test_multi_line_store_value_keeps_parsing() -> None:
    """Found on JAX 0.4.30's own flash_attention.py: a store value broken over lines relied on
    the call's parentheses."""
    source = (
        "from jax.experimental import pallas as pl\n"
        "def k(r, v):\n"
        "    pl.store(r, (pl.ds(0, 8),), pl.load(r, (pl.ds(0, 8),))\n"
        "             + v)\n"
    )
    out = migrate_source(source, "0.12.0.1")
    compile(out, "migrated", "exec")
    assert "r[pl.ds(0, 8)] = (r[pl.ds(0, 8)]\n             + v)" in out


def test_starred_index_stays_a_tuple() -> None:
    """Found on JAX 0.4.30's flash_attention.py: ``pl.load(ref, (*batch_idx, pl.ds(...)))``."""
    source = "from jax.experimental import pallas as pl\nx = pl.load(r, (*b, pl.ds(0, 8)))\n"
    out = migrate_source(source, "0.12.0.1")
    assert "x = r[(*b, pl.ds(0, 8))]" in out


def test_names_jax_moved_follow_the_move() -> None:
    """pltpu.semaphore_signal -> pl.semaphore_signal: JAX's deprecation message names the new
    home and the release scan proved both import one object."""
    source = (
        "from jax.experimental import pallas as pl\n"
        "from jax.experimental.pallas import tpu as pltpu\n"
        "pltpu.semaphore_signal(s, 1)\n"
    )
    out = migrate_source(source, "0.12.0.1")
    assert "\npl.semaphore_signal(s, 1)\n" in out and MARKER not in out


def test_migrate_swaps_only_the_bound_old_order() -> None:
    out = migrate_source(BOUND, "0.12.0.1")
    assert "old_named = pl.BlockSpec(block_shape(8, 128), index_map)" in out
    assert "old_bound = pl.BlockSpec(tile, index_map)" in out
    assert "new_named = pl.BlockSpec(block_shape(8, 128), index_map)" in out
    assert "    return pl.BlockSpec(a, b)\n" in out


def test_dict_params_bound_to_a_variable_convert_when_they_run() -> None:
    """``compiler_params=dict(mosaic=mosaic_params)`` (JAX 0.4.30's splash attention)."""
    source = (
        "from jax.experimental import pallas as pl\n"
        "f = pl.pallas_call(k, out_shape=s, compiler_params=dict(mosaic=mosaic_params))\n"
        "g = pl.pallas_call(k, out_shape=s, compiler_params={'triton': params})\n"
    )
    out = migrate_source(source, "0.12.0.1")
    assert "compiler_params=pltpu.CompilerParams(**mosaic_params))" in out
    assert "compiler_params=pltriton.CompilerParams(**params))" in out
    assert "from jax.experimental.pallas import tpu as pltpu" in out and MARKER not in out


def test_a_note_follows_the_authors_comment_on_a_multi_line_statement() -> None:
    source = (
        "from jax.experimental import pallas as pl\n"
        "y = pl.atomic_add(\n"
        "    x_ref, idx, v, mask=m)  # accumulate the tile\n"
    )
    out = migrate_source(source, "0.4.30")  # nothing to rewrite to
    assert out == source  # works there: untouched
    marked = migrate_source(source.replace("atomic_add", "no_such"), "0.12.0.1")
    assert "# accumulate the tile" in marked


def test_backend_keyword_becomes_the_backends_params() -> None:
    source = (
        "from jax.experimental import pallas as pl\n"
        'a = pl.pallas_call(k, out_shape=s, backend="triton")\n'
        'b = pl.pallas_call(k, out_shape=s, backend="mosaic_tpu", interpret=True)\n'
        "c = pl.pallas_call(k, out_shape=s, backend=which)\n"
    )
    out = migrate_source(source, "0.12.0.1")
    assert "a = pl.pallas_call(k, out_shape=s, compiler_params=pltriton.CompilerParams())\n" in out
    assert "b = pl.pallas_call(k, out_shape=s, interpret=True)\n" in out
    assert "backend=which)  # pallas-compat: pallas_call(backend=...) is not taken" in out
    assert migrate_source(source, "0.6.2") == source
    (use,) = [u for u in uses_in("b.py", source) if u.line == 2]
    assert use.api == "pallas_call(backend=...)" and use.breaks_on("0.12.0.1")
    assert not use.breaks_on("0.6.2") and use.breaks_on("0.4.30")


def test_a_load_of_a_scalar_ref_keeps_its_empty_index() -> None:
    """``pl.load(start_idx_ref, ())`` (JAX 0.6.2's decode attention) -> ``start_idx_ref[()]``."""
    source = "from jax.experimental import pallas as pl\nx = pl.load(start_idx_ref, ())\n"
    out = migrate_source(source, "0.12.0.1")
    assert "x = start_idx_ref[()]\n" in out


def test_a_masked_view_with_a_static_block_becomes_index_arrays() -> None:
    """JAX 0.9.2's own softmax: ``plgpu.load(x_ref.at[pl.ds(0, block)], mask=...)``, which
    JAX 0.12 refuses when the block overhangs the row; a dynamic start is never checked."""
    source = (
        "from jax.experimental import pallas as pl\n"
        "from jax.experimental.pallas import triton as plgpu\n"
        "a = plgpu.load(x_ref.at[pl.ds(0, block)], mask=m, other=0.0)\n"
        "plgpu.store(o_ref.at[pl.ds(0, block)], a, mask=m)\n"
        "b = plgpu.load(x_ref.at[pl.ds(i * block, block)], mask=m)\n"
        "c = plgpu.load(x_ref.at[pl.ds(0, block)])\n"
    )
    out = migrate_source(source, "0.12.0.1")
    assert "a = plgpu.load(x_ref.at[jnp.arange(block)], mask=m, other=0.0)\n" in out
    assert "plgpu.store(o_ref.at[jnp.arange(block)], a, mask=m)\n" in out
    assert "b = plgpu.load(x_ref.at[pl.ds(i * block, block)], mask=m)\n" in out
    assert "c = plgpu.load(x_ref.at[pl.ds(0, block)])\n" in out
    assert migrate_source(out, "0.12.0.1") == out


def test_a_renamed_keyword_takes_the_spelling_the_target_has_either_way() -> None:
    """``plgpu.kernel(out_type=, scratch_types=)`` (0.10.2 on) written back for 0.7.1, which
    spells them ``out_shape=`` and ``scratch_shapes=``; and forward again."""
    new = (
        "from jax.experimental.pallas import mosaic_gpu as plgpu\n"
        "y = plgpu.kernel(k, out_type=s, scratch_types=[b])(x)\n"
    )
    old = new.replace("out_type", "out_shape").replace("scratch_types", "scratch_shapes")
    assert migrate_source(new, "0.7.1") == old
    assert migrate_source(old, "0.12.0.1") == new


REAL = Path(__file__).parent / "fixtures" / "real"
TARGETS = ("0.4.35", "0.6.2", "0.9.2", "0.12.0.1")


@pytest.mark.parametrize(
    "kernel",
    ["jax_0_4_30/flash_attention.py", "jax_0_4_30/gmm.py", "jax_0_4_30/rms_norm.py", FIXTURE.name],
)
def test_one_migration_for_several_targets_gives_what_each_would_alone(kernel: str) -> None:
    """A ``Migration`` keeps only what depends on the module alone between targets (the
    reading and its findings): each target, in any order, gets the rewrite it gets alone."""
    path = FIXTURE if kernel == FIXTURE.name else REAL / kernel
    source = path.read_text()
    alone = {t: migrate_source(source, t) for t in TARGETS}
    assert len(set(alone.values())) > 1  # the targets differ here: the check means something
    migration = Migration(source)
    for target in (*reversed(TARGETS), *TARGETS):
        assert migration.code(target) == alone[target], target


@pytest.fixture
def readings(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Every scope analysis (the start of a reading of a file) made while the test runs."""
    from pallas_compat.rules._scopes import Scopes

    runs: list[object] = []
    init = Scopes.__init__

    def counted(self: Scopes, *args: Any, **kwargs: Any) -> None:
        runs.append(self)
        init(self, *args, **kwargs)

    monkeypatch.setattr(Scopes, "__init__", counted)
    return runs


def test_a_file_is_read_once_for_all_targets(readings: list[object]) -> None:
    migration = Migration((REAL / "jax_0_4_30" / "gmm.py").read_text())
    for target in TARGETS:
        migration.code(target)
    assert len(readings) == 1
