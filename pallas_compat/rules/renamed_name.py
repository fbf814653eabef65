"""PAL101 renamed-name: a public name JAX renamed or moved (``pltpu.TPUCompilerParams`` ->
``pltpu.CompilerParams``, ``jax.experimental.enable_x64`` -> ``jax.enable_x64``).

Found where a name the table marks renamed, or one the release scan proved moved (both names
import one object), is used on a release that lacks it. ``migrate`` writes the newest spelling
the target has, in uses and in ``from`` imports (the binding stays, so later uses stay valid).
"""

from __future__ import annotations

import ast

from pallas_compat.facts._table import GPU_LEGACY, GPU_MODULE, TRITON, Feature, Location
from pallas_compat.rules import removed_name
from pallas_compat.rules._context import FindContext, Finding, FixContext
from pallas_compat.rules._rule import Example, Fix, Rule
from pallas_compat.rules._use import Use, name_use

RULE = Rule(
    "PAL101",
    "renamed-name",
    "a Pallas name (or a JAX one kernels import) that JAX renamed or moved",
    Fix.REWRITES,
    Example(
        before="""\
from jax.experimental.pallas import tpu as pltpu

params = pltpu.TPUCompilerParams(dimension_semantics=("parallel",))
""",
        after="""\
from jax.experimental.pallas import tpu as pltpu

params = pltpu.CompilerParams(dimension_semantics=("parallel",))
""",
    ),
)


def claims_feature(feature: Feature) -> bool:
    return feature.renamed


def find_name(f: FindContext, node: ast.AST, qname: str) -> Use | Finding | None:
    drift = f.table.drifted_names.get(qname)
    if drift is None:
        return None
    if drift.moved_to is None and not (drift.feature is not None and claims_feature(drift.feature)):
        return None
    use = name_use(f, node, qname)
    if isinstance(node, ast.Attribute):
        return Finding(use, node, lambda m: rename(m, node, qname))
    statement = f.import_of(node)
    if isinstance(statement, ast.ImportFrom):
        return Finding(use, statement, lambda m: rename_imported(m, statement))
    if isinstance(statement, ast.Import) and isinstance(node, ast.alias):
        alias = node
        return Finding(use, alias, lambda m: move_module(m, alias))
    return use  # a bare name: its import is rewritten


def rename(m: FixContext, node: ast.Attribute, qname: str) -> None:
    """The newest spelling the target has: the name alone where the module is the same (a
    prefix stays as written), else the new module's, imported where the file lacks it."""
    hit = m.table.drifted_names[qname]
    if m.works(hit.location):
        return
    new = m.replacement(hit)
    if new is None:
        removed_name.note(m, qname)
        return
    note_deprecated(m, new)
    old = hit.location
    if new.module == old.module or (old.module == GPU_LEGACY and new.module == TRITON):
        m.replace(node, f"{m.current(node.value)}.{new.attr}")
    else:
        m.replace(node, f"{m.alias_for(new.module)}.{new.attr}")


def note_deprecated(m: FixContext, new: Location) -> None:
    """Where the spelling written is the target's only one and JAX deprecated it there, say
    so, with what to write once it goes."""
    if m.works(new):
        return
    drift = m.table.drifted_names.get(f"{new.module}.{new.attr}")
    advice = drift.hint if drift is not None else "keep an older JAX, or follow JAX's advice"
    m.mark(f"{new.spelling} is deprecated in JAX {m.target} (works, warns): {advice}")


def move_module(m: FixContext, alias: ast.alias) -> None:
    """``import jax.util as util`` -> ``import jax._src.util as util`` where the module moved."""
    hit = m.table.drifted_names.get(alias.name)
    if not alias.asname or hit is None or m.works(hit.location):
        return
    new = m.replacement(hit)
    if new is None:
        return
    note_deprecated(m, new)
    m.replace(alias, f"{new.module}.{new.attr} as {alias.asname}")


def rename_imported(m: FixContext, statement: ast.ImportFrom) -> bool:
    """``from old import Name`` -> ``from new import NewName as Name``: uses stay valid; a name
    that left for another module (outside Pallas) gets a statement of its own, after this one
    (each such module one statement)."""
    source = statement.module or ""
    base = GPU_LEGACY_TO.get(source, source) if not m.form_works(GPU_MODULE) else source
    elsewhere: dict[str, list[str]] = {}
    kept = []
    for alias in statement.names:
        binding = alias.asname or alias.name
        hit = m.table.drifted_names.get(f"{source}.{alias.name}")
        new = m.replacement(hit) if hit and not m.works(hit.location) else None
        if new is not None:
            note_deprecated(m, new)
        if new is not None and new.module == base:
            m.replace(alias, f"{new.attr} as {binding}")
        elif new is not None and hit is not None and hit.feature and hit.feature.outside:
            elsewhere.setdefault(new.module, []).append(f"{new.attr} as {binding}")
            continue
        kept.append(alias)
    if elsewhere:
        text = m.edits.source
        line_start = text.starts[statement.lineno - 1]
        indent = text.text[line_start : text.start(statement)]
        for alias in statement.names:
            if alias not in kept:
                drop_alias(m, statement, alias)
        lines = [f"from {module} import {', '.join(names)}" for module, names in elsewhere.items()]
        if not kept:
            m.replace(statement, f"\n{indent}".join(lines))
        else:
            m.edits.insert(text.end(statement), "".join(f"\n{indent}{line}" for line in lines))
    return True


def drop_alias(m: FixContext, statement: ast.ImportFrom, alias: ast.alias) -> None:
    """One name of a ``from`` import gone, its comma with it."""
    text = m.edits.source
    names = statement.names
    index = names.index(alias)
    if len(names) == 1:
        return
    if index + 1 < len(names):
        m.edits.replace(text.start(alias), text.start(names[index + 1]), "")
    else:
        m.edits.replace(text.end(names[index - 1]), text.end(alias), "")


#: ``from jax.experimental.pallas.gpu import X``: the module the gpu-module rule writes.
GPU_LEGACY_TO = {GPU_LEGACY: TRITON}
