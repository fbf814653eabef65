"""PAL102 removed-name: a public Pallas name that some releases lack, with no successor that is
the same object (``pltpu.delay``, ``pl.IndexingMode``).

Found where such a name is used; the advice is JAX's own deprecation message, a line of the
table's ``WRITE_INSTEAD``, or the releases that have it. ``migrate`` cannot know what the code
meant: it notes the line for a person.
"""

from __future__ import annotations

import ast

import libcst as cst

from pallas_compat.facts._table import Feature
from pallas_compat.rules import masked_access
from pallas_compat.rules._advice import instead
from pallas_compat.rules._context import FindContext, RewriteContext
from pallas_compat.rules._rule import Fix, Rule
from pallas_compat.rules._syntax import qualified
from pallas_compat.rules._use import Use, name_use

RULE = Rule(
    "PAL102",
    "removed-name",
    "a Pallas name some releases lack, with no same-object successor",
    Fix.NOTES,
)


def claims_feature(feature: Feature) -> bool:
    return True


def find_name(f: FindContext, node: ast.AST, qname: str) -> Use | None:
    """Every drifted name no rule before this one claimed."""
    return name_use(f, node, qname) if qname in f.table.drifted_names else None


def rewrite_attribute(m: RewriteContext, original: cst.Attribute, updated: cst.Attribute) -> None:
    for qname in qualified(original, m):
        hit = m.table.drifted_names.get(qname)
        if hit is None or m.works(hit.location):
            continue
        if m.replacement(hit) is None and qname not in masked_access.NOTED_AT_THE_CALL:
            fate = "is deprecated in" if m.works_in(hit.location.releases) else "is not in"
            advice = instead(hit, (m.target,), f"JAX {m.target}")
            m.mark(f"{hit.location.spelling} {fate} JAX {m.target}: {advice}")
        return None
    return None
