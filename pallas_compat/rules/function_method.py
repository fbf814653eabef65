"""PAL108 function-to-method: a Pallas function JAX deprecated for a method of its first
argument (``plgpu.transpose_ref(ref, perm)``, deprecated in 0.11.2, is ``ref.transpose(perm)``).

The table's ``METHOD_FORMS`` names the method; the scan gives the function's releases and its
deprecation. ``migrate`` writes the method where the target deprecates or lacks the function;
the shim serves the function as the method where JAX dropped it.
"""

from __future__ import annotations

import ast

from pallas_compat.facts._table import METHOD_FORMS, Feature, Location
from pallas_compat.rules import removed_name
from pallas_compat.rules._arguments import arguments
from pallas_compat.rules._context import FindContext, Finding, FixContext
from pallas_compat.rules._rewrite import atom
from pallas_compat.rules._rule import Example, Fix, Rule
from pallas_compat.rules._use import Use, name_use

RULE = Rule(
    "PAL108",
    "function-to-method",
    "a Pallas function JAX deprecated for a method of its first argument "
    "(plgpu.transpose_ref(ref, perm) -> ref.transpose(perm))",
    Fix.REWRITES,
    Example(
        before="""\
from jax.experimental.pallas import mosaic_gpu as plgpu


def kernel(ref):
    view = plgpu.transpose_ref(ref, (1, 0))
""",
        after="""\


def kernel(ref):
    view = ref.transpose((1, 0))
""",
    ),
)
FUNCTIONS = {
    f"{module}.{name}": (Location(module, name), method)
    for (module, name), method in METHOD_FORMS.items()
}


def claims_feature(feature: Feature) -> bool:
    return False


def find_name(f: FindContext, node: ast.AST, qname: str) -> Use | Finding | None:
    if qname not in FUNCTIONS or qname not in f.table.drifted_names:
        return None
    use = name_use(f, node, qname)
    if not isinstance(node, ast.Attribute):
        return use
    return Finding(use, node, lambda m: removed_name.note(m, qname))  # the call takes it back


def find_call(f: FindContext, node: ast.Call) -> Finding | None:
    """A call of the function, whose first argument becomes the method's owner (the use is
    its name's, reported by ``find_name``)."""
    qname = next((q for q in sorted(f.qualified(node.func)) if q in FUNCTIONS), None)
    if qname is None:
        return None
    return Finding(None, node, lambda m: as_method(m, node, qname))


def as_method(m: FixContext, call: ast.Call, qname: str) -> bool | None:
    """``plgpu.transpose_ref(ref, perm)`` -> ``ref.transpose(perm)``."""
    location, method = FUNCTIONS[qname]
    if m.works(location):
        return None
    text = m.edits.source
    found = arguments(call, text)
    if not found or found[0].keyword is not None or found[0].starred:
        return None
    first = found[0]
    owner = m.current(first.node) if atom(m, first.node) else f"({m.current(first.node)})"
    opening = text.text[text.end(call.func) : first.start]  # "(" and the space after it
    rest = m.edits.current(first.slot_end, text.end(call) - 1) if len(found) > 1 else ""
    m.unmark(f"{location.spelling} ")
    m.replace(call, f"{owner}.{method}{opening}{rest})")
    return True
