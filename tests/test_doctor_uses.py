"""kernels.corpus._doctor_uses: the migrate route leaves alone what migrate would leave alone."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest

from kernels.corpus import _doctor_uses, _package
from pallas_compat import _migrate
from pallas_compat._source import find_uses

REAL = sorted((Path(__file__).parent / "fixtures" / "real").rglob("*.py"))
#: One release of each era of the shim: dict params only, TPUCompilerParams, the newest.
TARGETS = ("0.4.38", "0.6.2", "0.12.0.1")


def test_a_file_with_nothing_to_migrate_is_one_migrate_gives_back_unchanged() -> None:
    texts = {path.name: path.read_text() for path in REAL}
    pairs = [(name, target) for name in texts for target in TARGETS]
    skipped = [(n, t) for n, t in pairs if _doctor_uses.nothing_to_migrate(texts[n], t)]
    assert 0 < len(skipped) < len(pairs)  # JAX's own kernels: some of each
    for name, target in skipped:
        migrated = _migrate.migrate_module(cst.parse_module(texts[name]), target).code
        assert migrated == texts[name], f"{name}: migrate rewrote for {target} a file doctor passed"


def test_the_migrate_route_does_not_run_libcst_on_such_a_file(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    quiet = (
        "from jax.experimental import pallas as pl\n\nspec = pl.BlockSpec((8,), lambda i: (i,))\n"
    )
    monkeypatch.setattr(_migrate, "migrate_module", lambda *a: pytest.fail("libcst ran"))
    assert _package.migrated(quiet, "0.12.0.1") == quiet


def test_a_file_that_breaks_on_the_target_is_migrated() -> None:
    old = "from jax.experimental import pallas as pl\n\ndef k(x_ref):\n    return pl.load(x_ref, ())\n"
    assert not _doctor_uses.nothing_to_migrate(old, "0.12.0.1")
    assert _doctor_uses.nothing_to_migrate(old, "0.4.38")  # pl.load still works there
    assert "pl.load" not in _package.migrated(old, "0.12.0.1")


def test_uses_come_back_as_doctor_finds_them() -> None:
    text = REAL[0].read_text()
    assert _doctor_uses.uses_in(text) == find_uses("", cst.parse_module(text))
