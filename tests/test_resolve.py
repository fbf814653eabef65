from __future__ import annotations

import sys
import types
import warnings
from collections.abc import Iterator

import pytest

import pallas_compat
from pallas_compat import FEATURES, Feature, Location, Resolution, resolve


@pytest.fixture
def fake_module() -> Iterator[types.ModuleType]:
    """A module shaped like a JAX one, with a deprecation table."""
    module = types.ModuleType("fake_pallas_for_tests")
    module.New = object()  # type: ignore[attr-defined]
    module.Old = object()  # type: ignore[attr-defined]
    module._deprecations = {  # type: ignore[attr-defined]
        "Warned": ("Warned is deprecated, use New", module.New),  # type: ignore[attr-defined]
        "Gone": ("Gone was removed; use New", None),
    }
    sys.modules[module.__name__] = module
    yield module
    del sys.modules[module.__name__]


def _feature(*attrs: str) -> Feature:
    return Feature("x", "x", tuple(Location("fake_pallas_for_tests", a) for a in attrs), "hint")


def test_newest_location_wins(fake_module: types.ModuleType) -> None:
    resolved = resolve(_feature("Old", "New"))
    assert resolved.status is Resolution.CURRENT and resolved.obj is fake_module.New


def test_older_public_location_is_legacy(fake_module: types.ModuleType) -> None:
    resolved = resolve(_feature("Old", "Missing"))
    assert resolved.status is Resolution.LEGACY and resolved.obj is fake_module.Old


def test_deprecated_only_when_nothing_better(fake_module: types.ModuleType) -> None:
    assert resolve(_feature("Warned")).status is Resolution.DEPRECATED
    assert resolve(_feature("Old", "Warned")).status is Resolution.LEGACY


def test_removed_and_missing_are_unavailable(fake_module: types.ModuleType) -> None:
    resolved = resolve(_feature("Gone", "Missing"))
    assert resolved.status is Resolution.UNAVAILABLE and resolved.location is None


def test_unimportable_module_is_unavailable() -> None:
    feature = Feature("x", "x", (Location("jax.experimental.pallas.no_such_backend", "X"),), "hint")
    assert resolve(feature).status is Resolution.UNAVAILABLE


def test_resolution_values_are_user_text() -> None:
    assert {r.value for r in Resolution} == {
        "current",
        "legacy",
        "deprecated",
        "private",
        "unavailable",
    }


def test_resolving_the_whole_table_never_warns() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        records = pallas_compat.features()
    assert set(records) == {f.key for f in FEATURES}


def test_resolved_objects_are_the_native_ones() -> None:
    import importlib

    for feature in FEATURES:
        resolved = resolve(feature)
        if resolved.location is None or resolved.status is Resolution.DEPRECATED:
            continue
        module = importlib.import_module(resolved.location.module)
        assert getattr(module, resolved.location.attr) is resolved.obj, feature.key


def test_core_features_resolve_on_every_supported_release() -> None:
    for key in ("pallas_call", "block_spec", "program_id", "when", "cdiv", "ds", "vmem"):
        assert resolve(pallas_compat.FEATURES_BY_KEY[key]).status is not Resolution.UNAVAILABLE, key


def test_live_resolution_agrees_with_the_scanned_first_releases() -> None:
    """``since`` came from scanning every release's sources; the live lookup must agree."""
    import jax
    from packaging.version import Version

    installed = Version(jax.__version__)
    for feature in FEATURES:
        if feature.since is None:
            continue
        status = resolve(feature).status
        if installed >= Version(feature.since):
            assert status not in (Resolution.UNAVAILABLE, Resolution.PRIVATE), feature.key
        else:
            assert status in (Resolution.UNAVAILABLE, Resolution.PRIVATE), feature.key
