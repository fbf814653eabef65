"""PAL205 backend-keyword: ``pallas_call(backend="triton")`` (JAX 0.4.35 to 0.9.0.1); later
releases pick the backend by the type of ``compiler_params``.

``migrate`` writes ``compiler_params=`` of the named backend's params class (nothing for
Mosaic TPU, the default); the shim turns the keyword into the same params.
"""

from __future__ import annotations

import ast

from pallas_compat.facts._table import (
    CALL_BACKENDS,
    CALL_KEYWORDS,
    PALLAS_CALL,
    pallas_call_keyword_releases,
)
from pallas_compat.rules import _calls
from pallas_compat.rules._arguments import arguments, drop
from pallas_compat.rules._context import FindContext, Finding, FixContext
from pallas_compat.rules._keywords import keyword_use
from pallas_compat.rules._rule import Example, Fix, Rule

RULE = Rule(
    "PAL205",
    "backend-keyword",
    "pallas_call(backend=...): the params' type picks the backend on newer releases",
    Fix.PARTLY,
    Example(
        before="""\
from jax.experimental import pallas as pl

run = pl.pallas_call(kernel, out_shape=shape, backend="triton")
""",
        after="""\
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton

run = pl.pallas_call(kernel, out_shape=shape, compiler_params=pltriton.CompilerParams())
""",
    ),
)
KEYWORDS = frozenset({(PALLAS_CALL, "backend")})


def find_call(f: FindContext, node: ast.Call) -> Finding | None:
    target = _calls.called(node, f, lambda: f.bindings)
    given = _calls.keyword(node, "backend")
    if target is None or target[0] != PALLAS_CALL or given is None:
        return None
    use = keyword_use(f, PALLAS_CALL, given, CALL_KEYWORDS["backend"])
    return Finding(use, node, lambda m: as_params(m, node, given)) if use else None


def as_params(m: FixContext, call: ast.Call, backend: ast.keyword) -> None:
    """``backend="triton"`` -> ``compiler_params=pltriton.CompilerParams()`` (nothing for the
    default backend, Mosaic TPU, or where ``compiler_params`` is given already)."""
    if m.works_in(pallas_call_keyword_releases("backend")):
        return
    value = backend.value
    text = value.value if isinstance(value, ast.Constant) else None
    chosen = CALL_BACKENDS.get(text) if isinstance(text, str) else None
    new = m.replacement_params(chosen.key) if chosen and not chosen.default else None
    if chosen is None or (not chosen.default and new is None):
        m.mark(
            f"pallas_call(backend=...) is not taken by JAX {m.target}: {CALL_KEYWORDS['backend']}"
        )
        return
    if new is not None and _calls.keyword(call, "compiler_params") is None:
        m.replace(backend, f"compiler_params={m.alias_for(new.module)}.{new.attr}()")
        return
    found = arguments(call, m.edits.source)
    drop(m.edits, call, next(a for a in found if a.node is backend))
