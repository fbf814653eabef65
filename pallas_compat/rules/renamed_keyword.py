"""PAL206 renamed-keyword: a keyword JAX renamed on a Pallas callable
(``pltpu.InterpretParams(num_cores_per_device=)`` -> ``num_cores_or_threads=``).

The table's ``KEYWORD_RENAMES`` groups one argument's spellings; the scan says which release
takes which. ``migrate`` writes the newest spelling the target takes; the shim passes
whichever the installed callable takes.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

import libcst as cst

from pallas_compat.facts._table import (
    KEYWORD_RENAMES,
    Location,
    keyword_releases,
    renamed_keyword,
)
from pallas_compat.rules import _read
from pallas_compat.rules._context import FindContext, RewriteContext
from pallas_compat.rules._keywords import keyword_use
from pallas_compat.rules._rule import Fix, Rule
from pallas_compat.rules._syntax import called
from pallas_compat.rules._use import Use

RULE = Rule(
    "PAL206",
    "renamed-keyword",
    "a keyword JAX renamed on a Pallas callable",
    Fix.REWRITES,
)


def group_of(callable_key: str, name: str) -> tuple[str, ...]:
    """Every spelling of the argument ``name`` spells (oldest first); () if JAX never renamed it."""
    module, _, attr = callable_key.partition(":")
    return next((g for g in KEYWORD_RENAMES.get((module, attr), ()) if name in g), ())


def claims(callable_key: str, name: str) -> bool:
    """Any spelling of a renamed argument: an old one on a new release, or the reverse."""
    return bool(group_of(callable_key, name))


def find_call(f: FindContext, node: ast.Call) -> Iterator[Use | None]:
    target = _read.called(node, f, lambda: f.bindings)
    if target is None:
        return
    key = target[0]
    for name, arg in _read.keyword_args(node):
        if not claims(key, name):
            continue
        newer = renamed_keyword(key, name)
        spelling = Location.parse(key).spelling
        hint = f"{spelling}({newer}=...): the same argument, renamed" if newer else None
        yield keyword_use(f, key, arg, hint)


def rewrite_call(m: RewriteContext, original: cst.Call, updated: cst.Call) -> cst.Call | None:
    target = called(original, m, m.bindings)
    if target is None:
        return None
    key = target[0]
    args = []
    for arg in updated.args:
        given = arg.keyword.value if arg.keyword is not None else None
        spans = keyword_releases(key, given) if given else []
        group = group_of(key, given) if given else ()
        if group and spans and not m.works_in(spans):
            newer = [n for n in group if m.works_in(keyword_releases(key, n))]
            if newer:
                arg = arg.with_changes(keyword=cst.Name(newer[-1]))
            else:
                spelling = Location.parse(key).spelling
                m.mark(
                    f"{spelling}({given}=...) is not taken by JAX {m.target}: leave it out or "
                    "keep an older JAX"
                )
        args.append(arg)
    return updated.with_changes(args=args)
