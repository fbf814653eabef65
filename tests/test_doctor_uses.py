"""kernels.corpus._doctor_uses: the migrate route leaves alone only what migrate leaves alone."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from kernels.corpus import _doctor_uses, _memo, _package
from pallas_compat.lint import _migrate
from pallas_compat.lint._finder import uses_in

REAL = Path(__file__).parent / "fixtures" / "real"
#: One release of each era of the shim: dict params only, TPUCompilerParams, the newest.
TARGETS = ("0.4.38", "0.6.2", "0.12.0.1")


@pytest.mark.parametrize("path", sorted((REAL / "jax_0_4_30_plain").glob("*.py")), ids=str)
def test_a_real_kernel_with_no_use_is_one_migrate_gives_back(path: Path) -> None:
    text = path.read_text()
    assert "pallas" in text and _doctor_uses.nothing_to_migrate(text)
    for target in TARGETS:
        assert _migrate.migrate_source(text, target) == text, target


@pytest.fixture
def memo(tmp_path: Path) -> Iterator[None]:
    _memo.use_folder(tmp_path)
    yield
    _memo.use_folder(None)


def test_the_migrate_route_does_not_migrate_such_a_file_doctor_checked(
    monkeypatch: pytest.MonkeyPatch, memo: None
) -> None:
    text = (REAL / "jax_0_4_30_plain" / "example_kernel.py").read_text()
    assert not _doctor_uses.uses_in(text)  # a doctor check found none, and they are kept
    monkeypatch.setattr(_migrate, "Migration", lambda *a, **k: pytest.fail("migrate ran"))
    assert _package.migrated(text, list(TARGETS)) == dict.fromkeys(TARGETS, text)


def test_uses_not_kept_are_not_looked_for_and_one_walk_serves_every_target(
    monkeypatch: pytest.MonkeyPatch, memo: None
) -> None:
    text = (REAL / "jax_0_4_30_plain" / "example_kernel.py").read_text()
    monkeypatch.setattr(_doctor_uses, "uses_in", lambda *a: pytest.fail("doctor ran"))
    walks = []
    made_for = _migrate.Migration.made_for
    monkeypatch.setattr(
        _migrate.Migration, "made_for", lambda self, t: walks.append(t) or made_for(self, t)
    )
    assert _package.migrated(text, list(TARGETS)) == dict.fromkeys(TARGETS, text)
    assert len(walks) == 1


MODERNIZED = """\
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

spec = pl.BlockSpec(memory_space=pltpu.TPUMemorySpace.ANY)
"""
MASKED = """\
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton


def kernel(x_ref, o_ref):
    row = pltriton.load(x_ref.at[pl.ds(0, 128)], mask=jnp.arange(128) < 100, other=0.0)
"""


@pytest.mark.parametrize(("text", "target"), [(MODERNIZED, "0.4.35"), (MASKED, "0.12.0.1")])
def test_a_file_whose_uses_all_work_is_still_migrated(text: str, target: str) -> None:
    # each use works on the target, and migrate still rewrites it: the newest spelling, and a
    # masked pl.ds read as index arrays (a 0.9.2 softmax overhanging its row needs that on 0.12)
    uses = _doctor_uses.uses_in(text)
    assert uses and all(not use.breaks_on(target) for use in uses)
    assert not _doctor_uses.nothing_to_migrate(text)
    assert _package.migrated(text, [target]) != {target: text}


def test_uses_come_back_as_doctor_finds_them() -> None:
    text = (REAL / "jax_0_4_30" / "softmax.py").read_text()
    assert _doctor_uses.uses_in(text) == uses_in("", text)
