"""PAL209 block-spec-subclass-init: ``class X(pl.BlockSpec)`` with an ``__init__`` of its own
(``def __init__(self, index_map, block_shape)``), which breaks once JAX rebuilds specs with
``spec.replace(memory_space=...)`` (0.10.0): that calls the subclass with every field by
keyword.

``migrate`` makes the ``__init__`` take and pass on every other field (``**fields``).
"""

from __future__ import annotations

import ast

import libcst as cst

from pallas_compat.facts._table import BLOCK_SPEC_SUBCLASS
from pallas_compat.rules import _read
from pallas_compat.rules._context import FindContext, RewriteContext
from pallas_compat.rules._rule import Fix, Rule
from pallas_compat.rules._subclass_init import BLOCK_SPEC, mended, subclasses_block_spec
from pallas_compat.rules._use import Use, form_use

RULE = Rule(
    "PAL209",
    "block-spec-subclass-init",
    "a pl.BlockSpec subclass whose own __init__ takes only some fields",
    Fix.REWRITES,
)
#: The call form of the table (``CallForm``) this rule finds.
FORMS = frozenset({BLOCK_SPEC_SUBCLASS})


def find_class(f: FindContext, node: ast.ClassDef) -> Use | None:
    spelling = f"{BLOCK_SPEC.module}.{BLOCK_SPEC.attr}"
    if _read.own_init(node) is not None and _read.subclasses(node, f, spelling):
        return form_use(f, node, BLOCK_SPEC_SUBCLASS)  # at the class's name
    return None


def rewrite_class(m: RewriteContext, original: cst.ClassDef, updated: cst.ClassDef) -> cst.ClassDef:
    if not subclasses_block_spec(original, m) or m.form_works(BLOCK_SPEC_SUBCLASS):
        return updated
    return mended(updated) or updated
