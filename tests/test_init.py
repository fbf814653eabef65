from __future__ import annotations

import pallas_compat

#: The public facade; a change here is an API change and must be deliberate.
EXPECTED = {
    "FEATURES",
    "FEATURES_BY_KEY",
    "Feature",
    "Location",
    "MissingFeatureError",
    "PallasCompatError",
    "Resolution",
    "Resolved",
    "__version__",
    "features",
    "resolve",
}


def test_exported_names() -> None:
    assert set(pallas_compat.__all__) == EXPECTED
    for name in EXPECTED:
        assert hasattr(pallas_compat, name), name


def test_errors_are_builtin_subclasses() -> None:
    assert issubclass(pallas_compat.MissingFeatureError, AttributeError)
    assert issubclass(pallas_compat.MissingFeatureError, pallas_compat.PallasCompatError)


def test_features_records_are_plain_data() -> None:
    record = pallas_compat.features()["pallas_call"]
    assert record == {
        "status": "current",
        "resolves_to": "pl.pallas_call",
        "modern": "pl.pallas_call",
    }
