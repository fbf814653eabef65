"""PAL304 loop-body-index: a ``plgpu.nd_loop`` body written for the index tuple it got before
JAX 0.8.0; from 0.8.0 it gets a ``plgpu.NDLoopInfo`` (the tuple is its ``.index``).

The releases are those of the loop less those of the info class (the scan). ``migrate``
renames a decorated body's argument and unpacks ``.index`` into the old name first thing;
a body handed over by name (``plgpu.nd_loop(grid)(partial(body, 0))``, which may be called
with a tuple elsewhere too) gets ``lambda loop_info: body(loop_info.index)``. The shim hands
every body a tuple that carries the info's fields (``shim/_mosaic_gpu.py``).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

import libcst as cst

from pallas_compat.facts._table import (
    FEATURES_BY_KEY,
    LOOP_BODIES,
    Location,
    Spans,
    releases_in,
    spans_of,
)
from pallas_compat.rules import _read
from pallas_compat.rules._argument_order import Bindings
from pallas_compat.rules._context import FindContext, RewriteContext
from pallas_compat.rules._loop_bodies import (
    INFO_FIELDS,
    LOOPS,
    body_of,
    loop_called,
    loop_decorator,
    reading_index,
    takes_index_tuple,
    with_loop_info,
)
from pallas_compat.rules._rule import Fix, Rule
from pallas_compat.rules._use import Use, use_at

RULE = Rule(
    "PAL304",
    "loop-body-index",
    "a plgpu.nd_loop body that unpacks the index tuple (from JAX 0.8.0 it gets plgpu.NDLoopInfo)",
    Fix.REWRITES,
)


def where(loop: str) -> Location:
    """``module.name`` -> its location."""
    module, _, name = loop.rpartition(".")
    return Location(module, name)


def tuple_releases(loop: str) -> Spans:
    """Where a body taking the tuple runs: the loop's releases without the info class."""
    place = where(loop)
    info = FEATURES_BY_KEY[LOOP_BODIES[(place.module, place.attr)]].modern
    having = set(releases_in(place.releases)) - set(releases_in(info.releases))
    return spans_of(having)


def hint(loop: str) -> str:
    place = where(loop)
    info = FEATURES_BY_KEY[LOOP_BODIES[(place.module, place.attr)]].modern
    return (
        f"from JAX {releases_in(info.releases)[0]} the body gets {info.spelling}: "
        "def body(loop_info): idx = loop_info.index"
    )


def old_bodies(node: cst.Module, metadata: RewriteContext) -> list[cst.FunctionDef]:
    """The ``def``s a loop decorates that take the index tuple."""
    import libcst.matchers as m  # lazy: 0.3 s to import, and only migrate's rewrites match

    return [
        function
        for function in m.findall(node, m.FunctionDef())
        if isinstance(function, cst.FunctionDef)
        and loop_decorator(function, metadata) is not None
        and takes_index_tuple(function)
    ]


def old_body_call(call: cst.Call, metadata: RewriteContext, bindings: Bindings) -> str | None:
    """The loop of ``plgpu.nd_loop(...)(body)`` where ``body`` takes the index tuple."""
    loop = loop_called(call, metadata)
    if loop is None:
        return None
    found = body_of(call.args[0].value, metadata, bindings.functions)
    return loop if found is not None and takes_index_tuple(*found) else None


def label(loop: str) -> str:
    return f"{where(loop).spelling} body taking the index tuple"


def find_module(f: FindContext, node: ast.Module) -> Iterator[Use]:
    for function in _read.function_defs(f):
        loop = _read.loop_decorator(function, f, LOOPS)
        param = _read.first_parameter(function)
        if loop is None or param is None or not _read.takes_index_tuple(function, 0, INFO_FIELDS):
            continue
        yield use_at(f, param, label(loop), tuple_releases(loop), hint(loop))


def find_call(f: FindContext, node: ast.Call) -> Use | None:
    loop = _read.loop_called(node, f, LOOPS)
    argument = _read.only_argument(node)
    if loop is None or argument is None:
        return None
    found = _read.body_of(argument, f, f.bindings.functions)
    if found is None or not _read.takes_index_tuple(*found, INFO_FIELDS):
        return None
    spot = node.args[0] if node.args else node.keywords[0]
    return use_at(f, spot, label(loop), tuple_releases(loop), hint(loop))


def prepare(m_: RewriteContext, node: cst.Module) -> None:
    found = set()
    for function in old_bodies(node, m_):
        loop = loop_decorator(function, m_)
        if loop is not None and not m_.works_in(tuple_releases(loop)):
            found.add(function)
    m_.state[RULE.code] = found


def rewrite_call(m_: RewriteContext, original: cst.Call, updated: cst.Call) -> cst.Call | None:
    """``plgpu.nd_loop(...)(body)`` -> ``plgpu.nd_loop(...)(lambda loop_info:
    body(loop_info.index))``: the body may be called with a tuple elsewhere too."""
    loop = old_body_call(original, m_, m_.bindings())
    if loop is None or m_.works_in(tuple_releases(loop)):
        return None
    body = updated.args[0].value
    function = body_of(original.args[0].value, m_, m_.bindings().functions)
    assert function is not None  # old_body_call found it
    return updated.with_changes(
        args=[updated.args[0].with_changes(value=reading_index(body, function[0]))]
    )


def rewrite_function(
    m_: RewriteContext, original: cst.FunctionDef, updated: cst.FunctionDef
) -> cst.FunctionDef:
    if original not in m_.state.get(RULE.code, ()):
        return updated
    return with_loop_info(updated)
