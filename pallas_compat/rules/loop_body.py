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
import functools
from collections.abc import Iterator

from pallas_compat.facts._table import (
    FEATURES_BY_KEY,
    LOOP_BODIES,
    Location,
    Spans,
    releases_in,
    spans_of,
)
from pallas_compat.rules import _calls, _loop_bodies
from pallas_compat.rules._bindings import position
from pallas_compat.rules._context import FindContext, Finding, FixContext
from pallas_compat.rules._loop_bodies import (
    FunctionNode,
    reading_index,
    with_loop_info,
)
from pallas_compat.rules._rule import Example, Fix, Rule
from pallas_compat.rules._use import use_at

RULE = Rule(
    "PAL304",
    "loop-body-index",
    "a plgpu.nd_loop body that unpacks the index tuple (from JAX 0.8.0 it gets plgpu.NDLoopInfo)",
    Fix.REWRITES,
    Example(
        before="""\
from jax.experimental.pallas import mosaic_gpu as plgpu


@plgpu.nd_loop((4, 4), collective_axes="cluster")
def body(idx):
    i, j = idx
""",
        after="""\
from jax.experimental.pallas import mosaic_gpu as plgpu


@plgpu.nd_loop((4, 4), collective_axes="cluster")
def body(loop_info):
    idx = loop_info.index
    i, j = idx
""",
    ),
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


def label(loop: str) -> str:
    return f"{where(loop).spelling} body taking the index tuple"


def find_module(f: FindContext, node: ast.Module) -> Iterator[Finding]:
    for function in sorted(f.scopes.functions, key=position):
        loop = _loop_bodies.loop_decorator(function, f)
        param = _loop_bodies.first_parameter(function)
        if loop is None or param is None or not _loop_bodies.takes_index_tuple(function, 0):
            continue
        use = use_at(f, param, label(loop), tuple_releases(loop), hint(loop))
        yield Finding(use, function, functools.partial(unpacked, loop=loop, function=function))


def unpacked(m: FixContext, loop: str, function: FunctionNode) -> None:
    if not m.works_in(tuple_releases(loop)):
        with_loop_info(m, function)


def find_call(f: FindContext, node: ast.Call) -> Finding | None:
    loop = _loop_bodies.loop_called(node, f)
    argument = _calls.only_argument(node)
    if loop is None or argument is None:
        return None
    found = _loop_bodies.body_of(argument, f, f.bindings.functions)
    if found is None or not _loop_bodies.takes_index_tuple(*found):
        return None
    spot = node.args[0] if node.args else node.keywords[0]
    use = use_at(f, spot, label(loop), tuple_releases(loop), hint(loop))
    return Finding(use, node, lambda m: handed_index(m, loop, argument, found[0]))


def handed_index(m: FixContext, loop: str, body: ast.expr, function: FunctionNode) -> None:
    """``plgpu.nd_loop(...)(body)`` -> ``plgpu.nd_loop(...)(lambda loop_info:
    body(loop_info.index))``: the body may be called with a tuple elsewhere too."""
    if not m.works_in(tuple_releases(loop)):
        m.replace(body, reading_index(m, body, function))
