"""PAL201 block-spec-order: ``pl.BlockSpec(index_map, block_shape)``, JAX 0.4.30's argument
order; 0.4.31 on take the block shape first.

Literals tell the order at once, names are followed to what the module binds them to
(``_argument_order.py``). ``migrate`` swaps the two values (commas, line breaks and
comments stay where they were); the shim's ``BlockSpec`` takes either order.
"""

from __future__ import annotations

import ast

from pallas_compat.facts._table import BLOCK_SPEC_ORDER
from pallas_compat.rules import _argument_order, _calls
from pallas_compat.rules._argument_order import Order
from pallas_compat.rules._context import FindContext, Finding, FixContext
from pallas_compat.rules._rule import Example, Fix, Rule
from pallas_compat.rules._use import form_use

RULE = Rule(
    "PAL201",
    "block-spec-order",
    f"{BLOCK_SPEC_ORDER}, the argument order of the oldest releases",
    Fix.REWRITES,
    Example(
        before="""\
from jax.experimental import pallas as pl

spec = pl.BlockSpec(lambda i: (i, 0), (8, 128))
""",
        after="""\
from jax.experimental import pallas as pl

spec = pl.BlockSpec((8, 128), lambda i: (i, 0))
""",
    ),
)
#: The call form of the table (``CallForm``) this rule finds.
FORMS = frozenset({BLOCK_SPEC_ORDER})


def find_call(f: FindContext, node: ast.Call) -> Finding | None:
    if (
        _calls.is_call_to(node, f, "BlockSpec")
        and _argument_order.block_spec_order(node, lambda: f.bindings) is Order.OLD
    ):
        return Finding(form_use(f, node, BLOCK_SPEC_ORDER), node, lambda m: swap(m, node))
    return None


def swap(m: FixContext, call: ast.Call) -> None:
    """The two values swapped: commas, line breaks and comments stay where they were."""
    if m.form_works(BLOCK_SPEC_ORDER):
        return
    first, second, *_ = _calls.positional(call)
    one, other = m.current(first), m.current(second)
    m.replace(first, other)
    m.replace(second, one)
