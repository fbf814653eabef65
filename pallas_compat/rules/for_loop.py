"""PAL106 for-loop: ``for_loop`` over refs (``jax._src.lax.control_flow.for_loop``), the
in-kernel loop of the JAX 0.4 era, gone in 0.7.2.

``migrate`` removes the import and writes a local ``for_loop`` of the same signature into the
module (``_for_loop_module.py`` says why no call-site rewrite can be right); the shim serves it.
"""

from __future__ import annotations

import ast

import libcst as cst

from pallas_compat.facts._table import FOR_LOOP, Feature
from pallas_compat.facts._target import Target
from pallas_compat.rules._context import FindContext
from pallas_compat.rules._for_loop_module import migrate_for_loop
from pallas_compat.rules._rule import Fix, Rule
from pallas_compat.rules._use import Use, feature_name_use

RULE = Rule(
    "PAL106",
    "for-loop",
    f"for_loop over refs ({FOR_LOOP}), which JAX removed",
    Fix.REWRITES,
)
FEATURES = frozenset({"for_loop", "for_loop_module"})
#: The ``before`` pass rewrites only what names this, and no earlier pass writes it.
MENTIONS = "for_loop"


def claims_feature(feature: Feature) -> bool:
    return feature.key in FEATURES


def find_name(f: FindContext, node: ast.AST, qname: str) -> Use | None:
    return feature_name_use(f, node, qname, FEATURES)


def before(module: cst.Module, target: Target) -> cst.Module:
    return migrate_for_loop(module, target)
