"""What the scope analysis does not follow: names a star import of a Pallas module binds
(``from jax.experimental.pallas import *``), a Pallas module bound to another name at the top
level (``P = pl``), and a Pallas module imported by name at run time
(``importlib.import_module("jax.experimental.pallas")``), which no reading of the source can
follow: those are named, per file, so that doctor is never silent about them."""

from __future__ import annotations

import ast
import functools
from collections.abc import Callable
from dataclasses import dataclass, field

from pallas_compat.facts._table import NAMESPACE_OF, release_ranges
from pallas_compat.rules._bindings import position
from pallas_compat.rules._scopes import Scopes

__all__ = ["FOLLOWED", "RUN_TIME_IMPORTS", "Expansions", "expansions"]

#: The modules a use can be followed into (the Pallas ones and those outside Pallas).
FOLLOWED = frozenset(NAMESPACE_OF)
RUN_TIME_IMPORTS = frozenset({"importlib.import_module", "builtins.__import__"})


@dataclass
class Expansions:
    #: Modules star-imported, and local names bound to a module (``P = pl``).
    star: set[str] = field(default_factory=set)
    aliases: dict[str, str] = field(default_factory=dict)
    #: (line, column, module) of each import by name at run time.
    opaque: list[tuple[int, int, str]] = field(default_factory=list)

    def expand_names(self, bare: str | None, names: set[str]) -> set[str]:
        """``names`` plus what an alias makes of them, and, for a ``bare`` name no binding
        explains (not one after a dot), what a star import binds under it."""
        if not self.aliases and not self.star:
            return names
        found = set(names)
        for name in names:
            head, _, rest = name.partition(".")
            if head in self.aliases:
                found.add(f"{self.aliases[head]}.{rest}" if rest else self.aliases[head])
        if not names and bare is not None:
            found |= {f"{m}.{bare}" for m in self.star if bare in known_names(m)}
        return found


@functools.cache
def known_names(module: str) -> frozenset[str]:
    """Every name the release scan saw in ``module`` in some release."""
    ranges = release_ranges()
    keys = (*ranges["names"], *ranges["locations"])
    return frozenset(key.partition(":")[2] for key in keys if key.partition(":")[0] == module)


def expansions(scopes: Scopes, where: Callable[[ast.AST], tuple[int, int]]) -> Expansions:
    """Star imports and module aliases of the module's top level, and imports by name at run
    time anywhere (``where`` gives a node's line and column)."""
    found = Expansions()
    bound: dict[str, int] = {}
    for statement in scopes.module.body:
        if isinstance(statement, ast.ImportFrom) and statement.names[0].name == "*":
            name = "." * statement.level + (statement.module or "")
            if name in FOLLOWED:
                found.star.add(name)
        elif isinstance(statement, ast.Assign):
            for target in statement.targets:
                if isinstance(target, ast.Name):
                    bound[target.id] = bound.get(target.id, 0) + 1
                    names = scopes.qualified(statement.value)
                    module_name = next((n for n in sorted(names) if n in FOLLOWED), None)
                    if module_name is not None:
                        found.aliases[target.id] = module_name
    found.aliases = {k: v for k, v in found.aliases.items() if bound.get(k) == 1}
    for node in scopes.calls:
        if not node.args and not node.keywords:
            continue
        if not scopes.qualified(node.func) & RUN_TIME_IMPORTS:
            continue
        first = node.args[0] if node.args else None
        if first is None or (node.keywords and position(node.keywords[0]) < position(first)):
            first = node.keywords[0].value
        if isinstance(first, ast.Constant) and isinstance(first.value, (str, bytes)):
            text = str(first.value)
            if text.startswith(tuple(FOLLOWED)):
                line, column = where(node)
                found.opaque.append((line, column, text))
    found.opaque.sort()
    return found
