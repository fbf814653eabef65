"""Which order a ``BlockSpec(a, b)`` call passes its arguments in, told from the source.

JAX 0.4.30 took ``BlockSpec(index_map, block_shape)``; later releases the other way round.
Literals tell at once (a lambda is an index map, a tuple a shape); otherwise a name is
followed to what it is bound to anywhere in the module: a ``def``, lambda or ``partial`` is an
index map, a tuple or a call of a function that returns one is a shape. Neither: unknown.
"""

from __future__ import annotations

import ast
import enum
from collections.abc import Callable

from pallas_compat.rules._bindings import EMPTY, Bindings, returns
from pallas_compat.rules._calls import positional
from pallas_compat.rules._scopes import full_name

__all__ = ["INDEX_MAP", "SHAPE", "Order", "argument_kind", "block_spec_order"]

INDEX_MAP, SHAPE = "index_map", "block_shape"


class Order(str, enum.Enum):
    """Which order a ``BlockSpec(a, b)`` passes its two arguments in."""

    OLD = "old"  #: index_map first (JAX 0.4.30)
    NEW = "new"  #: block_shape first
    UNKNOWN = "unknown"  #: neither argument tells


def argument_kind(
    node: ast.AST, bindings: Bindings, seen: frozenset[str] = frozenset()
) -> str | None:
    """``index_map`` (a lambda, a def, a partial), ``block_shape`` (a tuple or list, or a call
    that returns one), from the expression or from what its name is bound to; None: unknown."""
    if isinstance(node, ast.Lambda):
        return INDEX_MAP
    if isinstance(node, (ast.Tuple, ast.List)):
        return SHAPE
    if isinstance(node, ast.Name) and node.id not in seen:
        if node.id in bindings.functions and node.id not in bindings.values:
            return INDEX_MAP
        kinds = {
            argument_kind(v, bindings, seen | {node.id}) for v in bindings.values.get(node.id, [])
        }
        return kinds.pop() if len(kinds) == 1 else None
    if isinstance(node, ast.Call):
        name = full_name(node.func) or ""
        if name.rpartition(".")[2] == "partial":
            return INDEX_MAP
        if name in ("tuple", "list"):
            return SHAPE
        defs = bindings.functions.get(name, [])
        if len(defs) == 1:
            kinds = {
                argument_kind(v, bindings, seen | {name}) if v is not None else None
                for v in returns(defs[0])
            }
            return kinds.pop() if len(kinds) == 1 and SHAPE in kinds else None
    return None


def block_spec_order(call: ast.Call, bindings: Callable[[], Bindings]) -> Order | None:
    """``BlockSpec(a, b, ...)``: its ``Order``, or None (fewer than two positional
    arguments). Literal kinds decide first; names are followed to what they are bound to
    only when needed."""
    args = positional(call)
    if len(args) < 2:
        return None
    first, second = (argument_kind(a, EMPTY) for a in args[:2])
    if (first is None and second is None) or first == second:
        known = bindings()
        first, second = (argument_kind(a, known) for a in args[:2])
    if first == INDEX_MAP or (second == SHAPE and first != SHAPE):
        return Order.OLD
    if first == SHAPE or second == INDEX_MAP:
        return Order.NEW
    return Order.UNKNOWN
