"""A rename JAX makes is one entry in the API-facts table (plus its scanned releases).

A fake rename is added to the table and to ``release_ranges.json``'s scan result, and nothing
else is edited: the shim's namespaces, ``patch()``, ``doctor``, ``migrate`` and the report's
notes must all pick it up. This is how the next real rename lands.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from pathlib import Path

import libcst as cst
import pytest

import pallas_compat
from pallas_compat import _api, _facts, _source
from pallas_compat._errors import PallasCompatError
from pallas_compat._facts import PL, TPU, Feature, Location
from pallas_compat._migrate import migrate_module
from pallas_compat._patch import patch, unpatch
from pallas_compat._resolve import find
from report._guide import ChangeKind, name_change
from report._load import load_snapshot

REPO = Path(__file__).resolve().parent.parent

OLD = Location(TPU, "FAKE_ANY")  # "pltpu.FAKE_ANY, renamed pl.ANY in 0.4.34"
NEW = Location(PL, "ANY")
FAKE = Feature("fake_any", "a fake rename", (OLD, NEW), "pl.ANY", renamed=True)
SOURCE = "from jax.experimental.pallas import tpu as pltpu\nspace = pltpu.FAKE_ANY\n"


def caches() -> None:
    _api.namespace.cache_clear()
    for name in ("pl", "pltpu", "pltriton", "plmgpu", "plgpu"):  # the package caches them too
        vars(pallas_compat).pop(name, None)
    _facts.moves.cache_clear()
    _source.drifted_names.cache_clear()
    _source.needles.cache_clear()


@pytest.fixture
def fake_rename(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(_facts, "FEATURES", (*_facts.FEATURES, FAKE))
    names = _facts.release_ranges()["names"]  # what a rescan would add
    names[f"{OLD.module}:{OLD.attr}"] = {
        "releases": [["0.4.30", "0.4.33"]],
        "message": None,
        "moved_to": None,
    }
    caches()
    try:
        yield
    finally:
        del names[f"{OLD.module}:{OLD.attr}"]
        caches()


def native_any() -> object:
    state, obj = find(NEW)
    return obj if state == "present" else None


def test_the_shim_serves_it(fake_rename: None) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if native_any() is None:
            with pytest.raises(PallasCompatError, match="FAKE_ANY"):
                _api.namespace("pltpu").FAKE_ANY  # noqa: B018
            return
        assert _api.namespace("pltpu").FAKE_ANY is native_any()
    assert any(
        "pltpu.FAKE_ANY" in str(w.message) and "Write: pl.ANY" in str(w.message) for w in caught
    )


def test_patch_installs_it(fake_rename: None) -> None:
    import jax.experimental.pallas.tpu as tpu

    patch()
    try:
        assert getattr(tpu, "FAKE_ANY", None) is native_any()
    finally:
        unpatch()
    assert not hasattr(tpu, "FAKE_ANY")


def test_doctor_and_migrate_follow_it(fake_rename: None) -> None:
    (use,) = _source.find_uses("fake.py", cst.parse_module(SOURCE))
    assert use.api == "pltpu.FAKE_ANY" and use.breaks_on("0.12.0.1") and not use.breaks_on("0.4.30")
    out = migrate_module(cst.parse_module(SOURCE), "0.12.0.1").code
    assert "space = pl.ANY\n" in out and "from jax.experimental import pallas as pl" in out
    assert migrate_module(cst.parse_module(SOURCE), "0.4.30").code == SOURCE


def test_the_upgrade_guide_says_what_to_write(fake_rename: None) -> None:
    newest = load_snapshot(REPO / "reports" / "snapshots" / "jax-0.12.0.1.json")  # has pl.ANY
    change = name_change(OLD.module, OLD.attr, newest, None)
    assert change.kind is ChangeKind.RENAMED and change.instead == "pl.ANY"
    assert change.shim is True and change.migrate is True
