"""PAL213 positional-argument: arguments given by position where some releases of the Pallas
callable take them by keyword only (``plgpu.Barrier(1, num_barriers=2)``: JAX 0.6.2 made
``Barrier`` keyword-only), or take fewer by position (a position added later).

The scan reads each release's signature (a ``kw_only`` dataclass takes nothing by position)
and names each position. ``migrate`` writes the arguments the target does not take by
position as keywords, where it takes those keywords; the shim does the same at run time.
"""

from __future__ import annotations

import ast

from pallas_compat.facts._table import (
    Location,
    describe,
    keyword_releases,
    positional_releases,
    positions,
)
from pallas_compat.rules import _calls
from pallas_compat.rules._context import FindContext, Finding, FixContext
from pallas_compat.rules._rule import Example, Fix, Rule
from pallas_compat.rules._use import Use, use_at
from pallas_compat.rules.renamed_keyword import group_of

RULE = Rule(
    "PAL213",
    "positional-argument",
    "arguments given by position that some releases take by keyword only "
    "(plgpu.Barrier(1) -> plgpu.Barrier(num_arrivals=1))",
    Fix.REWRITES,
    Example(
        before="""\
from jax.experimental.pallas import mosaic_gpu as plgpu

barrier = plgpu.Barrier(1)
""",
        after="""\
from jax.experimental.pallas import mosaic_gpu as plgpu

barrier = plgpu.Barrier(num_arrivals=1)
""",
    ),
)


def label(callable_key: str, given: int) -> str:
    """``plgpu.Barrier(num_arrivals, num_barriers)``: the call as written, by position."""
    names = [name for name, _ in positions(callable_key)[:given]]
    return f"{Location.parse(callable_key).spelling}({', '.join(names)})"


def find_call(f: FindContext, node: ast.Call) -> Use | Finding | None:
    target = _calls.called(node, f, lambda: f.bindings)
    if target is None:
        return None
    key, skipped = target
    values = _calls.positional(node)[skipped:]
    found = positional_releases(key, len(values))
    if found is None or any(isinstance(a, ast.Starred) for a in node.args):
        return None
    spans = found[0]
    names = [name for name, _ in positions(key)[: len(values)]]
    if f.keyword_owner(key, names[-1]) is not None:
        return None  # moved elsewhere (plgpu.load(src, idx): src.at[idx]): its rule's
    keywords = ", ".join(f"{name}=..." for name in names)
    hint = (
        f"{Location.parse(key).spelling}({keywords}): by keyword; by position only in "
        f"JAX {describe(spans) if spans else 'no release'}"
    )
    use = use_at(f, node, label(key, len(values)), spans, hint)
    if skipped:  # a functools.partial's: its positions are the partial's to say
        return use
    return Finding(use, node, lambda m: by_keyword(m, key, values))


def by_keyword(m: FixContext, key: str, values: list[ast.expr]) -> None:
    """The arguments the target does not take by position, written by keyword (the name the
    target spells it with), where it takes them so."""
    found = positional_releases(key, len(values))
    if found is None or m.works_in(found[0]):
        return
    places = positions(key)
    taken = sum(1 for _, spans in places if m.works_in(spans))
    moved = [
        (value, spelling(m, key, places[n][0])) for n, value in enumerate(values) if n >= taken
    ]
    refused = [name for _, name in moved if not takes_keyword(m, key, name)]
    if refused:
        m.mark(
            f"{label(key, len(values))} is not taken by JAX {m.target}, nor is "
            f"{refused[0]}= by keyword: keep an older JAX"
        )
        return
    for value, name in moved:
        m.edits.insert(m.edits.source.start(value), f"{name}=")


def spelling(m: FixContext, key: str, name: str) -> str:
    """``name``, or the spelling of a renamed argument the target takes (``plgpu.kernel``'s
    second position, ``out_shape``, is ``out_type=`` by keyword on 0.12.0.1)."""
    taken = [n for n in group_of(key, name) if takes_keyword(m, key, n)]
    return taken[-1] if taken else name


def takes_keyword(m: FixContext, key: str, name: str) -> bool:
    """Does the target's ``key`` take ``name=`` (where that changed, the scan says)?"""
    spans = keyword_releases(key, name)
    return not spans or m.works_in(spans)
