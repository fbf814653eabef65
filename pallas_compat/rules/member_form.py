"""PAL107 enum-member-form: an enum member JAX replaced by a form of another member
(``plgpu.Layout.WGMMA_ROW``, to 0.8.3, is ``plgpu.Layout.WGMMA.reduce(1)`` from 0.7.0).

The release scan reads each release's members (0.7.0-0.8.3 kept the old names as aliases of
the forms); the table's ``MEMBER_FORMS`` gives each form and the first release that takes it.
``migrate`` writes the form where the target lacks the member and takes the form; the shim
serves the old member as the form.
"""

from __future__ import annotations

import ast

import libcst as cst
from packaging.version import Version

from pallas_compat.facts._table import FEATURES_BY_KEY, MEMBER_FORMS
from pallas_compat.rules._context import FindContext, RewriteContext
from pallas_compat.rules._rule import Fix, Rule
from pallas_compat.rules._syntax import qualified
from pallas_compat.rules._use import Use, use_at

RULE = Rule(
    "PAL107",
    "enum-member-form",
    "an enum member JAX replaced by a form of another (plgpu.Layout.WGMMA_ROW -> "
    "plgpu.Layout.WGMMA.reduce(1))",
    Fix.REWRITES,
)
#: The enum's own name may have drifted too: the dispatcher looks inside the attribute.
LOOK_INSIDE = True


def find_name(f: FindContext, node: ast.AST, qname: str) -> Use | None:
    if qname not in f.table.member_forms:
        return None
    spelling, spans, hint = f.table.member_forms[qname]
    return use_at(f, node, spelling, spans, hint, certain=bool(spans))


def rewrite_attribute(
    m: RewriteContext, original: cst.Attribute, updated: cst.Attribute
) -> cst.BaseExpression | None:
    names = qualified(original, m)
    for (owner, member), (form, since) in MEMBER_FORMS.items():
        if original.attr.value != member:
            continue
        for loc in FEATURES_BY_KEY[owner].locations:
            qname = f"{loc.module}.{loc.attr}.{member}"
            if qname not in names:
                continue
            _, spans, _ = m.table.member_forms[qname]
            if m.works_in(spans):
                return None
            if Version(m.target) < Version(since):
                m.mark(
                    f"{loc.spelling}.{member} is not in JAX {m.target}, and "
                    f"{loc.spelling}.{form} came in {since}: keep an older JAX"
                )
                return None
            return cst.parse_expression(f"{m.code(updated.value)}.{form}")
    return None
