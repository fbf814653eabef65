"""PAL103 moved-enum-member: a member JAX moved out of an enum to a name of its own
(``pltpu.MemorySpace.ANY``, 0.6.2-0.9.0.1, an alias of ``pl.ANY`` from 0.8.2, then
``pl.ANY`` alone).

The release scan reads each release's enum members; the table's ``MEMBER_MOVES`` says where
each went. ``migrate`` writes the new name where the target has it.
"""

from __future__ import annotations

import ast

from pallas_compat.facts._table import FEATURES_BY_KEY, MEMBER_MOVES
from pallas_compat.rules._context import FindContext, Finding, FixContext
from pallas_compat.rules._rule import Example, Fix, Rule
from pallas_compat.rules._use import use_at

RULE = Rule(
    "PAL103",
    "moved-enum-member",
    "an enum member JAX moved to a name of its own (pltpu.MemorySpace.ANY -> pl.ANY)",
    Fix.REWRITES,
    Example(
        before="""\
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

spec = pl.BlockSpec(memory_space=pltpu.TPUMemorySpace.ANY)
""",
        after="""\
from jax.experimental import pallas as pl

spec = pl.BlockSpec(memory_space=pl.ANY)
""",
    ),
)
#: The enum's own name may have drifted too: the dispatcher looks inside the attribute.
LOOK_INSIDE = True


def find_name(f: FindContext, node: ast.AST, qname: str) -> Finding | None:
    if qname not in f.table.moved_members:
        return None
    spelling, spans, hint = f.table.moved_members[qname]
    use = use_at(f, node, spelling, spans, hint, certain=bool(spans))
    return Finding(use, node, lambda m: moved(m, node, qname))


def moved(m: FixContext, node: ast.AST, qname: str) -> None:
    """``<enum>.MEMBER`` -> its own name, where the target has that name."""
    for (owner, member), key in MEMBER_MOVES.items():
        enum_names = FEATURES_BY_KEY[owner].locations
        if qname in {f"{loc.module}.{loc.attr}.{member}" for loc in enum_names}:
            new = FEATURES_BY_KEY[key].modern
            if not isinstance(node, ast.Attribute) or not m.works(new):
                return
            for loc in enum_names:  # the enum's own name is no longer used here
                m.unmark(f"{loc.spelling} ")
            m.replace(node, f"{m.alias_for(new.module)}.{new.attr}")
            return
