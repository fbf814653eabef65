"""PAL108 function-to-method: a Pallas function JAX deprecated for a method of its first
argument (``plgpu.transpose_ref(ref, perm)``, deprecated in 0.11.2, is ``ref.transpose(perm)``).

The table's ``METHOD_FORMS`` names the method; the scan gives the function's releases and its
deprecation. ``migrate`` writes the method where the target deprecates or lacks the function;
the shim serves the function as the method where JAX dropped it.
"""

from __future__ import annotations

import ast

import libcst as cst

from pallas_compat.facts._table import METHOD_FORMS, Feature, Location
from pallas_compat.rules._context import FindContext, RewriteContext
from pallas_compat.rules._rewrite import ATOMS, without_argument
from pallas_compat.rules._rule import Fix, Rule
from pallas_compat.rules._syntax import qualified
from pallas_compat.rules._use import Use, name_use

RULE = Rule(
    "PAL108",
    "function-to-method",
    "a Pallas function JAX deprecated for a method of its first argument "
    "(plgpu.transpose_ref(ref, perm) -> ref.transpose(perm))",
    Fix.REWRITES,
)
FINAL = True
FUNCTIONS = {
    f"{module}.{name}": (Location(module, name), method)
    for (module, name), method in METHOD_FORMS.items()
}


def claims_feature(feature: Feature) -> bool:
    return False


def find_name(f: FindContext, node: ast.AST, qname: str) -> Use | None:
    if qname not in FUNCTIONS or qname not in f.table.drifted_names:
        return None
    return name_use(f, node, qname)


def rewrite_call(
    m: RewriteContext, original: cst.Call, updated: cst.Call
) -> cst.BaseExpression | None:
    for qname in qualified(original.func, m):
        if qname not in FUNCTIONS:
            continue
        location, method = FUNCTIONS[qname]
        if m.works(location):
            return None
        first = updated.args[0] if updated.args else None
        if first is None or first.keyword is not None or first.star:
            return None
        value = first.value
        if not isinstance(value, ATOMS) and not value.lpar:
            value = value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        m.unmark(f"{location.spelling} ")
        rest_only = without_argument(updated, first)
        return rest_only.with_changes(func=cst.Attribute(value, cst.Name(method)))
    return None
