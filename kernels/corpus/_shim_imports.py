"""The shim route as a user takes it: every import of a module the shim serves changed to
``pallas_compat``'s, and nothing else.

The shim serves the Pallas modules and the JAX modules outside Pallas that old kernel files
import (``for_loop``, ``jax.util``, ``jax._src.dtypes``, ``jax._src.prng``: ``NAMESPACE_OF``).
Old code spells those imports in many ways (``from jax.experimental import pallas as pl``,
``import jax.experimental.pallas as pl``, ``from jax.experimental.pallas import tpu as pltpu
# a comment``, ``from jax.experimental.pallas import BlockSpec``, ``from jax import util as
jax_util``); each becomes the same import of the shim's namespace (``from pallas_compat import
pltpu as pltpu``, ``from pallas_compat.pl import BlockSpec``) under the same local names,
comments kept. Imports of JAX's own shipped kernels (``jax.experimental.pallas.ops``) stay.
"""

from __future__ import annotations

import ast
import re

from pallas_compat.facts import NAMESPACE_OF
from pallas_compat.rules._edits import Edits, Text

SHIM = "pallas_compat"
#: Modules whose submodules the shim serves: ``from jax.experimental import pallas``.
PARENTS = frozenset(module.rpartition(".")[0] for module in NAMESPACE_OF)
#: ``from <module> import``: where the module is written in a ``from`` import.
FROM_MODULE = re.compile(r"from(\s+)(.*?)(\s+)import\b", re.S)


def shim_of(module: str) -> str:
    """``jax.experimental.pallas.tpu`` -> ``pallas_compat.pltpu`` (an importable module)."""
    return f"{SHIM}.{NAMESPACE_OF[module]}"


def shim_imports(source: str) -> str:
    """``source`` with its Pallas imports taken from ``pallas_compat`` instead."""
    text = Text(source)
    edits = Edits(text)
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            import_(edits, node)
        elif isinstance(node, ast.ImportFrom):
            import_from(edits, node)
    return edits.result()


def import_(edits: Edits, node: ast.Import) -> None:
    """``import jax.experimental.pallas.tpu as pltpu`` -> ``from pallas_compat import
    pltpu as pltpu``. A plain ``import jax.experimental.pallas`` binds ``jax``, whose
    attribute chain the shim does not stand in for: it stays."""
    text = edits.source
    kept, shimmed = [], []
    for alias in node.names:
        space = NAMESPACE_OF.get(alias.name)
        if space is None or alias.asname is None:
            kept.append(text.segment(alias))
        else:
            shimmed.append(f"{space} as {alias.asname}")
    if not shimmed:
        return
    made = [f"from {SHIM} import {', '.join(shimmed)}"]
    if kept:
        made.insert(0, f"import {', '.join(kept)}")
    statements(edits, node, made)


def import_from(edits: Edits, node: ast.ImportFrom) -> None:
    """``from jax.experimental import pallas as pl`` -> ``from pallas_compat import pl as
    pl``; ``from jax.experimental.pallas import tpu as pltpu, BlockSpec`` -> ``from
    pallas_compat import pltpu as pltpu`` and ``from pallas_compat.pl import BlockSpec``."""
    text = edits.source
    module = node.module or ""
    if node.level or (module not in PARENTS and module not in NAMESPACE_OF):
        return
    if node.names[0].name == "*":
        if module in NAMESPACE_OF:
            module_written_as(edits, node, shim_of(module))
        return
    kept, spaces, members = [], [], []
    for alias in node.names:
        space = NAMESPACE_OF.get(f"{module}.{alias.name}")
        if space is not None:
            spaces.append((alias, f"{space} as {alias.asname or alias.name}"))
        elif module in NAMESPACE_OF:
            members.append(alias)
        else:
            kept.append(alias)
    if not spaces and not members:
        return
    served = shim_of(module) if members else ""
    groups = [(module, kept), (SHIM, [a for a, _ in spaces]), (served, members)]
    made = [(name, aliases) for name, aliases in groups if aliases]
    if len(made) == 1:  # the statement's own layout kept (parentheses, comments)
        module_written_as(edits, node, made[0][0])
        for alias, new in spaces:
            edits.replace(*text.span(alias), new)
        return
    new = dict(spaces)
    statements(
        edits,
        node,
        [
            f"from {name} import " + ", ".join(new.get(a) or text.segment(a) for a in aliases)
            for name, aliases in made
        ],
    )


def module_written_as(edits: Edits, node: ast.ImportFrom, module: str) -> None:
    """The module a ``from`` import names, written anew."""
    text = edits.source
    start = text.start(node)
    found = FROM_MODULE.match(text.text, start)
    if found is not None:
        edits.replace(found.start(2), found.end(2), module)


def statements(edits: Edits, node: ast.stmt, made: list[str]) -> None:
    """``made`` in place of ``node``: one per line (the comment after it stays on the first)
    where the statement is alone on its line, else ``;``-separated."""
    text = edits.source
    start, end = text.span(node)
    line_start = text.starts[node.lineno - 1]
    indent = text.text[line_start:start]
    alone = (
        not indent.strip()
        and not text.text[end : text.line_end(node.end_lineno or node.lineno)].split("#")[0].strip()
    )
    edits.replace(start, end, (f"\n{indent}" if alone else "; ").join(made))
