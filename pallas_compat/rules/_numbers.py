"""Whether an expression is a Python ``int``, told from the source: JAX 0.5.3 on take only
``int`` in a ``CostEstimate`` field, and kernels compute the counts from shapes, often with
NumPy (``np.prod(shape) * itemsize`` is a ``numpy.int64``) or from ``cost_analysis()``
(floats).

``not_an_int`` answers True (certainly not an ``int``: a NumPy result, a float, a true
division), False (certainly an ``int``) or None (cannot tell: a parameter, an attribute of
an unknown object). Only True is drift: a count the source cannot type is left alone.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

#: Modules whose functions return NumPy (or JAX) scalars, not Python ints.
ARRAY_MODULES = ("numpy", "jax.numpy")
#: Calls that return a Python int whatever their argument.
INT_CALLS = frozenset({"int", "len", "math.prod", "math.floor", "math.ceil", "operator.index"})
#: Calls whose result is a float.
FLOAT_CALLS = frozenset({"float", "math.sqrt", "math.log", "math.log2", "math.exp"})
#: Calls whose result has the type of what they combine.
COMBINING = frozenset({"sum", "max", "min", "abs"})
#: Attributes that are Python ints on arrays, shapes and dtypes (``x.size``, ``x.itemsize``).
INT_ATTRIBUTES = frozenset({"size", "itemsize", "nbytes", "ndim", "bits"})

#: A name -> the dotted module it is bound to by an import (``np`` -> ``numpy``), or None.
ModuleOf = Callable[[ast.Name], "str | None"]
#: ``name`` -> the values assigned to it in the module.
ValuesOf = Callable[[str], "list[ast.expr]"]


def dotted(node: ast.AST, module_of: ModuleOf) -> str | None:
    """``np.prod`` -> ``numpy.prod``, ``int`` -> ``int``: a call's target, its head followed
    to the module it names."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    head = module_of(node) or node.id
    return ".".join([head, *reversed(parts)])


def combined(answers: list[bool | None]) -> bool | None:
    """Any certainly not an int: not an int; all ints: an int; else unknown."""
    if any(a is True for a in answers):
        return True
    if answers and all(a is False for a in answers):
        return False
    return None


def not_an_int(
    node: ast.AST,
    module_of: ModuleOf,
    values_of: ValuesOf,
    seen: frozenset[str] = frozenset(),
) -> bool | None:
    """True: certainly not an ``int``; False: an ``int``; None: cannot tell."""

    def again(child: ast.AST) -> bool | None:
        return not_an_int(child, module_of, values_of, seen)

    if isinstance(node, ast.Constant):
        if isinstance(node.value, bool | int):
            return False
        return True if isinstance(node.value, float) else None
    if isinstance(node, ast.BinOp):
        if isinstance(node.op, ast.Div):
            return True
        return combined([again(node.left), again(node.right)])
    if isinstance(node, ast.UnaryOp):
        return again(node.operand)
    if isinstance(node, ast.IfExp):
        return combined([again(node.body), again(node.orelse)])
    if isinstance(node, ast.Name):
        values = values_of(node.id) if node.id not in seen else []
        if len(values) != 1:
            return None
        return not_an_int(values[0], module_of, values_of, seen | {node.id})
    if isinstance(node, ast.Attribute):
        return False if node.attr in INT_ATTRIBUTES else None
    if isinstance(node, ast.Subscript):
        return True if reads_cost_analysis(node.value, values_of) else None
    if isinstance(node, ast.Call):
        return call_answer(node, module_of, again)
    return None


def call_answer(
    node: ast.Call, module_of: ModuleOf, again: Callable[[ast.AST], bool | None]
) -> bool | None:
    name = dotted(node.func, module_of)
    if name in INT_CALLS:
        return False
    if name in FLOAT_CALLS:
        return True
    if name in COMBINING:
        parts = [a.elt if isinstance(a, ast.GeneratorExp) else a for a in node.args]
        return combined([again(p) for p in parts])
    if name is not None and name.startswith(tuple(f"{m}." for m in ARRAY_MODULES)):
        return True  # np.prod(shape), jnp.sum(x): a NumPy (or JAX) scalar
    return None


def reads_cost_analysis(node: ast.AST, values_of: ValuesOf) -> bool:
    """``compiled.cost_analysis()``, an index of it, or a name bound once to either: its
    counts are floats."""
    while isinstance(node, ast.Subscript):
        node = node.value
    if isinstance(node, ast.Name) and len(values := values_of(node.id)) == 1:
        node = values[0]
        while isinstance(node, ast.Subscript):
            node = node.value
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "cost_analysis"
    )
