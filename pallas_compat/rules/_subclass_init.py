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

import libcst as cst
from libcst.metadata import QualifiedNameProvider

from pallas_compat.facts._table import FEATURES_BY_KEY
from pallas_compat.rules._context import ReadsMetadata

BLOCK_SPEC = FEATURES_BY_KEY["block_spec"].modern
#: The fields an ``__init__`` may take by name and still receive from ``replace``.
FIELD_NAMES = frozenset(
    {"block_shape", "index_map", "memory_space", "indexing_mode", "pipeline_mode"}
)
REST = "fields"


def qualified(node: cst.CSTNode, visitor: ReadsMetadata) -> set[str]:
    return {q.name for q in visitor.get_metadata(QualifiedNameProvider, node, set())}


def subclasses_block_spec(node: cst.ClassDef, visitor: ReadsMetadata) -> bool:
    spelling = f"{BLOCK_SPEC.module}.{BLOCK_SPEC.attr}"
    return any(spelling in qualified(base.value, visitor) for base in node.bases)


def own_init(node: cst.ClassDef) -> cst.FunctionDef | None:
    body = node.body.body if isinstance(node.body, cst.IndentedBlock) else ()
    return next(
        (s for s in body if isinstance(s, cst.FunctionDef) and s.name.value == "__init__"), None
    )


def is_super_init(node: cst.BaseExpression) -> bool:
    """``super().__init__(...)``."""
    if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)):
        return False
    owner = node.func.value
    return (
        node.func.attr.value == "__init__"
        and isinstance(owner, cst.Call)
        and cst.helpers.get_full_name_for_node(owner.func) == "super"
    )


def super_init(statement: cst.BaseStatement | cst.BaseSmallStatement) -> bool:
    """Is the statement a ``super().__init__(...)`` call?"""
    return (
        isinstance(statement, cst.SimpleStatementLine)
        and len(statement.body) == 1
        and isinstance(statement.body[0], cst.Expr)
        and is_super_init(statement.body[0].value)
    )


class PassFieldsOn(cst.CSTTransformer):
    """Adds ``**fields`` to the ``super().__init__(...)`` call of one ``__init__``."""

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.Call:
        if not is_super_init(original):
            return updated
        args = list(updated.args)
        if args:
            args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        return updated.with_changes(args=[*args, cst.Arg(cst.Name(REST), star="**")])


def mended(node: cst.ClassDef) -> cst.ClassDef | None:
    """The class with ``**fields`` passed on, where its ``__init__`` allows it; else None."""
    init = own_init(node)
    if init is None:
        return None
    params = init.params
    named = [p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)]
    if (
        params.star_kwarg is not None
        or isinstance(params.star_arg, cst.Param)
        or not set(named[1:]) <= FIELD_NAMES
    ):
        return None
    if sum(super_init(s) for s in init.body.body) != 1:
        return None
    body = init.body.with_changes(
        body=[s.visit(PassFieldsOn()) if super_init(s) else s for s in init.body.body]
    )
    new_init = init.with_changes(
        params=params.with_changes(star_kwarg=cst.Param(cst.Name(REST), star="**")), body=body
    )
    block = node.body
    assert isinstance(block, cst.IndentedBlock)
    return node.with_changes(
        body=block.with_changes(body=[new_init if s is init else s for s in block.body])
    )
