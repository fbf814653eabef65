"""What libcst's scope analysis does not follow, for ``doctor`` and ``migrate``: names a star
import of a Pallas module binds (``from jax.experimental.pallas import *``), a Pallas module
bound to another name (``P = pl``), and a Pallas module imported by name at run time
(``importlib.import_module("jax.experimental.pallas")``), which no reading of the source can
follow: those are named, per file, so that doctor is never silent about them."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

import libcst as cst
from libcst.metadata import PositionProvider, QualifiedNameProvider

from pallas_compat.facts._table import NAMESPACE_OF, release_ranges
from pallas_compat.rules._context import ReadsMetadata

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
    #: ids of the names after a dot (``x.load``'s ``load``), which a star import never binds.
    attributes: set[int] = field(default_factory=set)

    def expand(self, node: cst.CSTNode, names: set[str]) -> set[str]:
        """``names`` (libcst's) plus what an alias or a star import makes of the node."""
        bare = (
            node.value if isinstance(node, cst.Name) and id(node) not in self.attributes else None
        )
        return self.expand_names(bare, names)

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


def module_named(node: cst.BaseExpression, visitor: ReadsMetadata) -> str | None:
    names = {q.name for q in visitor.get_metadata(QualifiedNameProvider, node, set())}
    return next((n for n in sorted(names) if n in FOLLOWED), None)


def expansions(module: cst.Module, visitor: ReadsMetadata, *, run_time: bool = True) -> Expansions:
    """Read from the module's top level (imports and assignments) and, with ``run_time``, its
    imports by name (positions need ``PositionProvider``); ``visitor`` is the metadata-dependent
    visitor about to walk the module."""
    found = Expansions()
    bound: dict[str, int] = {}
    for statement in module.body:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            if isinstance(small, cst.ImportFrom) and isinstance(small.names, cst.ImportStar):
                name = cst.helpers.get_full_name_for_node(small.module) if small.module else ""
                if name in FOLLOWED:
                    found.star.add(name)
            elif isinstance(small, cst.Assign):
                for target in small.targets:
                    if isinstance(target.target, cst.Name):
                        bound[target.target.value] = bound.get(target.target.value, 0) + 1
                        module_name = module_named(small.value, visitor)
                        if module_name is not None:
                            found.aliases[target.target.value] = module_name
    found.aliases = {k: v for k, v in found.aliases.items() if bound.get(k) == 1}
    if found.star:
        dotted = AttributeNames()
        module.visit(dotted)
        found.attributes = dotted.found
    if run_time:
        finder = RunTimeImports(visitor)
        module.visit(finder)
        found.opaque = finder.found
    return found


class AttributeNames(cst.CSTVisitor):
    def __init__(self) -> None:
        super().__init__()
        self.found: set[int] = set()

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self.found.add(id(node.attr))


class RunTimeImports(cst.CSTVisitor):
    """``importlib.import_module("jax.experimental.pallas...")`` and ``__import__(...)``."""

    def __init__(self, metadata: ReadsMetadata) -> None:
        super().__init__()
        self.reader = metadata
        self.found: list[tuple[int, int, str]] = []

    def visit_Call(self, node: cst.Call) -> None:
        names = {q.name for q in self.reader.get_metadata(QualifiedNameProvider, node.func, set())}
        if not names & RUN_TIME_IMPORTS or not node.args:
            return
        value = node.args[0].value
        if isinstance(value, cst.SimpleString) and str(value.evaluated_value).startswith(
            tuple(FOLLOWED)
        ):
            pos = self.reader.get_metadata(PositionProvider, node).start
            self.found.append((pos.line, pos.column + 1, str(value.evaluated_value)))
