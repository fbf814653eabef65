"""PAL209 block-spec-subclass-init: ``class X(pl.BlockSpec)`` with an ``__init__`` of its own
(``def __init__(self, index_map, block_shape)``), which breaks once JAX rebuilds specs with
``spec.replace(memory_space=...)`` (0.10.0): that calls the subclass with every field by
keyword.

``migrate`` makes the ``__init__`` take and pass on every other field (``**fields``).
"""

from __future__ import annotations

import ast

from pallas_compat.facts._table import BLOCK_SPEC_SUBCLASS
from pallas_compat.rules import _subclass_init
from pallas_compat.rules._context import FindContext, Finding, FixContext
from pallas_compat.rules._rule import Example, Fix, Rule
from pallas_compat.rules._subclass_init import BLOCK_SPEC, FunctionNode, mendable, pass_fields_on
from pallas_compat.rules._use import Use, form_use

RULE = Rule(
    "PAL209",
    "block-spec-subclass-init",
    "a pl.BlockSpec subclass whose own __init__ takes only some fields",
    Fix.REWRITES,
    Example(
        before="""\
from jax.experimental.pallas import BlockSpec


class OldOrderSpec(BlockSpec):
    def __init__(self, index_map, block_shape):
        super().__init__(block_shape=block_shape, index_map=index_map)
""",
        after="""\
from jax.experimental.pallas import BlockSpec


class OldOrderSpec(BlockSpec):
    def __init__(self, index_map, block_shape, **fields):
        super().__init__(block_shape=block_shape, index_map=index_map, **fields)
""",
    ),
)
#: The call form of the table (``CallForm``) this rule finds.
FORMS = frozenset({BLOCK_SPEC_SUBCLASS})


def find_class(f: FindContext, node: ast.ClassDef) -> Use | Finding | None:
    spelling = f"{BLOCK_SPEC.module}.{BLOCK_SPEC.attr}"
    if _subclass_init.own_init(node) is None or not _subclass_init.subclasses(node, f, spelling):
        return None
    if _subclass_init.passes_every_field_on(node):
        return None  # JAX's rebuild reaches BlockSpec whole
    use = form_use(f, node, BLOCK_SPEC_SUBCLASS)  # at the class's name
    found = mendable(node)
    if found is None:
        return use  # left for a person
    return Finding(use, node, lambda m: mend(m, *found))


def mend(m: FixContext, init: FunctionNode, call: ast.Call) -> None:
    if not m.form_works(BLOCK_SPEC_SUBCLASS):
        pass_fields_on(m, init, call)
