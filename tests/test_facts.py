from __future__ import annotations

from pathlib import Path

import pytest

from pallas_compat.facts._table import (
    ALIASES,
    FEATURES,
    FEATURES_BY_KEY,
    PL,
    TPU,
    Feature,
    Location,
    watched_names,
)


def test_keys_are_unique() -> None:
    assert len(FEATURES_BY_KEY) == len(FEATURES)


def test_every_feature_has_a_place_and_a_hint() -> None:
    for feature in FEATURES:
        assert feature.locations, feature.key
        assert feature.hint.strip() and "{" not in feature.hint, feature.key


def test_the_advice_of_a_rename_follows_its_newest_spelling() -> None:
    """A renamed feature's advice is made from its last location, never retyped: a rename
    (a new last location) then reaches doctor, migrate's notes and the report at once."""
    for feature in FEATURES:
        if feature.renamed:
            assert "{new" in feature.write, feature.key


def test_locations_are_module_colon_attr() -> None:
    for feature in FEATURES:
        for loc in feature.locations:
            assert loc.module.startswith("jax"), loc
            assert loc.attr.isidentifier(), loc


def test_spelling_uses_the_usual_aliases() -> None:
    assert Location.parse(f"{TPU}:CompilerParams").spelling == "pltpu.CompilerParams"
    assert (
        Location.parse("jax._src.pallas.core:GridSpec").spelling == "jax._src.pallas.core.GridSpec"
    )
    assert set(ALIASES.values()) == {"pl", "pltpu", "pltriton", "plgpu"}


def test_private_locations_are_recognised() -> None:
    assert Location.parse("jax._src.pallas.mosaic.interpret:InterpretParams").private
    assert not Location.parse(f"{TPU}:InterpretParams").private


def test_renames_are_ordered_oldest_to_newest() -> None:
    tpu_params = FEATURES_BY_KEY["tpu_compiler_params"]
    assert [loc.attr for loc in tpu_params.locations] == ["TPUCompilerParams", "CompilerParams"]
    assert FEATURES_BY_KEY["tpu_simulator"].modern.spelling == "pltpu.InterpretParams"


def test_watch_list_covers_the_old_names_of_old_tutorials() -> None:
    watched = watched_names()
    assert {"load", "store", "swap", "dot", "InterpretParams"} <= watched[PL]
    assert {"TPUCompilerParams", "TPUMemorySpace", "InterpretParams"} <= watched[TPU]
    assert all(not module.startswith("jax._src") for module in watched)


def test_the_public_facts_module_exports_what_it_lists() -> None:
    """The exported-name inventory of ``pallas_compat.facts``: every listed name exists, once,
    and nothing public is left out of it."""
    from pallas_compat import facts

    assert len(facts.__all__) == len(set(facts.__all__))
    assert all(hasattr(facts, name) for name in facts.__all__)
    public = {n for n in vars(facts) if not n.startswith("_") and n != "annotations"}
    assert public == set(facts.__all__)


def test_probes_report_kernels_and_scripts_read_the_table_through_the_public_module() -> None:
    """They peek into no private module of the facts (``pallas_compat.facts._table``, ...),
    and ask the installed JAX through the facade (``pallas_compat.find``), not the shim's
    resolver. The two scripts that regenerate the shim's own data read its fills: they
    measure (``measure_served.py``) and describe (``write_stubs.py``) the shim itself."""
    import re

    private = re.compile(
        r"from pallas_compat(\.facts\._\w+|\.facts import _\w+|\.shim\._(fills|resolve))\b"
    )
    root = Path(__file__).resolve().parent.parent
    harness = [root / "common.py", root / "noxfile.py"]
    for folder in ("probes", "report", "kernels", "scripts", "benchmarks"):
        harness += sorted((root / folder).rglob("*.py"))
    found = [str(p.relative_to(root)) for p in harness if private.search(p.read_text())]
    assert found == ["scripts/measure_served.py"]  # served_names: the fills it looks up


def test_features_and_moves_reads_the_table_at_call_time(monkeypatch: pytest.MonkeyPatch) -> None:
    from pallas_compat import facts
    from pallas_compat.facts import _table

    extra = Feature("extra", "a fake feature", (Location(PL, "EXTRA"),), "pl.EXTRA")
    monkeypatch.setattr(_table, "FEATURES", (*_table.FEATURES, extra))
    assert extra in facts.features_and_moves()
