"""Keywords of public Pallas callables that came or went while the callable lived (the release
scan reads every release's signatures): the use doctor reports, shared by the keyword rules."""

from __future__ import annotations

import ast

import libcst as cst

from pallas_compat.facts._table import PALLAS_CALL, Location, describe, keyword_releases
from pallas_compat.rules._context import FindContext
from pallas_compat.rules._use import Use, use_at


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
    spans = keyword_releases(callable_key, name)
    if not spans:
        return None
    if hint is None:
        hint = f"{label(callable_key, name)} exists in JAX {describe(spans)}; leave it out where it is not"
    return use_at(f, arg, label(callable_key, name), spans, hint)


def keyword_args(call: cst.Call) -> list[tuple[str, cst.Arg]]:
    return [(a.keyword.value, a) for a in call.args if a.keyword is not None]
