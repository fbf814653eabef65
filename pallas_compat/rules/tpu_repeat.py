"""PAL302 tpu-repeat: ``pltpu.repeat(x, n, axis)``, which JAX removed (n copies side by side:
``jnp.tile`` along one axis).

``migrate`` writes ``jnp.concatenate([x] * n, axis=axis)`` where the three arguments are
given; the shim serves ``pltpu.repeat`` itself.
"""

from __future__ import annotations

import ast

from pallas_compat.facts._table import TPU, Feature, Location
from pallas_compat.rules import _calls, removed_name
from pallas_compat.rules._context import FindContext, Finding, FixContext
from pallas_compat.rules._rewrite import operand
from pallas_compat.rules._rule import Example, Fix, Rule
from pallas_compat.rules._use import Use, feature_name_use

RULE = Rule(
    "PAL302",
    "tpu-repeat",
    "pltpu.repeat, which JAX removed (jnp.concatenate of copies writes it)",
    Fix.REWRITES,
    Example(
        before="""\
import jax.numpy as jnp
from jax.experimental.pallas import tpu as pltpu


def kernel(x_ref, o_ref):
    o_ref[...] = pltpu.repeat(x_ref[...], 2, 1)
""",
        after="""\
import jax.numpy as jnp


def kernel(x_ref, o_ref):
    o_ref[...] = jnp.concatenate([x_ref[...]] * 2, axis=1)
""",
    ),
)
FEATURES = frozenset({"tpu_repeat"})
TPU_REPEAT = Location(TPU, "repeat")


def claims_feature(feature: Feature) -> bool:
    return feature.key in FEATURES


def find_name(f: FindContext, node: ast.AST, qname: str) -> Use | Finding | None:
    use = feature_name_use(f, node, qname, FEATURES)
    if use is None or not isinstance(node, ast.Attribute):
        return use
    return Finding(use, node, lambda m: removed_name.note(m, qname))  # the call takes it back


def find_call(f: FindContext, node: ast.Call) -> Finding | None:
    """A call of ``pltpu.repeat`` (its name's use is ``find_name``'s)."""
    if f"{TPU}.repeat" not in f.qualified(node.func):
        return None
    return Finding(None, node, lambda m: concatenated(m, node))


def concatenated(m: FixContext, call: ast.Call) -> bool | None:
    """``pltpu.repeat(x, n, axis)`` -> ``jnp.concatenate([x] * n, axis=axis)``, where the
    three are given (by position, or ``repeats=``/``axis=``)."""
    if m.works(TPU_REPEAT):
        return None
    values: list[ast.expr] = list(_calls.positional(call))
    repeats, axis = _calls.keyword(call, "repeats"), _calls.keyword(call, "axis")
    if repeats is not None:
        values.insert(1, repeats.value)
    if axis is not None:
        values.append(axis.value)
    if len(values) != 3 or len(call.args) + len(call.keywords) != 3:
        return True  # no rewrite: its name's note stands, and no other rule rewrites the call
    x, where = m.current(values[0]), m.current(values[2])
    n = operand(m, values[1])  # [x] * (block_k // 128), not ([x] * block_k) // 128
    m.unmark("pltpu.repeat ")
    m.replace(call, f"{m.alias_for('jax.numpy')}.concatenate([{x}] * {n}, axis={where})")
    return True
