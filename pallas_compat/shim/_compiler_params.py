"""CompilerParams in every form old and new code writes, turned into what this JAX wants.

Three eras: dicts only (0.4.30, 0.4.31), dicts or ``TPUCompilerParams``-style dataclasses
(0.4.33 to 0.6.1), dataclasses only (0.6.2 on). Fields come and go between releases; the
``PARAM_FIELDS`` table of the facts says which ones may be dropped.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Mapping
from typing import Any

from pallas_compat.facts._table import (
    BACKENDS_BY_KEY,
    FEATURES_BY_KEY,
    PARAM_FIELDS,
    FieldAction,
    backend_of,
    installed_jax,
)
from pallas_compat.shim._errors import RefusedArgumentError
from pallas_compat.shim._facade import facade
from pallas_compat.shim._resolve import Resolution, resolve
from pallas_compat.shim._warnings import warn_once


@dataclasses.dataclass(frozen=True, init=False)
class LegacyCompilerParams:
    """Stands in for a CompilerParams class on releases that only take dicts (0.4.30, 0.4.31);
    the shim's ``pallas_call`` turns it into ``{backend: {...}}``."""

    backend: str
    fields: Mapping[str, Any]

    def __init__(self, backend: str, **fields: Any) -> None:
        object.__setattr__(self, "backend", backend)
        if "dimension_semantics" in fields:
            fields["dimension_semantics"] = plain(fields["dimension_semantics"])
        accepted = BACKENDS_BY_KEY[backend].dict_fields
        object.__setattr__(self, "fields", adapt_fields(backend, fields, accepted))

    def as_dict(self) -> dict[str, dict[str, Any]]:
        return {self.backend: dict(self.fields)}


def plain(value: Any) -> Any:
    """Enum members (e.g. a forward-filled GridDimensionSemantics) become their string value."""
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, list | tuple):
        return type(value)(plain(v) for v in value)
    return value


def adapt_fields(
    backend: str, fields: Mapping[str, Any], accepted: frozenset[str]
) -> dict[str, Any]:
    """Keep what this release accepts; drop hints it lacks (warning); refuse the rest."""
    rules = PARAM_FIELDS.get(backend, {})
    kept: dict[str, Any] = {}
    for name, value in fields.items():
        if name in accepted:
            kept[name] = value
            continue
        rule = rules.get(name)
        if rule is not None and (value is None or value == rule.default):
            continue
        if rule is None or rule.action is not FieldAction.DROP:
            raise RefusedArgumentError(
                f"compiler_params field {name}={value!r} ({backend}) does not exist in the "
                f"installed JAX {installed_jax()} and dropping it could change results; "
                "remove it or upgrade JAX"
            )
        warn_once(
            f"field:{backend}:{name}",
            f"compiler_params field {name!r} does not exist in JAX {installed_jax()}; "
            "pallas-compat dropped it (a performance hint, results are unchanged)",
        )
    return kept


def field_names(cls: type) -> frozenset[str]:
    return frozenset(f.name for f in dataclasses.fields(cls) if f.init)


def params_class(backend: str, old_spelling: str | None = None) -> Any:
    """The CompilerParams class people should call for ``backend`` on this JAX: a facade over
    the native dataclass that drops or refuses unknown fields, or a legacy stand-in. With
    ``old_spelling``, each use warns once that the name is old."""
    feature = FEATURES_BY_KEY[BACKENDS_BY_KEY[backend].feature]

    def warn_old() -> None:
        if old_spelling is not None:
            message = f"{old_spelling} was renamed; write {feature.hint}"
            warn_once(old_spelling, message)

    resolved = resolve(feature)
    if resolved.status is Resolution.UNAVAILABLE:
        if not BACKENDS_BY_KEY[backend].dict_fields:
            return None

        def legacy(**fields: Any) -> LegacyCompilerParams:
            warn_old()
            return LegacyCompilerParams(backend, **fields)

        legacy.__name__ = legacy.__qualname__ = "CompilerParams"
        return legacy
    native = resolved.obj
    accepted = field_names(native)

    def convert(
        args: tuple[Any, ...], kwargs: dict[str, Any]
    ) -> tuple[tuple[Any, ...], dict[str, Any]]:
        warn_old()
        if "dimension_semantics" in kwargs and not has_semantics_enum():
            kwargs = {**kwargs, "dimension_semantics": plain(kwargs["dimension_semantics"])}
        return args, adapt_fields(backend, kwargs, accepted)

    name = (old_spelling or "CompilerParams").rpartition(".")[2]
    return facade(native, convert, name=name)


def has_semantics_enum() -> bool:
    return resolve(FEATURES_BY_KEY["grid_dimension_semantics"]).status is not Resolution.UNAVAILABLE


def without_unknown_keys(backend: str, fields: dict[str, Any]) -> dict[str, Any]:
    """A dict's keys that no release's params know, dropped where the dict era ignored them
    (Triton), with a warning that names them; kept (and refused later) elsewhere."""
    unknown = sorted(set(fields) - set(PARAM_FIELDS.get(backend, {})))
    if not unknown or not BACKENDS_BY_KEY[backend].dict_ignored_unknown_keys:
        return fields
    names = ", ".join(repr(name) for name in unknown)
    warn_once(
        f"dict-params-unknown:{backend}:{names}",
        f'compiler_params={{"{backend}": {{...}}}} has {names}, which no JAX release\'s '
        f"{backend} params know; the dict-era lowering ignored such keys, and pallas-compat "
        "dropped them (check the spelling: num_warps, num_stages)",
    )
    return {name: value for name, value in fields.items() if name not in unknown}


def from_dict(params: Mapping[str, Any]) -> dict[str, Any]:
    """``{"mosaic": {...}}`` -> ``{"mosaic": {...}}`` with old key spellings made current."""
    return {(b.key if (b := backend_of(k)) else k): dict(v) for k, v in params.items()}


def normalize(params: Any, *, accepts_dicts: bool) -> Any:
    """Any compiler_params form -> what this JAX's pallas_call takes."""
    if params is None:
        return None
    if isinstance(params, LegacyCompilerParams):
        return params.as_dict()
    if not isinstance(params, Mapping):
        return params
    by_backend = from_dict(params)
    if len(by_backend) == 1:
        ((backend, fields),) = by_backend.items()
        cls = params_class(backend) if backend in BACKENDS_BY_KEY else None
        if cls is not None:
            fields = without_unknown_keys(backend, fields)
            warn_once(
                f"dict-params:{backend}",
                f'compiler_params={{"{backend}": {{...}}}} is the old dict form; write '
                f"{FEATURES_BY_KEY[BACKENDS_BY_KEY[backend].feature].hint}",
            )
            made = cls(**fields)
            return made.as_dict() if isinstance(made, LegacyCompilerParams) else made
    if accepts_dicts:
        return by_backend
    raise RefusedArgumentError(
        f"compiler_params={params!r} names several backends; JAX {installed_jax()} takes one "
        "CompilerParams object: pass the one for the backend you run on"
    )
