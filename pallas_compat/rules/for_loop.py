"""PAL106 for-loop: ``for_loop`` over refs (``jax._src.lax.control_flow.for_loop``), the
in-kernel loop of the JAX 0.4 era, gone in 0.7.2.

``migrate`` removes the import and writes a local ``for_loop`` of the same signature into the
module (``_for_loop_module.py`` says why no call-site rewrite can be right); the shim serves it.
"""

from __future__ import annotations

import ast

from pallas_compat.facts._table import FOR_LOOP, Feature
from pallas_compat.rules._context import FindContext, Finding
from pallas_compat.rules._for_loop_module import helper, served_locally
from pallas_compat.rules._rule import Example, Fix, Rule
from pallas_compat.rules._use import Use, feature_name_use

RULE = Rule(
    "PAL106",
    "for-loop",
    f"for_loop over refs ({FOR_LOOP}), which JAX removed",
    Fix.REWRITES,
    Example(
        before="""\
import jax
from jax._src.lax.control_flow.for_loop import for_loop


def total(x):
    def body(i, refs):
        refs[0][...] += x

    return for_loop(4, body, x)
""",
        after=lambda: (
            "import jax\n"
            + helper()
            + """\


def total(x):
    def body(i, refs):
        refs[0][...] += x

    return for_loop(4, body, x)
"""
        ),
    ),
)
FEATURES = frozenset({"for_loop", "for_loop_module"})
#: A noqa comment naming it anywhere leaves the whole file to it (its rewrite is the file's).
WHOLE_FILE = True


def claims_feature(feature: Feature) -> bool:
    return feature.key in FEATURES


def find_name(f: FindContext, node: ast.AST, qname: str) -> Use | None:
    return feature_name_use(f, node, qname, FEATURES)


def find_module(f: FindContext, node: ast.Module) -> Finding | None:
    """The whole module's rewrite: its imports of ``for_loop`` and the helper it gets."""
    rewrite = served_locally(f, node)
    return None if rewrite is None else Finding(None, node, rewrite)
