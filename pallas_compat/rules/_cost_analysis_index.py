"""``Compiled.cost_analysis()`` indexed the old way, found and rewritten.

Up to JAX 0.4.38 ``cost_analysis()`` returned a list holding one dict; from 0.5.0 it returns
the dict (``behaviours.cost_analysis_shape`` in the snapshots). Old TPU kernels build their
cost estimates from ``compiled.cost_analysis()[0]["flops"]``, directly or through a name
bound once in the same function. Only those two forms are rewritten: they are provably the
same value; anything else is left for a person.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator

__all__ = ["bound_in", "is_cost_analysis_call", "is_old_index"]

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef
#: Statements and expressions that bind their ``target``.
TARGETED = (ast.AugAssign, ast.AnnAssign, ast.For, ast.AsyncFor, ast.NamedExpr)


def is_cost_analysis_call(node: ast.AST) -> bool:
    """``X.cost_analysis()``."""
    return (
        isinstance(node, ast.Call)
        and not node.args
        and not node.keywords
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "cost_analysis"
    )


def is_old_index(node: ast.Subscript, bound: set[str]) -> bool:
    """``X.cost_analysis()[0]``, or ``cost[0]`` with ``cost`` in ``bound`` (the index
    written ``0``, not ``00`` or ``0x0``)."""
    index = node.slice
    written_zero = (
        isinstance(index, ast.Constant)
        and type(index.value) is int
        and index.value == 0
        and index.end_col_offset == index.col_offset + 1
    )
    value = node.value
    return written_zero and (
        is_cost_analysis_call(value) or (isinstance(value, ast.Name) and value.id in bound)
    )


def names_in(node: ast.AST | None) -> Iterator[str]:
    """Every name written in a target (``a.b[c]`` -> a, b, c)."""
    if node is None:
        return
    for inner in ast.walk(node):
        if isinstance(inner, ast.Name):
            yield inner.id
        elif isinstance(inner, ast.Attribute):
            yield inner.attr


def bound_in(function: FunctionNode) -> set[str]:
    """Names of one function (not its nested ones) bound from ``....cost_analysis()`` by
    their only binding."""
    from_cost: set[str] = set()
    bound: dict[str, int] = {}

    def bind(names: Iterable[str]) -> None:
        for name in names:
            bound[name] = bound.get(name, 0) + 1

    todo: list[ast.AST] = [*function.body]
    bind(a.arg for a in every_parameter(function.args))
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        if isinstance(node, ast.Lambda):
            bind(a.arg for a in every_parameter(node.args))
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                bind(names_in(target))
            if (
                len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
                and is_cost_analysis_call(node.value)
            ):
                from_cost.add(node.targets[0].id)
        elif isinstance(node, TARGETED):
            bind(names_in(node.target))
        elif isinstance(node, ast.withitem):
            bind(names_in(node.optional_vars))
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bind([node.name])
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bind(a.asname for a in node.names if a.asname)
        todo.extend(ast.iter_child_nodes(node))
    return {n for n in from_cost if bound.get(n) == 1}


def every_parameter(args: ast.arguments) -> list[ast.arg]:
    return [
        a
        for a in (*args.posonlyargs, *args.args, args.vararg, *args.kwonlyargs, args.kwarg)
        if a is not None
    ]
