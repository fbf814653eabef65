"""PAL207 unsupported-keyword: a keyword some releases of a Pallas callable do not take, with
no other spelling (``pltpu.emit_pipeline(should_accumulate_out=)``: 0.4.30-0.9.2;
``pallas_call(scratch_shapes=)``: 0.4.34 on).

The releases come from the scan of every release's signatures; the advice from the table's
``KEYWORD_ADVICE`` where leaving the keyword out changes what the call does. ``migrate``
notes the line: only a person can say what the call should do instead.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

import libcst as cst

from pallas_compat.facts._table import (
    CALL_KEYWORDS,
    KEYWORD_ADVICE,
    PALLAS_CALL,
    Location,
    keyword_releases,
)
from pallas_compat.rules import _keywords, _read
from pallas_compat.rules._context import FindContext, RewriteContext
from pallas_compat.rules._rule import Fix, Rule
from pallas_compat.rules._syntax import called
from pallas_compat.rules._use import Use

RULE = Rule(
    "PAL207",
    "unsupported-keyword",
    "a keyword some releases of a Pallas callable do not take",
    Fix.NOTES,
)


def advice(callable_key: str, name: str) -> str | None:
    if callable_key == PALLAS_CALL and name in CALL_KEYWORDS:
        return CALL_KEYWORDS[name]
    return KEYWORD_ADVICE.get((callable_key, name))


def find_call(f: FindContext, node: ast.Call) -> Iterator[Use | None]:
    target = _read.called(node, f, lambda: f.bindings)
    if target is None:
        return
    key = target[0]
    for name, arg in _read.keyword_args(node):
        if f.keyword_owner(key, name) is None:
            yield _keywords.keyword_use(f, key, arg, advice(key, name))


def rewrite_call(m: RewriteContext, original: cst.Call, updated: cst.Call) -> None:
    target = called(original, m, m.bindings)
    if target is None:
        return None
    key = target[0]
    for name, _ in _keywords.keyword_args(updated):
        spans = keyword_releases(key, name)
        if spans and not m.works_in(spans) and m.keyword_owner(key, name) is None:
            spelling = Location.parse(key).spelling
            text = advice(key, name) or "leave it out or keep an older JAX"
            m.mark(f"{spelling}({name}=...) is not taken by JAX {m.target}: {text}")
    return None
