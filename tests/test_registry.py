"""The registry: the table's and the scan's derived views, held in one object."""

from __future__ import annotations

import pytest

from pallas_compat.facts import _registry, _table
from pallas_compat.facts._registry import drifted_names
from pallas_compat.facts._table import TPU, Feature, Location

FAKE = Feature(
    "fake_vmem",
    "a fake rename",
    (Location(TPU, "FAKE_VMEM"), Location(TPU, "VMEM")),
    "{new}(shape, dtype)",
    renamed=True,
)


def test_a_new_table_is_seen_with_no_cache_to_clear(monkeypatch: pytest.MonkeyPatch) -> None:
    before = _registry.registry()
    assert f"{TPU}.FAKE_VMEM" not in drifted_names()
    monkeypatch.setattr(_table, "FEATURES", (*_table.FEATURES, FAKE))
    assert _registry.registry() is not before
    assert drifted_names()[f"{TPU}.FAKE_VMEM"].hint == "pltpu.VMEM(shape, dtype)"
    monkeypatch.undo()
    assert f"{TPU}.FAKE_VMEM" not in drifted_names()


def test_the_views_are_built_once_per_table() -> None:
    table = _registry.registry()
    assert _registry.registry() is table and table.drifted_names is table.drifted_names
    assert b"pallas" in table.needles and table.moves == _registry.moves()


def test_reset_follows_an_edit_of_the_scan_in_place() -> None:
    names = _table.release_ranges()["names"]
    key = f"{TPU}:FAKE_GONE"
    names[key] = {"releases": [["0.4.30", "0.4.31"]], "message": None, "moved_to": None}
    try:
        _registry.reset()
        assert f"{TPU}.FAKE_GONE" in drifted_names()
    finally:
        del names[key]
        _registry.reset()
    assert f"{TPU}.FAKE_GONE" not in drifted_names()
