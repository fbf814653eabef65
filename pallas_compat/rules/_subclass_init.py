"""A ``pl.BlockSpec`` subclass with its own ``__init__``, found and mended.

Old code adapted the argument order with a subclass (easydel's ``PatchBlockSpec``)::

    class PatchBlockSpec(BlockSpec):
        def __init__(self, index_map, block_shape):
            super().__init__(block_shape=block_shape, index_map=index_map)

From JAX 0.10.0 Pallas rebuilds each spec with ``spec.replace(memory_space=...)``, which calls
the subclass with every field by keyword (``TypeError: ... unexpected keyword argument
'memory_space'``). Where the ``__init__`` takes fields by their own names and hands them to
``super().__init__``, ``migrate`` adds ``**fields`` to both: the old calls still work, and so
does JAX's rebuild. Any other ``__init__`` is left for a person (doctor lists it).
"""

from __future__ import annotations

import ast
from typing import TypeGuard

from pallas_compat.facts._table import FEATURES_BY_KEY
from pallas_compat.rules._arguments import arguments, separator
from pallas_compat.rules._context import FindContext, FixContext

BLOCK_SPEC = FEATURES_BY_KEY["block_spec"].modern
#: The fields an ``__init__`` may take by name and still receive from ``replace``.
FIELD_NAMES = frozenset(
    {"block_shape", "index_map", "memory_space", "indexing_mode", "pipeline_mode"}
)
REST = "fields"
FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef


def own_init(node: ast.ClassDef) -> FunctionNode | None:
    """The class's own ``__init__``."""
    return next(
        (
            s
            for s in node.body
            if isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef) and s.name == "__init__"
        ),
        None,
    )


def is_super_init(node: ast.AST) -> TypeGuard[ast.Call]:
    """``super().__init__(...)``."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "__init__"
        and isinstance(node.func.value, ast.Call)
        and isinstance(node.func.value.func, ast.Name)
        and node.func.value.func.id == "super"
    )


def passes_every_field_on(node: ast.ClassDef) -> bool:
    """Does the ``__init__`` take ``**name`` and hand it to ``super().__init__`` (mended, or
    written so): JAX's rebuild then works."""
    init = own_init(node)
    rest = init.args.kwarg if init is not None else None
    if init is None or rest is None:
        return False
    return any(
        is_super_init(inner)
        and any(
            k.arg is None and isinstance(k.value, ast.Name) and k.value.id == rest.arg
            for k in inner.keywords
        )
        for inner in ast.walk(init)
    )


def mendable(node: ast.ClassDef) -> tuple[FunctionNode, ast.Call] | None:
    """The ``__init__`` and its one ``super().__init__(...)`` call, where it takes fields by
    their own names and nothing else; None where it cannot be mended."""
    init = own_init(node)
    if init is None:
        return None
    args = init.args
    named = [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)]
    if args.kwarg is not None or args.vararg is not None or not set(named[1:]) <= FIELD_NAMES:
        return None
    calls = [s.value for s in init.body if isinstance(s, ast.Expr) and is_super_init(s.value)]
    if len(calls) != 1:
        return None
    return init, calls[0]


def pass_fields_on(m: FixContext, init: FunctionNode, call: ast.Call) -> None:
    """``**fields`` taken by the ``__init__`` and handed to ``super().__init__``."""
    text = m.edits.source
    args = init.args
    parts = [*args.posonlyargs, *args.args, *args.kwonlyargs, *args.defaults]
    parts += [d for d in args.kw_defaults if d is not None]
    parts += [
        a.annotation for a in (*args.posonlyargs, *args.args, *args.kwonlyargs) if a.annotation
    ]
    last = max((text.end(p) for p in parts), default=None)
    if last is None:
        m.edits.insert(text.start(init) + text.segment(init).index("(") + 1, f"**{REST}")
    else:
        close = text.text.index(")", last)
        between = text.text[last:close]
        if "," in between.split("#")[0]:
            m.edits.insert(close, f"**{REST}")
        else:
            m.edits.insert(last, f", **{REST}")
    found = arguments(call, text)
    if not found:
        m.edits.insert(text.end(call) - 1, f"**{REST}")
        return
    tail = found[-1]
    if "," in separator(tail, text):
        m.edits.replace(tail.end, tail.slot_end, f", **{REST}")
    else:
        m.edits.insert(tail.end, f", **{REST}")


def subclasses(node: ast.ClassDef, f: FindContext, spelling: str) -> bool:
    """Does a base of the class name ``spelling`` (``module.attr``)?"""
    return any(spelling in f.scopes.qualified(base) for base in node.bases)
