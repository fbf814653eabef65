"""Find where each API-facts feature lives in the installed JAX, by looking, not by version."""

from __future__ import annotations

import contextlib
import contextvars
import enum
import importlib
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from pallas_compat.facts._table import FEATURES, Feature, Location
from pallas_compat.shim._import_hook import jax_as_it_is
from pallas_compat.shim._module_like import Namespace


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
#: What ``shadow`` returns where JAX had nothing at that name.
MISSING = _MISSING

#: (module, attr) -> what JAX had there before ``patch()`` (``_MISSING`` when nothing): lookups
#: see JAX as it is, not as patched. Changed only through ``shadow`` and ``unshadow``.
_shadowed: dict[tuple[str, str], Any] = {}


def shadow(module: ModuleType, name: str, value: Any) -> Any:
    """Set ``module.name = value`` (``patch()``), remembering what JAX had there, so that the
    shim still resolves JAX's own object. Returns that previous value, for ``unshadow``."""
    previous = vars(module).get(name, _MISSING)
    _shadowed[(module.__name__, name)] = previous
    setattr(module, name, value)
    return previous


def unshadow(module: ModuleType, name: str, previous: Any) -> None:
    """Put back what ``shadow`` replaced (deleting the attribute where JAX had none)."""
    _shadowed.pop((module.__name__, name), None)
    if previous is _MISSING:
        delattr(module, name)
    else:
        setattr(module, name, previous)


class WouldImport(BaseException):
    """Raised inside ``imports_held()`` where the shim would import a module not yet imported
    (a ``BaseException``, so that no fill's own ``except Exception`` reads it as absent)."""


_holding = contextvars.ContextVar("pallas_compat_imports_held", default=False)


@contextlib.contextmanager
def imports_held() -> Iterator[None]:
    """Within the block, looking something up in a module not yet imported raises
    ``WouldImport`` instead: ``patch()`` builds only the fills that cost no import."""
    token = _holding.set(True)
    try:
        yield
    finally:
        _holding.reset(token)


def import_optional(module: str) -> ModuleType | None:
    """Import ``module`` or return None; Pallas backends fail to import in many ways."""
    if _holding.get() and module not in sys.modules:
        raise WouldImport(module)
    try:
        with jax_as_it_is():  # JAX's module, never one patch() serves in its place
            return importlib.import_module(module)
    except Exception:
        return None


def deprecation_table(module: ModuleType) -> dict[str, tuple[str, Any]]:
    """JAX's ``_deprecations`` table: name -> (message, object or None when removed)."""
    table = vars(module).get("_deprecations")
    return table if isinstance(table, dict) else {}


def find(loc: Location) -> tuple[str, Any]:
    """(state, object) without triggering a deprecation warning; state is one of ``present``,
    ``deprecated``, ``removed``, ``absent`` or ``module does not import``."""
    module = import_optional(loc.module)
    if module is None or isinstance(module, Namespace):  # patch() put the shim there
        return "module does not import", _MISSING
    entry = deprecation_table(module).get(loc.attr)
    if entry is not None:
        return ("removed", _MISSING) if entry[1] is None else ("deprecated", entry[1])
    namespace = vars(module)
    if (loc.module, loc.attr) in _shadowed:
        original = _shadowed[(loc.module, loc.attr)]
        return ("absent", _MISSING) if original is _MISSING else ("present", original)
    if loc.attr in namespace:
        return "present", namespace[loc.attr]
    if not loc.private and loc.attr in getattr(module, "__all__", ()):
        obj = getattr(module, loc.attr, _MISSING)
        return ("absent" if obj is _MISSING else "present"), obj
    return "absent", _MISSING


def native(module: str, name: str) -> Any:
    """The public object ``module.name`` if the installed JAX has it (deprecated counts)."""
    state, obj = find(Location(module, name))
    return obj if state in ("present", "deprecated") else None


def resolve(feature: Feature) -> Resolved:
    """Prefer the newest location; fall back to older, then deprecated, then private ones."""
    deprecated: Resolved | None = None
    for loc in reversed(feature.locations):
        state, obj = find(loc)
        if obj is _MISSING:
            continue
        if state == "deprecated":
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
