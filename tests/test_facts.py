from __future__ import annotations

from pallas_compat._facts import (
    ALIASES,
    FEATURES,
    FEATURES_BY_KEY,
    PL,
    TPU,
    Location,
    watched_names,
)


def test_keys_are_unique() -> None:
    assert len(FEATURES_BY_KEY) == len(FEATURES)


def test_every_feature_has_a_place_and_a_hint() -> None:
    for feature in FEATURES:
        assert feature.locations, feature.key
        assert feature.hint.strip(), feature.key
        assert feature.modern == feature.locations[-1]


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
