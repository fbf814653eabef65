"""PAL101 renamed-name: a public name JAX renamed or moved (``pltpu.TPUCompilerParams`` ->
``pltpu.CompilerParams``, ``jax.experimental.enable_x64`` -> ``jax.enable_x64``).

Found where a name the table marks renamed, or one the release scan proved moved (both names
import one object), is used on a release that lacks it. ``migrate`` writes the newest spelling
the target has, in uses and in ``from`` imports (the binding stays, so later uses stay valid).
"""

from __future__ import annotations

import ast

import libcst as cst

from pallas_compat.facts._table import GPU_LEGACY, TRITON, Feature, Location
from pallas_compat.rules._context import FindContext, RewriteContext
from pallas_compat.rules._rewrite import attr
from pallas_compat.rules._rule import Fix, Rule
from pallas_compat.rules._syntax import qualified
from pallas_compat.rules._use import Use, name_use

RULE = Rule(
    "PAL101",
    "renamed-name",
    "a Pallas name (or a JAX one kernels import) that JAX renamed or moved",
    Fix.REWRITES,
)


def claims_feature(feature: Feature) -> bool:
    return feature.renamed


def find_name(f: FindContext, node: ast.AST, qname: str) -> Use | None:
    drift = f.table.drifted_names.get(qname)
    if drift is None:
        return None
    if drift.moved_to is not None or (drift.feature is not None and claims_feature(drift.feature)):
        return name_use(f, node, qname)
    return None


def rewrite_attribute(
    m: RewriteContext, original: cst.Attribute, updated: cst.Attribute
) -> cst.BaseExpression | None:
    for qname in qualified(original, m):
        hit = m.table.drifted_names.get(qname)
        if hit is None or m.works(hit.location):
            continue
        new = m.replacement(hit)
        if new is None:
            return None
        note_deprecated(m, new)
        old = hit.location
        if new.module == old.module or (old.module == GPU_LEGACY and new.module == TRITON):
            return updated.with_changes(attr=cst.Name(new.attr))
        return attr(f"{m.alias_for(new.module)}.{new.attr}")
    return None


def note_deprecated(m: RewriteContext, new: Location) -> None:
    """Where the spelling written is the target's only one and JAX deprecated it there, say
    so, with what to write once it goes."""
    if m.works(new):
        return
    drift = m.table.drifted_names.get(f"{new.module}.{new.attr}")
    advice = drift.hint if drift is not None else "keep an older JAX, or follow JAX's advice"
    m.mark(f"{new.spelling} is deprecated in JAX {m.target} (works, warns): {advice}")


def rewrite_import(m: RewriteContext, original: cst.Import, updated: cst.Import) -> cst.Import:
    """``import jax.util as util`` -> ``import jax._src.util as util`` where the module moved."""
    names = []
    for alias in updated.names:
        dotted = cst.helpers.get_full_name_for_node(alias.name) or ""
        if alias.asname and (moved := moved_module(m, dotted)) is not None:
            alias = alias.with_changes(name=attr(moved))
        names.append(alias)
    return updated.with_changes(names=names)


def moved_module(m: RewriteContext, dotted: str) -> str | None:
    """Where a module JAX moved lives on the target, when the target lacks the old one."""
    hit = m.table.drifted_names.get(dotted)
    if hit is None or m.works(hit.location):
        return None
    new = m.replacement(hit)
    if new is not None:
        note_deprecated(m, new)
    return None if new is None else f"{new.module}.{new.attr}"


def rewrite_import_from(
    m: RewriteContext, original: cst.ImportFrom, updated: cst.ImportFrom
) -> cst.ImportFrom | cst.FlattenSentinel[cst.BaseSmallStatement]:
    """``from old import Name`` -> ``from new import NewName as Name``: uses stay valid; a name
    that left for another module (outside Pallas) gets a statement of its own."""
    if isinstance(updated.names, cst.ImportStar):
        return updated
    source = cst.helpers.get_full_name_for_node(original.module) if original.module else ""
    base = (cst.helpers.get_full_name_for_node(updated.module) if updated.module else "") or ""
    names: list[cst.ImportAlias] = []
    elsewhere: dict[str, list[cst.ImportAlias]] = {}
    assert not isinstance(original.names, cst.ImportStar)
    # the rules before this one change no alias's place (the gpu module rule renames one)
    for written, alias in zip(original.names, updated.names, strict=True):
        name = cst.helpers.get_full_name_for_node(written.name) or ""
        keep_binding = alias.asname or cst.AsName(cst.Name(name))
        hit = m.table.drifted_names.get(f"{source}.{name}")
        new = m.replacement(hit) if hit and not m.works(hit.location) else None
        if new is not None:
            note_deprecated(m, new)
        if new is not None and new.module == base:
            alias = alias.with_changes(name=cst.Name(new.attr), asname=keep_binding)
        elif new is not None and hit is not None and hit.feature and hit.feature.outside:
            # from jax import util -> from jax._src import util as util
            moved = alias.with_changes(name=cst.Name(new.attr), asname=keep_binding)
            elsewhere.setdefault(new.module, []).append(moved)
            continue
        names.append(alias)
    if not elsewhere:
        return updated.with_changes(names=names)
    made: list[cst.ImportFrom] = []
    for module, aliases in ([(base, names)] if names else []) + list(elsewhere.items()):
        aliases[-1] = aliases[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        # the first statement keeps the layout (parentheses, comments) of the original
        made.append(updated.with_changes(module=attr(module), names=aliases))
    return made[0] if len(made) == 1 else cst.FlattenSentinel(made)
