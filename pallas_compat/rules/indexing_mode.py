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

from pallas_compat.facts._table import (
    BLOCKED_MODE,
    CALL_FORMS,
    KEYWORD_ADVICE,
    PL,
    Location,
    keyword_releases,
)
from pallas_compat.rules import _calls
from pallas_compat.rules._arguments import arguments, drop
from pallas_compat.rules._context import FindContext, Finding, FixContext
from pallas_compat.rules._keywords import keyword_use
from pallas_compat.rules._rule import Example, Fix, Rule
from pallas_compat.rules._use import form_use

RULE = Rule(
    "PAL208",
    "indexing-mode",
    "pl.Blocked() as the indexing mode, or BlockSpec(indexing_mode=...)",
    Fix.PARTLY,
    Example(
        before="""\
from jax.experimental import pallas as pl

spec = pl.BlockSpec((8, 128), lambda i: (i, 0), indexing_mode=pl.Blocked())
""",
        after="""\
from jax.experimental import pallas as pl

spec = pl.BlockSpec((8, 128), lambda i: (i, 0))
""",
    ),
)
#: The call form of the table (``CallForm``) this rule finds.
FORMS = frozenset({BLOCKED_MODE})
BLOCK_SPEC = f"{PL}:BlockSpec"
KEYWORDS = frozenset({(BLOCK_SPEC, "indexing_mode")})
UNBLOCKED = frozenset({f"{PL}.Unblocked", f"{PL}.unblocked"})


def find_call(f: FindContext, node: ast.Call) -> Iterator[Finding | None]:
    if _calls.is_call_to(node, f, "Blocked") and not node.args and not node.keywords:
        yield Finding(form_use(f, node, BLOCKED_MODE), node, note_blocked)
    given = _calls.keyword(node, "indexing_mode")
    if given is not None and _calls.is_call_to(node, f, "BlockSpec"):
        advice = KEYWORD_ADVICE[(BLOCK_SPEC, "indexing_mode")]
        use = keyword_use(f, BLOCK_SPEC, given, advice)
        yield Finding(use, node, lambda m: without_mode(m, node, given))


def note_blocked(m: FixContext) -> None:
    if not m.form_works(BLOCKED_MODE):
        m.mark(
            f"pl.Blocked() is not the indexing mode in JAX {m.target}: {CALL_FORMS[BLOCKED_MODE]}"
        )


def without_mode(m: FixContext, call: ast.Call, mode: ast.keyword) -> None:
    """``BlockSpec(..., indexing_mode=...)`` where the target lacks the mode: ``pl.Blocked()``
    (the default) is left out; ``pl.unblocked`` / ``pl.Unblocked(padding)`` make each entry of
    a literal ``block_shape`` a ``pl.Element(n, (low, high))`` (JAX 0.6.1's spelling); a mode
    that comes from a variable gets a note saying what to write for each value."""
    value = mode.value
    names = m.reading.qualified(value.func if isinstance(value, ast.Call) else value)
    found = arguments(call, m.edits.source)
    argument = next(a for a in found if a.node is mode)
    if f"{PL}.Blocked" in names and isinstance(value, ast.Call) and not value.args:
        if m.form_works(BLOCKED_MODE):
            return
        m.unmark("pl.Blocked() ")
        drop(m.edits, call, argument)
        return
    if names & UNBLOCKED:
        if m.works(Location(PL, "Unblocked")):
            return
        if element_dims(m, call, value):
            for spelling in ("pl.Unblocked ", "pl.unblocked "):
                m.unmark(spelling)
            drop(m.edits, call, argument)
            return
        m.mark(
            f"indexing_mode=pl.Unblocked(...) is not in JAX {m.target}: write each block_shape "
            "entry as pl.Element(n, (low, high)); the block shape here is not a literal tuple "
            "to rewrite"
        )
        return
    if not m.works_in(keyword_releases(BLOCK_SPEC, "indexing_mode")):
        m.mark(
            f"BlockSpec(indexing_mode=...) is not taken by JAX {m.target} and the mode comes "
            "from a variable here: where it is pl.Blocked(), leave it out; where it is "
            "pl.Unblocked(padding), write each block_shape entry as pl.Element(n, (low, high))"
        )


def element_dims(m: FixContext, call: ast.Call, mode: ast.expr) -> bool:
    """A literal ``block_shape`` made of ``pl.Element`` entries, the padding taken from a
    literal ``pl.Unblocked(((lo, hi), ...))``; False (nothing written) where either is not
    literal."""
    spec_args = _calls.positional(call)
    given = _calls.keyword(call, "block_shape")
    shape = given.value if given is not None else (spec_args[0] if spec_args else None)
    if not isinstance(shape, ast.Tuple | ast.List):
        return False
    dims = list(shape.elts)
    pads: list[ast.expr | None] = [None] * len(dims)
    if isinstance(mode, ast.Call) and mode.args:
        padding = mode.args[0]
        if not isinstance(padding, ast.Tuple) or len(padding.elts) != len(dims):
            return False
        pads = list(padding.elts)
    element = f"{m.alias_for(PL)}.Element"
    made = [
        f"{element}({m.current(d)})" if p is None else f"{element}({m.current(d)}, {m.current(p)})"
        for d, p in zip(dims, pads, strict=True)
    ]
    m.replace(shape, f"({', '.join(made)}{',' if len(made) == 1 else ''})")
    return True
