"""Whether ``pallas-compat migrate`` rewrites a name for a target release, told by running it:
a line that uses the name is migrated for the target, and ``doctor`` reads what it wrote. The
guides' "migrate rewrites it" for a name is this answer, not the rule's general promise: on
0.12.0.1 ``pltpu.DeviceIdType`` becomes ``pl.DeviceIdType``, which works there with a warning.
"""

from __future__ import annotations

import ast
import functools
from dataclasses import dataclass

from pallas_compat.facts import ALIASES, PUBLIC_MODULES, Location
from pallas_compat.lint._finder import uses_in
from pallas_compat.lint._migrate import migrate_source

#: How kernels call the functions whose rules rewrite the call, not the name alone (a bare
#: ``pl.load`` is noted; ``pl.load(x_ref, idx)`` is rewritten): the use migrated is this call.
TYPICAL_CALLS = {
    "load": "(x_ref, (0,))",
    "store": "(o_ref, (0,), x)",
    "swap": "(o_ref, (0,), x)",
    "repeat": "(x, 2, 1)",
    "for_loop": "(8, body, refs)",
}


def use_of(module: str, name: str) -> str:
    """A module that imports ``module`` as people do (``from jax.experimental.pallas import
    tpu as pltpu``; a private module's name itself, ``from jax._src.dtypes import
    bit_width``) and uses ``name`` once."""
    call = TYPICAL_CALLS.get(name, "")
    if Location(module, name).private:  # from jax._src.dtypes import bit_width
        return f"from {module} import {name}\n\nvalue = {name}{call}\n"
    parent, _, child = module.rpartition(".")
    alias = ALIASES.get(module, child)
    head = f"from {parent} import {child}" if parent else f"import {child}"
    head += f" as {alias}" if alias != child else ""
    return f"{head}\n\nvalue = {alias}.{name}{call}\n"


@dataclass(frozen=True)
class Written:
    """What migrate wrote for one use of a name: whether doctor finds nothing in it that
    breaks on the target, and the Pallas names it uses (``module``, ``name``), which the
    guide holds to the target's surface (doctor knows only names that came or went)."""

    runs: bool
    names: tuple[tuple[str, str], ...]


@functools.cache
def written(module: str, name: str, target: str) -> Written | None:
    """migrate's output for ``target`` of a use of ``module.name``, read back; None where it
    leaves a plain use of the name as it is, without a note: its rule rewrites the calls it
    can prove (``pl.load(ref, idx)``), and the rule's own word stands."""
    source = use_of(module, name)
    migrated = migrate_source(source, target)
    if migrated == source:
        return None
    runs = not any(use.breaks_on(target) for use in uses_in("<guide>", migrated))
    return Written(runs, pallas_names(migrated))


def rewrites(module: str, name: str, target: str) -> bool | None:
    """``written``'s verdict by doctor alone (tests and tools without the probes' surface)."""
    found = written(module, name, target)
    return None if found is None else found.runs


def pallas_names(text: str) -> tuple[tuple[str, str], ...]:
    """The (module, name) of each ``alias.name`` the text uses through an import of a public
    Pallas module (``from jax.experimental import pallas as pl``: ``pl.X``)."""
    tree = ast.parse(text)
    bound = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                bound[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    bound[alias.asname] = alias.name
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            module = bound.get(node.value.id)
            if module in PUBLIC_MODULES:
                found.append((module, node.attr))
    return tuple(sorted(set(found)))
