"""PAL203 kernel-keyword: the kernel passed to ``pallas_call`` by keyword: ``f=`` (JAX 0.4.30
and 0.4.31), ``kernel=`` (0.4.33 on).

``migrate`` makes ``f=`` the first positional argument, which every release takes (after the
callable in ``functools.partial(pl.pallas_call, ...)``); the shim passes either keyword.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from pallas_compat.facts._table import CALL_FORMS, CALL_KEYWORDS, F_KEYWORD, PALLAS_CALL
from pallas_compat.rules import _calls
from pallas_compat.rules._arguments import arguments, drop, separator
from pallas_compat.rules._context import FindContext, Finding, FixContext
from pallas_compat.rules._keywords import keyword_use
from pallas_compat.rules._rule import Example, Fix, Rule
from pallas_compat.rules._use import Use, form_use

RULE = Rule(
    "PAL203",
    "kernel-keyword",
    f"the kernel passed by keyword ({F_KEYWORD}, or kernel=): {CALL_FORMS[F_KEYWORD]}",
    Fix.REWRITES,
    Example(
        before="""\
from jax.experimental import pallas as pl

run = pl.pallas_call(f=kernel, out_shape=shape)
""",
        after="""\
from jax.experimental import pallas as pl

run = pl.pallas_call(kernel, out_shape=shape)
""",
    ),
)
#: The call form of the table (``CallForm``) this rule finds.
FORMS = frozenset({F_KEYWORD})
KEYWORDS = frozenset({(PALLAS_CALL, "f"), (PALLAS_CALL, "kernel")})


def find_call(f: FindContext, node: ast.Call) -> Iterator[Use | Finding | None]:
    target = _calls.called(node, f, lambda: f.bindings)
    if target is None or target[0] != PALLAS_CALL:
        return
    if (given := _calls.keyword(node, "f")) is not None:
        use, keyword, skip = form_use(f, given, F_KEYWORD), given, target[1]
        yield Finding(use, node, lambda m: positional(m, node, keyword, skip))
    if (given := _calls.keyword(node, "kernel")) is not None:
        yield keyword_use(f, PALLAS_CALL, given, CALL_KEYWORDS["kernel"])


def positional(m: FixContext, call: ast.Call, given: ast.keyword, at: int) -> None:
    """``f=kernel`` made the first positional argument (after the callable of a
    ``functools.partial``): its comma goes with it, unless it was last, when the new last
    argument takes it, so that no ``x, )`` is left."""
    if m.form_works(F_KEYWORD):
        return
    text = m.edits.source
    found = arguments(call, text)
    moved = next(a for a in found if a.node is given)
    others = [a for a in found if a is not moved]
    value = m.current(given.value)
    if not others:
        m.replace(given, value)
        return
    comma = separator(moved, text) if moved is not found[-1] else ", "
    drop(m.edits, call, moved)
    if at < len(others):
        m.edits.insert(others[at].start, f"{value}{comma}")
    else:
        m.edits.insert(others[-1].end, f", {value}")
