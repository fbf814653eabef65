"""PAL102 removed-name: a public Pallas name that some releases lack, with no successor that is
the same object (``pltpu.delay``, ``pl.IndexingMode``).

Found where such a name is used; the advice is JAX's own deprecation message, a line of the
table's ``WRITE_INSTEAD``, or the releases that have it. ``migrate`` cannot know what the code
meant: it notes the line for a person.
"""

from __future__ import annotations

import ast

from pallas_compat.facts._table import Feature
from pallas_compat.rules._advice import instead
from pallas_compat.rules._context import FindContext, Finding, FixContext
from pallas_compat.rules._rule import Example, Fix, Rule
from pallas_compat.rules._use import Use, name_use

RULE = Rule(
    "PAL102",
    "removed-name",
    "a Pallas name some releases lack, with no same-object successor",
    Fix.NOTES,
    Example(
        before="""\
from jax.experimental.pallas import tpu as pltpu


def kernel(x_ref, o_ref):
    pltpu.delay(100)
""",
        after="""\
from jax.experimental.pallas import tpu as pltpu


def kernel(x_ref, o_ref):
    pltpu.delay(100)  # pallas-compat: pltpu.delay is not in JAX 0.12.0.1: pl.delay
""",
    ),
)


def claims_feature(feature: Feature) -> bool:
    return True


def find_name(f: FindContext, node: ast.AST, qname: str) -> Use | Finding | None:
    """Every drifted name no rule before this one claimed."""
    if qname not in f.table.drifted_names:
        return None
    use = name_use(f, node, qname)
    if not isinstance(node, ast.Attribute):  # a bare name: its import says it, not each use
        return use
    return Finding(use, node, lambda m: note(m, qname))


def note(m: FixContext, qname: str) -> None:
    """What to write instead, where the target lacks the name (or deprecates it) and nothing
    the same serves it."""
    hit = m.table.drifted_names[qname]
    if m.works(hit.location) or m.replacement(hit) is not None:
        return
    fate = "is deprecated in" if m.works_in(hit.location.releases) else "is not in"
    advice = instead(hit, (m.target,), f"JAX {m.target}")
    m.mark(f"{hit.location.spelling} {fate} JAX {m.target}: {advice}")
