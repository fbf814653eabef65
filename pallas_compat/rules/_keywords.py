"""Keywords of public Pallas callables that came or went while the callable lived (the release
scan reads every release's signatures): the use doctor reports, shared by the keyword rules."""

from __future__ import annotations

import ast
import functools

from pallas_compat.facts._table import (
    BACKENDS,
    FEATURES_BY_KEY,
    PALLAS_CALL,
    Location,
    describe,
    keyword_releases,
    param_field_releases,
    scanned_releases,
    spans_of,
    works_in,
)
from pallas_compat.rules._context import FindContext
from pallas_compat.rules._use import Use, use_at


@functools.cache
def params_classes() -> dict[str, tuple[str, tuple[Location, ...]]]:
    """Each spelling (``module:name``) of a backend's params class -> (the backend, every
    spelling of the class)."""
    found = {}
    for backend in BACKENDS:
        locations = tuple(FEATURES_BY_KEY[backend.feature].locations)
        for loc in locations:
            found[f"{loc.module}:{loc.attr}"] = (backend.key, locations)
    return found


def keyword_spans(callable_key: str, name: str) -> list[list[str]]:
    """The releases that take keyword ``name`` of ``callable_key``, where some release the
    callable lived in does not; [] where all do. A backend's params class counts under every
    spelling (``plgpu.GPUCompilerParams`` then ``plgpu.CompilerParams``): its rename serves the
    rest, so ``lowering_semantics=`` works wherever some spelling of the class takes it."""
    if callable_key not in params_classes():
        return keyword_releases(callable_key, name)
    backend, locations = params_classes()[callable_key]
    spans = param_field_releases(backend, name)
    lived = [r for r in scanned_releases() if any(works_in(loc.releases, r) for loc in locations)]
    if not spans or all(works_in(spans, r) for r in lived):
        return []
    return [list(span) for span in spans_of(r for r in lived if works_in(spans, r))]


def label(callable_key: str, name: str) -> str:
    """``pallas_call(backend=...)`` (the report's rows' label), ``pltpu.emit_pipeline(x=...)``."""
    location = Location.parse(callable_key)
    call = location.attr if callable_key == PALLAS_CALL else location.spelling
    return f"{call}({name}=...)"


def keyword_use(
    f: FindContext, callable_key: str, arg: ast.keyword, hint: str | None = None
) -> Use | None:
    """The use of ``arg``'s keyword on ``callable_key`` (``module:name``), with the releases
    that take it; None where every release the callable lived in takes it."""
    name = arg.arg or ""
    spans = keyword_spans(callable_key, name)
    if not spans:
        return None
    if hint is None:
        hint = f"{label(callable_key, name)} exists in JAX {describe(spans)}; leave it out where it is not"
    return use_at(f, arg, label(callable_key, name), spans, hint)
