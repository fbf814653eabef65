"""Where each feature of the shared API-facts table resolves, and how every candidate stands."""

from __future__ import annotations

import functools
from typing import Any

from pallas_compat import FEATURES, Feature, resolve
from pallas_compat._resolve import deprecation_table, import_optional
from probes._registry import Probe


def candidate_state(module_name: str, attr: str) -> str:
    module = import_optional(module_name)
    if module is None:
        return "module does not import"
    entry = deprecation_table(module).get(attr)
    if entry is not None:
        return "removed" if entry[1] is None else "deprecated"
    return "present" if attr in vars(module) or attr in getattr(module, "__all__", ()) else "absent"


def feature_record(feature: Feature) -> dict[str, Any]:
    record = resolve(feature).as_record()
    record["candidates"] = {
        loc.spelling: candidate_state(loc.module, loc.attr) for loc in feature.locations
    }
    return record


def probes() -> list[Probe]:
    return [Probe(f"features.{f.key}", functools.partial(feature_record, f)) for f in FEATURES]
