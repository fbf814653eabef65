"""PAL205 backend-keyword: ``pallas_call(backend="triton")`` (JAX 0.4.35 to 0.9.0.1); later
releases pick the backend by the type of ``compiler_params``.

``migrate`` writes ``compiler_params=`` of the named backend's params class (nothing for
Mosaic TPU, the default); the shim turns the keyword into the same params.
"""

from __future__ import annotations

import ast

import libcst as cst

from pallas_compat.facts._table import (
    CALL_BACKENDS,
    CALL_KEYWORDS,
    PALLAS_CALL,
    pallas_call_keyword_releases,
)
from pallas_compat.rules import _read
from pallas_compat.rules._context import FindContext, RewriteContext
from pallas_compat.rules._keywords import keyword_use
from pallas_compat.rules._rewrite import attr, keyword_arg
from pallas_compat.rules._rule import Fix, Rule
from pallas_compat.rules._syntax import called, keyword
from pallas_compat.rules._use import Use

RULE = Rule(
    "PAL205",
    "backend-keyword",
    "pallas_call(backend=...): the params' type picks the backend on newer releases",
    Fix.PARTLY,
)
KEYWORDS = frozenset({(PALLAS_CALL, "backend")})


def find_call(f: FindContext, node: ast.Call) -> Use | None:
    target = _read.called(node, f, lambda: f.bindings)
    given = _read.keyword(node, "backend")
    if target is None or target[0] != PALLAS_CALL or given is None:
        return None
    return keyword_use(f, PALLAS_CALL, given, CALL_KEYWORDS["backend"])


def rewrite_call(m: RewriteContext, original: cst.Call, updated: cst.Call) -> cst.Call | None:
    target = called(original, m, m.bindings)
    backend = keyword(updated, "backend")
    if target is None or target[0] != PALLAS_CALL or backend is None:
        return None
    if m.works_in(pallas_call_keyword_releases("backend")):
        return None
    value = backend.value
    text = value.evaluated_value if isinstance(value, cst.SimpleString) else None
    chosen = CALL_BACKENDS.get(text) if isinstance(text, str) else None
    new = m.replacement_params(chosen.key) if chosen and not chosen.default else None
    if chosen is None or (not chosen.default and new is None):
        m.mark(
            f"pallas_call(backend=...) is not taken by JAX {m.target}: {CALL_KEYWORDS['backend']}"
        )
        return None
    args = list(updated.args)
    index = args.index(backend)
    args.pop(index)
    if new is not None and keyword(updated, "compiler_params") is None:
        made = cst.Call(attr(f"{m.alias_for(new.module)}.{new.attr}"))
        args.insert(index, keyword_arg("compiler_params", made).with_changes(comma=backend.comma))
    elif index and index == len(args):  # it was last: the new last argument keeps its comma
        args[-1] = args[-1].with_changes(comma=backend.comma)
    return updated.with_changes(args=args)
