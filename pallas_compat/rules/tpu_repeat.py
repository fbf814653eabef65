"""PAL302 tpu-repeat: ``pltpu.repeat(x, n, axis)``, which JAX removed (n copies side by side:
``jnp.tile`` along one axis).

``migrate`` writes ``jnp.concatenate([x] * n, axis=axis)`` where the three arguments are
given; the shim serves ``pltpu.repeat`` itself.
"""

from __future__ import annotations

import ast

import libcst as cst

from pallas_compat.facts._table import TPU, Feature, Location
from pallas_compat.rules._argument_order import positional
from pallas_compat.rules._context import FindContext, RewriteContext
from pallas_compat.rules._rewrite import ATOMS
from pallas_compat.rules._rule import Fix, Rule
from pallas_compat.rules._syntax import keyword, qualified
from pallas_compat.rules._use import Use, feature_name_use

RULE = Rule(
    "PAL302",
    "tpu-repeat",
    "pltpu.repeat, which JAX removed (jnp.concatenate of copies writes it)",
    Fix.REWRITES,
)
FEATURES = frozenset({"tpu_repeat"})
FINAL = True
TPU_REPEAT = Location(TPU, "repeat")


def claims_feature(feature: Feature) -> bool:
    return feature.key in FEATURES


def find_name(f: FindContext, node: ast.AST, qname: str) -> Use | None:
    return feature_name_use(f, node, qname, FEATURES)


def rewrite_call(
    m: RewriteContext, original: cst.Call, updated: cst.Call
) -> cst.BaseExpression | None:
    if f"{TPU}.repeat" not in qualified(original.func, m) or m.works(TPU_REPEAT):
        return None
    args = positional(updated)
    axis = keyword(updated, "axis")
    repeats = keyword(updated, "repeats")
    values = [a.value for a in args]
    if repeats is not None:
        values.insert(1, repeats.value)
    if axis is not None:
        values.append(axis.value)
    if len(values) != 3 or len(updated.args) != 3:
        return updated
    x, n, where = (m.code(v) for v in values)
    if not isinstance(values[1], ATOMS) and not values[1].lpar:
        n = f"({n})"  # [x] * (block_k // 128), not ([x] * block_k) // 128
    m.unmark("pltpu.repeat ")
    return cst.parse_expression(
        f"{m.alias_for('jax.numpy')}.concatenate([{x}] * {n}, axis={where})"
    )
