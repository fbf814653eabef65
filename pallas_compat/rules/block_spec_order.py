"""PAL201 block-spec-order: ``pl.BlockSpec(index_map, block_shape)``, JAX 0.4.30's argument
order; 0.4.31 on take the block shape first.

Literals tell the order at once, names are followed to what the module binds them to
(``_argument_order.py``). ``migrate`` swaps the two values (commas, line breaks and
comments stay where they were); the shim's ``BlockSpec`` takes either order.
"""

from __future__ import annotations

import ast

import libcst as cst

from pallas_compat.facts._table import BLOCK_SPEC_ORDER
from pallas_compat.rules import _read
from pallas_compat.rules._argument_order import Order, block_spec_order
from pallas_compat.rules._context import FindContext, RewriteContext
from pallas_compat.rules._rule import Fix, Rule
from pallas_compat.rules._syntax import is_call_to
from pallas_compat.rules._use import Use, form_use

RULE = Rule(
    "PAL201",
    "block-spec-order",
    f"{BLOCK_SPEC_ORDER}, the argument order of the oldest releases",
    Fix.REWRITES,
)
#: The call form of the table (``CallForm``) this rule finds.
FORMS = frozenset({BLOCK_SPEC_ORDER})


def find_call(f: FindContext, node: ast.Call) -> Use | None:
    if (
        _read.is_call_to(node, f, "BlockSpec")
        and _read.block_spec_order(node, lambda: f.bindings) is Order.OLD
    ):
        return form_use(f, node, BLOCK_SPEC_ORDER)
    return None


def rewrite_call(m: RewriteContext, original: cst.Call, updated: cst.Call) -> cst.Call | None:
    if not is_call_to(original, m, "BlockSpec"):
        return None
    if block_spec_order(original, m.bindings) is not Order.OLD or m.form_works(BLOCK_SPEC_ORDER):
        return None
    first, second, *rest = updated.args
    # swap the values only: commas, line breaks and comments stay where they were
    return updated.with_changes(
        args=[first.with_changes(value=second.value), second.with_changes(value=first.value), *rest]
    )
