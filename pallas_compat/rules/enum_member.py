"""PAL103 moved-enum-member: a member JAX moved out of an enum to a name of its own
(``pltpu.MemorySpace.ANY``, 0.6.2-0.9.0.1, an alias of ``pl.ANY`` from 0.8.2, then
``pl.ANY`` alone).

The release scan reads each release's enum members; the table's ``MEMBER_MOVES`` says where
each went. ``migrate`` writes the new name where the target has it.
"""

from __future__ import annotations

import ast

import libcst as cst

from pallas_compat.facts._table import FEATURES_BY_KEY, MEMBER_MOVES, Location
from pallas_compat.rules._context import FindContext, RewriteContext
from pallas_compat.rules._rewrite import attr
from pallas_compat.rules._rule import Fix, Rule
from pallas_compat.rules._syntax import qualified
from pallas_compat.rules._use import Use, use_at

RULE = Rule(
    "PAL103",
    "moved-enum-member",
    "an enum member JAX moved to a name of its own (pltpu.MemorySpace.ANY -> pl.ANY)",
    Fix.REWRITES,
)
#: The enum's own name may have drifted too: the dispatcher looks inside the attribute.
LOOK_INSIDE = True


def find_name(f: FindContext, node: ast.AST, qname: str) -> Use | None:
    if qname not in f.table.moved_members:
        return None
    spelling, spans, hint = f.table.moved_members[qname]
    return use_at(f, node, spelling, spans, hint, certain=bool(spans))


def new_home(m: RewriteContext, original: cst.Attribute) -> Location | None:
    """Where ``<enum>.MEMBER`` lives now, when the target has the new name."""
    names = qualified(original, m)
    for (owner, member), key in MEMBER_MOVES.items():
        enum_names = FEATURES_BY_KEY[owner].locations
        if names & {f"{loc.module}.{loc.attr}.{member}" for loc in enum_names}:
            new = FEATURES_BY_KEY[key].modern
            if not m.works(new):
                return None
            for loc in enum_names:  # the enum's own name is no longer used here
                m.unmark(f"{loc.spelling} ")
            return new
    return None


def rewrite_attribute(
    m: RewriteContext, original: cst.Attribute, updated: cst.Attribute
) -> cst.BaseExpression | None:
    new = new_home(m, original)
    return None if new is None else attr(f"{m.alias_for(new.module)}.{new.attr}")
