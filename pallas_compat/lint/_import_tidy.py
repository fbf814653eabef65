"""The imports ``migrate`` reads and tidies: the names a module binds its modules to (so that
a rewrite never adds an import the file already has, wherever it stands), and the imports a
rewrite left unused (``pltpu.repeat`` rewritten away leaves ``pltpu`` unused), which go."""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Sequence

import libcst as cst


def top_level_imports(module: cst.Module) -> list[cst.Import | cst.ImportFrom]:
    """The module's imports outside functions and classes (inside ``if``/``try`` too)."""
    found: list[cst.Import | cst.ImportFrom] = []

    class Collect(cst.CSTVisitor):
        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            return False

        def visit_ClassDef(self, node: cst.ClassDef) -> bool:
            return False

        def visit_Import(self, node: cst.Import) -> None:
            found.append(node)

        def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
            found.append(node)

    module.visit(Collect())
    return found


def module_bindings(module: cst.Module) -> dict[str, str]:
    """Dotted module (or ``module.name``) -> the name the module binds it to at its top level:
    ``import jax.numpy as jnp`` -> ``{"jax.numpy": "jnp"}``, ``import jax`` -> ``{"jax":
    "jax"}``, ``from jax.experimental import pallas as pl`` -> ``{"jax.experimental.pallas":
    "pl"}``."""
    bound: dict[str, str] = {}
    for node in top_level_imports(module):
        if isinstance(node, cst.Import):
            for alias in node.names:
                dotted = cst.helpers.get_full_name_for_node(alias.name) or ""
                if alias.asname and isinstance(alias.asname.name, cst.Name):
                    bound.setdefault(dotted, alias.asname.name.value)
                elif "." not in dotted:
                    bound.setdefault(dotted, dotted)
        elif not isinstance(node.names, cst.ImportStar) and not node.relative:
            base = cst.helpers.get_full_name_for_node(node.module) if node.module else ""
            for alias in node.names:
                name = cst.helpers.get_full_name_for_node(alias.name) or ""
                asname = alias.asname.name if alias.asname else None
                binding = asname.value if isinstance(asname, cst.Name) else name
                bound.setdefault(f"{base}.{name}", binding)
    return bound


class NameUses(cst.CSTVisitor):
    """How often each name is read outside import statements (an attribute's own name after
    the dot is not a use of a binding)."""

    def __init__(self) -> None:
        super().__init__()
        self.count: Counter[str] = Counter()

    def visit_Import(self, node: cst.Import) -> bool:
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        return False

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        node.value.visit(self)
        return False

    def visit_Name(self, node: cst.Name) -> None:
        self.count[node.value] += 1


def name_uses(module: cst.Module) -> Counter[str]:
    uses = NameUses()
    module.visit(uses)
    return uses.count


#: The identifiers ``ast`` keeps as strings where libcst has a ``Name`` (which ``NameUses``
#: counts): ``ast.Name`` ids, and these fields.
_NAME_FIELDS: dict[type[ast.AST], tuple[str, ...]] = {
    ast.FunctionDef: ("name",),
    ast.AsyncFunctionDef: ("name",),
    ast.ClassDef: ("name",),
    ast.arg: ("arg",),
    ast.keyword: ("arg",),
    ast.ExceptHandler: ("name",),
    ast.Global: ("names",),
    ast.Nonlocal: ("names",),
    ast.MatchAs: ("name",),
    ast.MatchStar: ("name",),
    ast.MatchMapping: ("rest",),
    ast.MatchClass: ("kwd_attrs",),
    **{
        node: ("name",)
        for node in (getattr(ast, n, None) for n in ("TypeVar", "ParamSpec", "TypeVarTuple"))
        if node is not None
    },
}


_NAMED_CONSTANTS = (True, False, None)


def text_name_uses(code: str) -> Counter[str] | None:
    """``NameUses``'s count for the module's text, read with ``ast`` (a tenth of libcst's
    walk); None where this Python cannot parse the text."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return None
    count: Counter[str] = Counter()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            count[node.id] += 1
            continue
        if isinstance(node, (ast.Constant, ast.MatchSingleton)) and any(
            node.value is named for named in _NAMED_CONSTANTS
        ):
            count[repr(node.value)] += 1  # True, False and None are libcst Names
            continue
        for field in _NAME_FIELDS.get(type(node), ()):
            value = getattr(node, field)
            if isinstance(value, str):
                count[value] += 1
            elif isinstance(value, list):
                count.update(value)
    return count


def binding(alias: cst.ImportAlias) -> str:
    if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
        return alias.asname.name.value
    return (cst.helpers.get_full_name_for_node(alias.name) or "").partition(".")[0]


class DropBindings(cst.CSTTransformer):
    """Removes the import aliases that bind one of ``names``, and a statement left empty."""

    def __init__(self, names: set[str]) -> None:
        super().__init__()
        self.names = names

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False  # a function's own imports bind names of its own

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False

    def kept(self, aliases: Sequence[cst.ImportAlias]) -> list[cst.ImportAlias]:
        kept = [a for a in aliases if binding(a) not in self.names]
        if kept and len(kept) < len(aliases):
            kept[-1] = kept[-1].with_changes(comma=aliases[-1].comma)
        return kept

    def leave_Import(
        self, original: cst.Import, updated: cst.Import
    ) -> cst.Import | cst.RemovalSentinel:
        kept = self.kept(updated.names)
        return updated.with_changes(names=kept) if kept else cst.RemovalSentinel.REMOVE

    def leave_ImportFrom(
        self, original: cst.ImportFrom, updated: cst.ImportFrom
    ) -> cst.ImportFrom | cst.RemovalSentinel:
        if isinstance(updated.names, cst.ImportStar):
            return updated
        kept = self.kept(updated.names)
        return updated.with_changes(names=kept) if kept else cst.RemovalSentinel.REMOVE


def made_unused(before: Counter[str], migrated: cst.Module, code: str) -> set[str]:
    """The names ``migrated`` (whose text is ``code``) still imports at its top level but no
    longer reads, of those ``before`` (the original's ``name_uses``) shows it read."""
    after = text_name_uses(code)
    if after is None:
        after = name_uses(migrated)
    still_imported = {
        binding(alias)
        for node in top_level_imports(migrated)
        if not isinstance(node.names, cst.ImportStar)
        for alias in node.names
    }
    return {name for name in still_imported & set(before) if after[name] == 0}
