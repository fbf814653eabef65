"""PAL203 kernel-keyword: the kernel passed to ``pallas_call`` by keyword: ``f=`` (JAX 0.4.30
and 0.4.31), ``kernel=`` (0.4.33 on).

``migrate`` makes ``f=`` the first positional argument, which every release takes (after the
callable in ``functools.partial(pl.pallas_call, ...)``); the shim passes either keyword.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

import libcst as cst

from pallas_compat.facts._table import CALL_FORMS, CALL_KEYWORDS, F_KEYWORD, PALLAS_CALL
from pallas_compat.rules import _read
from pallas_compat.rules._context import FindContext, RewriteContext
from pallas_compat.rules._keywords import keyword_use
from pallas_compat.rules._rule import Fix, Rule
from pallas_compat.rules._syntax import called, keyword
from pallas_compat.rules._use import Use, form_use

RULE = Rule(
    "PAL203",
    "kernel-keyword",
    f"the kernel passed by keyword ({F_KEYWORD}, or kernel=): {CALL_FORMS[F_KEYWORD]}",
    Fix.REWRITES,
)
#: The call form of the table (``CallForm``) this rule finds.
FORMS = frozenset({F_KEYWORD})
KEYWORDS = frozenset({(PALLAS_CALL, "f"), (PALLAS_CALL, "kernel")})


def find_call(f: FindContext, node: ast.Call) -> Iterator[Use | None]:
    target = _read.called(node, f, lambda: f.bindings)
    if target is None or target[0] != PALLAS_CALL:
        return
    if (given := _read.keyword(node, "f")) is not None:
        yield form_use(f, given, F_KEYWORD)
    if (given := _read.keyword(node, "kernel")) is not None:
        yield keyword_use(f, PALLAS_CALL, given, CALL_KEYWORDS["kernel"])


def rewrite_call(m: RewriteContext, original: cst.Call, updated: cst.Call) -> cst.Call | None:
    target = called(original, m, m.bindings)
    given = keyword(updated, "f")
    if target is None or target[0] != PALLAS_CALL or given is None or m.form_works(F_KEYWORD):
        return None
    args = list(updated.args)
    last = args[-1] is given
    args.remove(given)
    # its comma goes with it (a comment after it stays on its line), unless it was last: then
    # the new last argument takes it, so that no "x, )" is left
    comma = cst.MaybeSentinel.DEFAULT if last else given.comma
    args.insert(target[1], cst.Arg(given.value, comma=comma))
    if last:
        args[-1] = args[-1].with_changes(comma=given.comma)
    return updated.with_changes(args=args)
