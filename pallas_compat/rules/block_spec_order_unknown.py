"""PAL202 block-spec-order-unknown: a ``pl.BlockSpec(a, b)`` whose two arguments are neither
literals nor bound to something that tells which is the index map.

Doctor cannot tell whether it breaks: it says so (``cannot tell``) rather than guess, and
``migrate`` leaves the call alone.
"""

from __future__ import annotations

import ast

from pallas_compat.facts._table import BLOCK_SPEC_ORDER, CALL_FORMS, call_form_releases, describe
from pallas_compat.rules import _argument_order, _calls
from pallas_compat.rules._argument_order import Order
from pallas_compat.rules._context import FindContext
from pallas_compat.rules._rule import Example, Fix, Rule
from pallas_compat.rules._use import Use, use_at

RULE = Rule(
    "PAL202",
    "block-spec-order-unknown",
    "a pl.BlockSpec(a, b) whose argument order cannot be told from the source",
    Fix.NONE,
    Example(
        before="""\
from jax.experimental import pallas as pl


def spec(a, b):
    return pl.BlockSpec(a, b)
""",
    ),
)
API = "BlockSpec(?, ?): argument order unknown"


def advice() -> str:
    old = describe(call_form_releases(BLOCK_SPEC_ORDER))
    return (
        f"{CALL_FORMS[BLOCK_SPEC_ORDER]}; JAX {old} took index_map first: check which "
        "argument is the index map"
    )


def find_call(f: FindContext, node: ast.Call) -> Use | None:
    if (
        _calls.is_call_to(node, f, "BlockSpec")
        and _argument_order.block_spec_order(node, lambda: f.bindings) is Order.UNKNOWN
    ):
        return use_at(f, node, API, (), advice(), certain=False)
    return None
