"""``Compiled.cost_analysis()`` indexed the old way, found and rewritten.

Up to JAX 0.4.38 ``cost_analysis()`` returned a list holding one dict; from 0.5.0 it returns
the dict (``behaviours.cost_analysis_shape`` in the snapshots). Old TPU kernels build their
cost estimates from ``compiled.cost_analysis()[0]["flops"]``, directly or through a name
bound once in the same function. Only those two forms are rewritten: they are provably the
same value; anything else is left for a person.
"""

from __future__ import annotations

import functools

import libcst as cst

from pallas_compat.facts._table import COST_ANALYSIS_DICT_SINCE
from pallas_compat.facts._target import Target, asked_of


def is_cost_analysis_call(node: cst.BaseExpression) -> bool:
    return (
        isinstance(node, cst.Call)
        and not node.args
        and isinstance(node.func, cst.Attribute)
        and node.func.attr.value == "cost_analysis"
    )


def is_index_zero(node: cst.Subscript) -> bool:
    if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
        return False
    value = node.slice[0].slice.value
    return isinstance(value, cst.Integer) and value.value == "0"


class BoundOnce(cst.CSTVisitor):
    """Names of one function (not its nested ones) bound from ``....cost_analysis()`` by
    their only assignment."""

    def __init__(self) -> None:
        self.from_cost: set[str] = set()
        self.bound: dict[str, int] = {}
        self.depth = 0

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        self.depth += 1
        return self.depth == 1

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.depth -= 1

    def bind(self, target: cst.CSTNode | None) -> None:
        collector = NameCollector()
        if target is not None:
            target.visit(collector)
        for name in collector.names:
            self.bound[name] = self.bound.get(name, 0) + 1

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self.bind(node.target)

    # every other way a name is bound counts too: then the name is not provably the dict
    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self.bind(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self.bind(node.target)

    def visit_For(self, node: cst.For) -> None:
        self.bind(node.target)

    def visit_AsName(self, node: cst.AsName) -> None:
        self.bind(node.name)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self.bind(node.target)

    def visit_Param(self, node: cst.Param) -> None:
        self.bind(node.name)

    def visit_Assign(self, node: cst.Assign) -> None:
        if (
            len(node.targets) == 1
            and isinstance(node.targets[0].target, cst.Name)
            and is_cost_analysis_call(node.value)
        ):
            self.from_cost.add(node.targets[0].target.value)

    def names(self) -> set[str]:
        return {n for n in self.from_cost if self.bound.get(n) == 1}


class NameCollector(cst.CSTVisitor):
    def __init__(self) -> None:
        self.names: list[str] = []

    def visit_Name(self, node: cst.Name) -> None:
        self.names.append(node.value)


def bound_in(node: cst.FunctionDef) -> set[str]:
    finder = BoundOnce()
    node.visit(finder)
    return finder.names()


def is_old_index(node: cst.Subscript, bound: set[str]) -> bool:
    """``X.cost_analysis()[0]``, or ``cost[0]`` with ``cost`` in ``bound``."""
    value = node.value
    return is_index_zero(node) and (
        is_cost_analysis_call(value) or (isinstance(value, cst.Name) and value.value in bound)
    )


class CostAnalysisIndex(cst.CSTTransformer):
    """``X.cost_analysis()[0]`` -> ``X.cost_analysis()``; ``cost[0]`` -> ``cost`` where
    ``cost = X.cost_analysis()`` is the only binding of ``cost`` in the function."""

    def __init__(self) -> None:
        super().__init__()
        self.scopes: list[set[str]] = [set()]
        self.changed = False

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.scopes.append(bound_in(node))

    def leave_FunctionDef(
        self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef
    ) -> cst.FunctionDef:
        self.scopes.pop()
        return updated_node

    def leave_Subscript(
        self, original_node: cst.Subscript, updated_node: cst.Subscript
    ) -> cst.BaseExpression:
        if not is_old_index(updated_node, self.scopes[-1]):
            return updated_node
        self.changed = True
        return updated_node.value


def migrate_cost_analysis(module: cst.Module, target: str | Target) -> cst.Module:
    """``module`` with the old indexing removed, where ``target`` returns one dict (the same
    object where nothing was indexed the old way)."""
    if not asked_of(target).since(COST_ANALYSIS_DICT_SINCE):
        return module
    return without_old_indexing(module)


@functools.lru_cache(maxsize=4)
def without_old_indexing(module: cst.Module) -> cst.Module:
    """The rewrite, the same for every target from ``COST_ANALYSIS_DICT_SINCE``: kept for the
    few modules last asked (a ``Migration`` asks once per target; nodes hash by identity)."""
    if "cost_analysis" not in module.code:
        return module
    rewrite = CostAnalysisIndex()
    rewritten = module.visit(rewrite)
    return rewritten if rewrite.changed else module
