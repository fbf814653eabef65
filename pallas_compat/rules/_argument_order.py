"""Which order a ``BlockSpec(a, b)`` call passes its arguments in, told from the source.

JAX 0.4.30 took ``BlockSpec(index_map, block_shape)``; later releases the other way round.
Literals tell at once (a lambda is an index map, a tuple a shape); otherwise a name is
followed to what it is bound to anywhere in the module: a ``def``, lambda or ``partial`` is an
index map, a tuple or a call of a function that returns one is a shape. Neither: unknown.
"""

from __future__ import annotations

import enum
from collections.abc import Callable

import libcst as cst


def positional(call: cst.Call) -> list[cst.Arg]:
    return [a for a in call.args if a.keyword is None and not a.star]


class Bindings(cst.CSTVisitor):
    """What each name of a module is bound to: assigned values and ``def``s, any scope; and
    its calls by the name they call (``pl.core_map(mesh)`` under ``core_map``)."""

    def __init__(self) -> None:
        super().__init__()
        self.values: dict[str, list[cst.BaseExpression]] = {}
        self.functions: dict[str, list[cst.FunctionDef]] = {}
        self.calls: dict[str, list[cst.Call]] = {}

    def visit_Call(self, node: cst.Call) -> None:
        name = cst.helpers.get_full_name_for_node(node.func) or ""
        self.calls.setdefault(name.rpartition(".")[2], []).append(node)

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            if isinstance(target.target, cst.Name):
                self.values.setdefault(target.target.value, []).append(node.value)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if isinstance(node.target, cst.Name) and node.value is not None:
            self.values.setdefault(node.target.value, []).append(node.value)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.functions.setdefault(node.name.value, []).append(node)


class Returns(cst.CSTVisitor):
    """The values a function returns (not those of functions nested in it)."""

    def __init__(self) -> None:
        super().__init__()
        self.values: list[cst.BaseExpression | None] = []
        self.depth = 0

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        self.depth += 1
        return self.depth == 1

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.depth -= 1

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_Return(self, node: cst.Return) -> None:
        self.values.append(node.value)


INDEX_MAP, SHAPE = "index_map", "block_shape"


def argument_kind(
    node: cst.BaseExpression, bindings: Bindings, seen: frozenset[str] = frozenset()
) -> str | None:
    """``index_map`` (a lambda, a def, a partial), ``block_shape`` (a tuple or list, or a call
    that returns one), from the expression or from what its name is bound to; None: unknown."""
    if isinstance(node, cst.Lambda):
        return INDEX_MAP
    if isinstance(node, (cst.Tuple, cst.List)):
        return SHAPE
    if isinstance(node, cst.Name) and node.value not in seen:
        if node.value in bindings.functions and node.value not in bindings.values:
            return INDEX_MAP
        kinds = {
            argument_kind(v, bindings, seen | {node.value})
            for v in bindings.values.get(node.value, [])
        }
        return kinds.pop() if len(kinds) == 1 else None
    if isinstance(node, cst.Call):
        name = cst.helpers.get_full_name_for_node(node.func) or ""
        if name.rpartition(".")[2] == "partial":
            return INDEX_MAP
        if name in ("tuple", "list"):
            return SHAPE
        defs = bindings.functions.get(name, [])
        if len(defs) == 1:
            returns = Returns()
            defs[0].visit(returns)
            kinds = {
                argument_kind(v, bindings, seen | {name}) if v is not None else None
                for v in returns.values
            }
            return kinds.pop() if len(kinds) == 1 and SHAPE in kinds else None
    return None


class Order(str, enum.Enum):
    """Which order a ``BlockSpec(a, b)`` passes its two arguments in."""

    OLD = "old"  #: index_map first (JAX 0.4.30)
    NEW = "new"  #: block_shape first
    UNKNOWN = "unknown"  #: neither argument tells


def block_spec_order(call: cst.Call, bindings: Callable[[], Bindings]) -> Order | None:
    """``BlockSpec(a, b, ...)``: its ``Order``, or None (fewer than two positional
    arguments). Literal kinds decide first; names are followed to what
    they are bound to only when needed."""
    args = positional(call)
    if len(args) < 2:
        return None
    first, second = (argument_kind(a.value, EMPTY) for a in args[:2])
    if (first is None and second is None) or first == second:
        known = bindings()
        first, second = (argument_kind(a.value, known) for a in args[:2])
    if first == INDEX_MAP or (second == SHAPE and first != SHAPE):
        return Order.OLD
    if first == SHAPE or second == INDEX_MAP:
        return Order.NEW
    return Order.UNKNOWN


EMPTY = Bindings()
