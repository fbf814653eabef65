"""What each name of a module is bound to (assigned values and ``def``s, in any scope), read
once per file from the scope pass, and what a function returns: what the rules follow a name
through (``BlockSpec(shape, index_map)`` with both bound above)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass, field

from pallas_compat.rules._scopes import Scopes

__all__ = ["EMPTY", "Bindings", "imported_modules", "position", "returns"]

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef


def position(node: ast.AST) -> tuple[int, int]:
    """(line, column) of a node, for source order."""
    return (getattr(node, "lineno", 0), getattr(node, "col_offset", 0))


@dataclass
class Bindings:
    """What each name of a module is bound to: assigned values and ``def``s, any scope."""

    values: dict[str, list[ast.expr]] = field(default_factory=dict)
    functions: dict[str, list[FunctionNode]] = field(default_factory=dict)

    @classmethod
    def of(cls, scopes: Scopes) -> Bindings:
        """From the assignments and ``def``s the scope pass kept, in source order."""
        found = cls()
        for node in sorted(scopes.assignments, key=position):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        found.values.setdefault(target.id, []).append(node.value)
            elif isinstance(node.target, ast.Name) and node.value is not None:
                found.values.setdefault(node.target.id, []).append(node.value)
        for function in sorted(scopes.functions, key=position):
            found.functions.setdefault(function.name, []).append(function)
        return found


#: Nothing bound: what a literal is read with before names are followed.
EMPTY = Bindings()


def returns(function: FunctionNode) -> list[ast.expr | None]:
    """The values a function returns (not those of functions or lambdas nested in it)."""
    found: list[ast.expr | None] = []
    todo: list[ast.AST] = [*function.body]
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        if isinstance(node, ast.Return):
            found.append(node.value)
        todo.extend(ast.iter_child_nodes(node))
    return found


def imported_modules(node: ast.Import | ast.ImportFrom) -> Iterator[tuple[str, ast.AST]]:
    """(dotted module, node) for each module an import statement names."""
    if isinstance(node, ast.Import):
        for alias in node.names:
            yield alias.name, alias
        return
    base = node.module or ""
    yield base, node
    if not (len(node.names) == 1 and node.names[0].name == "*"):
        for alias in node.names:
            yield f"{base}.{alias.name}", alias
