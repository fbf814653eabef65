"""PAL107 enum-member-form: an enum member JAX replaced by a form of another member
(``plgpu.Layout.WGMMA_ROW``, to 0.8.3, is ``plgpu.Layout.WGMMA.reduce(1)`` from 0.7.0).

The release scan reads each release's members (0.7.0-0.8.3 kept the old names as aliases of
the forms); the table's ``MEMBER_FORMS`` gives each form and the first release that takes it.
``migrate`` writes the form where the target lacks the member and takes the form; the shim
serves the old member as the form.
"""

from __future__ import annotations

import ast

from pallas_compat.facts._table import FEATURES_BY_KEY, MEMBER_FORMS
from pallas_compat.rules._context import FindContext, Finding, FixContext
from pallas_compat.rules._rule import Example, Fix, Rule
from pallas_compat.rules._use import use_at

RULE = Rule(
    "PAL107",
    "enum-member-form",
    "an enum member JAX replaced by a form of another (plgpu.Layout.WGMMA_ROW -> "
    "plgpu.Layout.WGMMA.reduce(1))",
    Fix.REWRITES,
    Example(
        before="""\
from jax.experimental.pallas import mosaic_gpu as plgpu

layout = plgpu.Layout.WGMMA_ROW
""",
        after="""\
from jax.experimental.pallas import mosaic_gpu as plgpu

layout = plgpu.Layout.WGMMA.reduce(1)
""",
    ),
)
#: The enum's own name may have drifted too: the dispatcher looks inside the attribute.
LOOK_INSIDE = True


def find_name(f: FindContext, node: ast.AST, qname: str) -> Finding | None:
    if qname not in f.table.member_forms:
        return None
    spelling, spans, hint = f.table.member_forms[qname]
    use = use_at(f, node, spelling, spans, hint, certain=bool(spans))
    return Finding(use, node, lambda m: as_form(m, node, qname))


def as_form(m: FixContext, node: ast.AST, qname: str) -> None:
    """``plgpu.Layout.WGMMA_ROW`` -> ``plgpu.Layout.WGMMA.reduce(1)`` where the target lacks
    the member and takes the form."""
    if not isinstance(node, ast.Attribute):
        return
    for (owner, member), (form, since) in MEMBER_FORMS.items():
        if node.attr != member:
            continue
        for loc in FEATURES_BY_KEY[owner].locations:
            if qname != f"{loc.module}.{loc.attr}.{member}":
                continue
            _, spans, _ = m.table.member_forms[qname]
            if m.works_in(spans):
                return
            if not m.since(since):
                m.mark(
                    f"{loc.spelling}.{member} is not in JAX {m.target}, and "
                    f"{loc.spelling}.{form} came in {since}: keep an older JAX"
                )
                return
            m.replace(node, f"{m.current(node.value)}.{form}")
            return
