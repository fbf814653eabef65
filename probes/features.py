"""Where each feature of the shared API-facts table resolves, and how every candidate stands."""

from __future__ import annotations

import functools
from typing import Any

from pallas_compat import FEATURES, Feature, find, resolve
from probes._registry import Probe


def feature_record(feature: Feature) -> dict[str, Any]:
    """Where one feature of the API-facts table resolves, and how each candidate stands."""
    record = resolve(feature).as_record()
    record["candidates"] = {loc.spelling: find(loc)[0] for loc in feature.locations}
    return record


def probes() -> list[Probe]:
    return [Probe(f"features.{f.key}", functools.partial(feature_record, f)) for f in FEATURES]
