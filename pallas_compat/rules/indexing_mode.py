"""PAL208 indexing-mode: ``pl.Blocked()`` as the indexing mode (JAX 0.4.31-0.6.0) and
``BlockSpec(indexing_mode=...)`` (gone after 0.7.0); from 0.6.1 the mode goes into each
``block_shape`` entry (``pl.Element(n, (low, high))``) and ``pl.Blocked(n)`` is a block
dimension, whose size is required.

``migrate`` drops ``indexing_mode=pl.Blocked()`` (the default), makes a literal block shape
of ``pl.Element`` entries for ``pl.Unblocked(padding)``, and notes what it cannot see.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

import libcst as cst

from pallas_compat.facts._table import (
    BLOCKED_MODE,
    CALL_FORMS,
    KEYWORD_ADVICE,
    PL,
    Location,
    keyword_releases,
)
from pallas_compat.rules import _read
from pallas_compat.rules._argument_order import positional
from pallas_compat.rules._context import FindContext, RewriteContext
from pallas_compat.rules._keywords import keyword_use
from pallas_compat.rules._rewrite import without_argument
from pallas_compat.rules._rule import Fix, Rule
from pallas_compat.rules._syntax import is_call_to, keyword, qualified
from pallas_compat.rules._use import Use, form_use

RULE = Rule(
    "PAL208",
    "indexing-mode",
    "pl.Blocked() as the indexing mode, or BlockSpec(indexing_mode=...)",
    Fix.PARTLY,
)
#: The call form of the table (``CallForm``) this rule finds.
FORMS = frozenset({BLOCKED_MODE})
BLOCK_SPEC = f"{PL}:BlockSpec"
KEYWORDS = frozenset({(BLOCK_SPEC, "indexing_mode")})
UNBLOCKED = frozenset({f"{PL}.Unblocked", f"{PL}.unblocked"})


def find_call(f: FindContext, node: ast.Call) -> Iterator[Use | None]:
    if _read.is_call_to(node, f, "Blocked") and not node.args and not node.keywords:
        yield form_use(f, node, BLOCKED_MODE)
    given = _read.keyword(node, "indexing_mode")
    if given is not None and _read.is_call_to(node, f, "BlockSpec"):
        advice = KEYWORD_ADVICE[(BLOCK_SPEC, "indexing_mode")]
        yield keyword_use(f, BLOCK_SPEC, given, advice)


def rewrite_call(m: RewriteContext, original: cst.Call, updated: cst.Call) -> cst.Call | None:
    if is_call_to(original, m, "Blocked") and not original.args and not m.form_works(BLOCKED_MODE):
        m.mark(
            f"pl.Blocked() is not the indexing mode in JAX {m.target}: {CALL_FORMS[BLOCKED_MODE]}"
        )
    if is_call_to(original, m, "BlockSpec") and keyword(original, "indexing_mode"):
        return without_mode(m, original, updated)
    return None


def without_mode(m: RewriteContext, original: cst.Call, call: cst.Call) -> cst.Call:
    """``BlockSpec(..., indexing_mode=...)`` where the target lacks the mode: ``pl.Blocked()``
    (the default) is left out; ``pl.unblocked`` / ``pl.Unblocked(padding)`` make each entry of
    a literal ``block_shape`` a ``pl.Element(n, (low, high))`` (JAX 0.6.1's spelling); a mode
    that comes from a variable gets a note saying what to write for each value."""
    mode, given = keyword(call, "indexing_mode"), keyword(original, "indexing_mode")
    assert mode is not None and given is not None
    value = given.value  # the original's: only its nodes have qualified names
    names = qualified(value.func if isinstance(value, cst.Call) else value, m)
    if f"{PL}.Blocked" in names and isinstance(value, cst.Call) and not value.args:
        if m.form_works(BLOCKED_MODE):
            return call
        m.unmark("pl.Blocked() ")
        return without_argument(call, mode)
    if names & UNBLOCKED:
        if m.works(Location(PL, "Unblocked")):
            return call
        elements = element_dims(m, call, mode.value)
        if elements is not None:
            for spelling in ("pl.Unblocked ", "pl.unblocked "):
                m.unmark(spelling)
            return without_argument(elements, keyword(elements, "indexing_mode"))
        m.mark(
            f"indexing_mode=pl.Unblocked(...) is not in JAX {m.target}: write each block_shape "
            "entry as pl.Element(n, (low, high)); the block shape here is not a literal tuple "
            "to rewrite"
        )
        return call
    if not m.works_in(keyword_releases(BLOCK_SPEC, "indexing_mode")):
        m.mark(
            f"BlockSpec(indexing_mode=...) is not taken by JAX {m.target} and the mode comes "
            "from a variable here: where it is pl.Blocked(), leave it out; where it is "
            "pl.Unblocked(padding), write each block_shape entry as pl.Element(n, (low, high))"
        )
    return call


def element_dims(m: RewriteContext, call: cst.Call, mode: cst.BaseExpression) -> cst.Call | None:
    """The call with a literal ``block_shape`` made of ``pl.Element`` entries, the padding
    taken from a literal ``pl.Unblocked(((lo, hi), ...))``; None where either is not literal."""
    spec_args = positional(call)
    shape_arg = keyword(call, "block_shape") or (spec_args[0] if spec_args else None)
    if shape_arg is None or not isinstance(shape_arg.value, cst.Tuple | cst.List):
        return None
    dims = [e.value for e in shape_arg.value.elements]
    pads: list[cst.BaseExpression | None] = [None] * len(dims)
    if isinstance(mode, cst.Call) and mode.args:
        padding = mode.args[0].value
        if not isinstance(padding, cst.Tuple) or len(padding.elements) != len(dims):
            return None
        pads = [e.value for e in padding.elements]
    element = f"{m.alias_for(PL)}.Element"
    made = [
        f"{element}({m.code(d)})" if p is None else f"{element}({m.code(d)}, {m.code(p)})"
        for d, p in zip(dims, pads, strict=True)
    ]
    shape = cst.parse_expression(f"({', '.join(made)}{',' if len(made) == 1 else ''})")
    return call.with_changes(
        args=[a.with_changes(value=shape) if a is shape_arg else a for a in call.args]
    )
