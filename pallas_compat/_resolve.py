"""Find where each API-facts feature lives in the installed JAX, by looking, not by version."""

from __future__ import annotations

import enum
import importlib
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from pallas_compat._facts import FEATURES, Feature, Location


class Resolution(str, enum.Enum):
    """How a feature resolved; values are the text people read."""

    CURRENT = "current"
    """The newest spelling in the table."""
    LEGACY = "legacy"
    """An older public spelling that still works without a warning."""
    DEPRECATED = "deprecated"
    """A spelling that works but warns."""
    PRIVATE = "private"
    """Only a private location (``jax._src``) has it."""
    UNAVAILABLE = "unavailable"
    """No location has it on this JAX."""


@dataclass(frozen=True)
class Resolved:
    """Where one feature resolved; ``obj`` is the native JAX object (None when unavailable)."""

    feature: Feature
    status: Resolution
    location: Location | None
    obj: Any = None

    def as_record(self) -> dict[str, Any]:
        return {
            "status": self.status.value,
            "resolves_to": self.location.spelling if self.location else None,
            "modern": self.feature.modern.spelling,
        }


_MISSING = object()


def import_optional(module: str) -> ModuleType | None:
    """Import ``module`` or return None; Pallas backends fail to import in many ways."""
    try:
        return importlib.import_module(module)
    except Exception:
        return None


def deprecation_table(module: ModuleType) -> dict[str, tuple[str, Any]]:
    """JAX's ``_deprecations`` table: name -> (message, object or None when removed)."""
    table = vars(module).get("_deprecations")
    return table if isinstance(table, dict) else {}


def lookup(loc: Location) -> tuple[Any, bool]:
    """Return (object or _MISSING, deprecated) without triggering a deprecation warning."""
    module = import_optional(loc.module)
    if module is None:
        return _MISSING, False
    entry = deprecation_table(module).get(loc.attr)
    if entry is not None:
        obj = entry[1]
        return (_MISSING, False) if obj is None else (obj, True)
    namespace = vars(module)
    if loc.attr in namespace:
        return namespace[loc.attr], False
    if not loc.private and loc.attr in getattr(module, "__all__", ()):
        return getattr(module, loc.attr, _MISSING), False
    return _MISSING, False


def resolve(feature: Feature) -> Resolved:
    """Prefer the newest location; fall back to older, then deprecated, then private ones."""
    deprecated: Resolved | None = None
    for loc in reversed(feature.locations):
        obj, is_deprecated = lookup(loc)
        if obj is _MISSING:
            continue
        if is_deprecated:
            deprecated = deprecated or Resolved(feature, Resolution.DEPRECATED, loc, obj)
            continue
        if loc == feature.modern:
            status = Resolution.CURRENT
        elif loc.private:
            status = Resolution.PRIVATE
        else:
            status = Resolution.LEGACY
        return Resolved(feature, status, loc, obj)
    return deprecated or Resolved(feature, Resolution.UNAVAILABLE, None)


def resolve_all() -> dict[str, Resolved]:
    return {feature.key: resolve(feature) for feature in FEATURES}
