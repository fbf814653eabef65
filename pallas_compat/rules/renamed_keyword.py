"""PAL206 renamed-keyword: a keyword JAX renamed on a Pallas callable
(``pltpu.InterpretParams(num_cores_per_device=)`` -> ``num_cores_or_threads=``).

The table's ``KEYWORD_RENAMES`` groups one argument's spellings; the scan says which release
takes which. ``migrate`` writes the newest spelling the target takes; the shim passes
whichever the installed callable takes.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator

from pallas_compat.facts._table import (
    KEYWORD_RENAMES,
    Location,
    keyword_releases,
    renamed_keyword,
)
from pallas_compat.rules import _calls
from pallas_compat.rules._context import FindContext, Finding, FixContext
from pallas_compat.rules._keywords import keyword_use
from pallas_compat.rules._rule import Example, Fix, Rule

RULE = Rule(
    "PAL206",
    "renamed-keyword",
    "a keyword JAX renamed on a Pallas callable",
    Fix.REWRITES,
    Example(
        before="""\
from jax.experimental.pallas import mosaic_gpu as plgpu

run = plgpu.kernel(body, out_shape=shape, scratch_shapes=[barrier])
""",
        after="""\
from jax.experimental.pallas import mosaic_gpu as plgpu

run = plgpu.kernel(body, out_type=shape, scratch_types=[barrier])
""",
    ),
)


def group_of(callable_key: str, name: str) -> tuple[str, ...]:
    """Every spelling of the argument ``name`` spells (oldest first); () if JAX never renamed it."""
    module, _, attr = callable_key.partition(":")
    return next((g for g in KEYWORD_RENAMES.get((module, attr), ()) if name in g), ())


def claims(callable_key: str, name: str) -> bool:
    """Any spelling of a renamed argument: an old one on a new release, or the reverse."""
    return bool(group_of(callable_key, name))


def find_call(f: FindContext, node: ast.Call) -> Iterator[Finding | None]:
    target = _calls.called(node, f, lambda: f.bindings)
    if target is None:
        return
    key = target[0]
    for name, arg in _calls.keyword_args(node):
        if not claims(key, name):
            continue
        newer = renamed_keyword(key, name)
        spelling = Location.parse(key).spelling
        hint = f"{spelling}({newer}=...): the same argument, renamed" if newer else None
        use = keyword_use(f, key, arg, hint)
        if use is not None:
            yield Finding(use, node, functools.partial(rename, key=key, arg=arg))


def rename(m: FixContext, key: str, arg: ast.keyword) -> None:
    """The keyword's name as the target spells it (the newest spelling it takes)."""
    given = arg.arg or ""
    if m.works_in(keyword_releases(key, given)):
        return
    newer = [n for n in group_of(key, given) if m.works_in(keyword_releases(key, n))]
    if not newer:
        spelling = Location.parse(key).spelling
        m.mark(
            f"{spelling}({given}=...) is not taken by JAX {m.target}: leave it out or keep an older JAX"
        )
        return
    start = m.edits.source.start(arg)
    m.edits.replace(start, start + len(given), newer[-1])
