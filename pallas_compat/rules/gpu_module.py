"""PAL104 gpu-module: ``jax.experimental.pallas.gpu``, Triton's module until JAX renamed it
``jax.experimental.pallas.triton``.

Found in imports; ``migrate`` imports the new module under the old binding, so uses stay.
"""

from __future__ import annotations

import ast

import libcst as cst

from pallas_compat.facts._table import GPU_LEGACY, GPU_MODULE, PL, TRITON
from pallas_compat.rules._context import FindContext, RewriteContext
from pallas_compat.rules._rewrite import attr
from pallas_compat.rules._rule import Fix, Rule
from pallas_compat.rules._use import Use, form_use

RULE = Rule(
    "PAL104",
    "gpu-module",
    f"an import of {GPU_LEGACY} (Triton's module, renamed {TRITON})",
    Fix.REWRITES,
)
#: The call form of the table (``CallForm``) this rule finds.
FORMS = frozenset({GPU_MODULE})


def find_import(f: FindContext, module: str, where: ast.AST) -> Use | None:
    return form_use(f, where, GPU_MODULE) if module == GPU_LEGACY else None


def rewrite_import(m: RewriteContext, original: cst.Import, updated: cst.Import) -> cst.Import:
    names = []
    for alias in updated.names:
        dotted = cst.helpers.get_full_name_for_node(alias.name) or ""
        if dotted == GPU_LEGACY and alias.asname and not m.form_works(GPU_MODULE):
            alias = alias.with_changes(name=attr(TRITON))
        names.append(alias)
    return updated.with_changes(names=names)


def rewrite_import_from(
    m: RewriteContext, original: cst.ImportFrom, updated: cst.ImportFrom
) -> cst.ImportFrom:
    """``from ...pallas.gpu import X`` and ``from ...pallas import gpu [as g]``."""
    if isinstance(updated.names, cst.ImportStar):
        return updated
    source = cst.helpers.get_full_name_for_node(updated.module) if updated.module else ""
    if source == GPU_LEGACY and not m.form_works(GPU_MODULE):
        return updated.with_changes(module=attr(TRITON))
    if source != PL:
        return updated
    names = []
    for alias in updated.names:
        named_gpu = isinstance(alias.name, cst.Name) and alias.name.value == "gpu"
        if named_gpu and not m.form_works(GPU_MODULE):
            keep_binding = alias.asname or cst.AsName(cst.Name("gpu"))
            alias = alias.with_changes(
                name=cst.Name(TRITON.rpartition(".")[2]), asname=keep_binding
            )
        names.append(alias)
    return updated.with_changes(names=names)
