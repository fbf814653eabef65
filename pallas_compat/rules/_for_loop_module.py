"""``for_loop`` over refs, the in-kernel loop of the JAX 0.4 era, rewritten for releases that
dropped it (0.7.2 on).

``jax._src.lax.control_flow.for_loop.for_loop(n, body, init)`` ran ``body(i, refs)`` n times
over refs holding ``init`` and returned their final values. No public API takes that body
as it is: JAX's own kernels rewrote each body to take and return values for
``lax.fori_loop``, which a codemod cannot do for any body. ``migrate`` instead removes the
import and writes a local ``for_loop`` with the same signature into the module: a
``lax.fori_loop`` over the values that hands the body ref-like boxes, the same code the shim
serves (``_for_loop_local.py``, without its annotations). Call sites keep their text; a call
through the module (``for_loop.for_loop(...)``) loses the module part.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import libcst as cst
from libcst.metadata import QualifiedNameProvider

from pallas_compat.facts._table import FEATURES_BY_KEY, FOR_LOOP
from pallas_compat.facts._target import Target, asked_of
from pallas_compat.rules._context import ReadsMetadata

Imports = TypeVar("Imports", cst.Import, cst.ImportFrom)

FUNCTION = f"{FOR_LOOP}.for_loop"
NAME = "for_loop"

LOCAL = Path(__file__).parents[1] / "shim" / "_for_loop_local.py"


class Unannotated(cst.CSTTransformer):
    """The helper as plain code: a user's module need not import what its hints name."""

    def leave_Param(self, original: cst.Param, updated: cst.Param) -> cst.Param:
        if updated.default is None:
            return updated.with_changes(annotation=None)
        tight = cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace(""))
        return updated.with_changes(annotation=None, equal=tight)

    def leave_FunctionDef(
        self, original: cst.FunctionDef, updated: cst.FunctionDef
    ) -> cst.FunctionDef:
        return updated.with_changes(returns=None)

    def leave_AnnAssign(
        self, original: cst.AnnAssign, updated: cst.AnnAssign
    ) -> cst.Assign | cst.AnnAssign:
        if updated.value is None:
            return updated
        return cst.Assign([cst.AssignTarget(updated.target)], updated.value)


@functools.cache
def helper() -> tuple[cst.BaseStatement, ...]:
    """The class and function of ``_for_loop_local``, annotations dropped."""
    local = cst.parse_module(LOCAL.read_text()).visit(Unannotated())
    return tuple(s for s in local.body if isinstance(s, cst.ClassDef | cst.FunctionDef))


def qualified(node: cst.CSTNode, visitor: ReadsMetadata) -> set[str]:
    return {q.name for q in visitor.get_metadata(QualifiedNameProvider, node, set())}


class ForLoopRewrite(cst.CSTTransformer):
    """Drops the imports of ``for_loop`` and calls it by the local name instead."""

    METADATA_DEPENDENCIES = (QualifiedNameProvider,)

    def __init__(self) -> None:
        super().__init__()
        self.used = False

    def leave_ImportFrom(
        self, original: cst.ImportFrom, updated: cst.ImportFrom
    ) -> cst.ImportFrom | cst.RemovalSentinel:
        if isinstance(updated.names, cst.ImportStar):
            return updated
        module = cst.helpers.get_full_name_for_node(updated.module) if updated.module else ""
        return self.without(
            updated, lambda alias: f"{module}.{alias.name.value}" in (FOR_LOOP, FUNCTION)
        )

    def leave_Import(
        self, original: cst.Import, updated: cst.Import
    ) -> cst.Import | cst.RemovalSentinel:
        return self.without(
            updated, lambda alias: cst.helpers.get_full_name_for_node(alias.name) == FOR_LOOP
        )

    def without(
        self, updated: Imports, dropped: Callable[[cst.ImportAlias], bool]
    ) -> Imports | cst.RemovalSentinel:
        """The import statement less the aliases of ``for_loop``; gone when nothing is left."""
        assert not isinstance(updated.names, cst.ImportStar)
        kept = [alias for alias in updated.names if not dropped(alias)]
        if len(kept) == len(updated.names):
            return updated
        self.used = True
        if not kept:
            return cst.RemoveFromParent()
        kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        return updated.with_changes(names=kept)

    def leave_Attribute(
        self, original: cst.Attribute, updated: cst.Attribute
    ) -> cst.BaseExpression:
        """``for_loop.for_loop`` (the module imported) -> ``for_loop``."""
        if FUNCTION in qualified(original, self):
            self.used = True
            return cst.Name(NAME)
        return updated


def bound_names(module: cst.Module) -> set[str]:
    """Names the module binds at its top level other than by importing ``for_loop``."""
    names = set()
    for statement in module.body:
        if isinstance(statement, cst.FunctionDef | cst.ClassDef):
            names.add(statement.name.value)
        elif isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                if isinstance(small, cst.Assign):
                    for target in small.targets:
                        if isinstance(target.target, cst.Name):
                            names.add(target.target.value)
    return names


def after_imports(module: cst.Module) -> int:
    """Where the helper goes: after the last top-level import of the leading block."""
    index = 0
    for position, statement in enumerate(module.body):
        if isinstance(statement, cst.SimpleStatementLine) and all(
            isinstance(s, cst.Import | cst.ImportFrom) for s in statement.body
        ):
            index = position + 1
        elif position > index:
            break
    return index


def migrate_for_loop(module: cst.Module, target: str | Target) -> cst.Module:
    """``module`` with its ``for_loop`` calls served by a local one, where ``target`` lacks
    JAX's (and the module uses it); unchanged otherwise, or where ``for_loop`` is already
    bound to something else at the top level (then doctor keeps listing the use)."""
    location = FEATURES_BY_KEY["for_loop"].modern
    return module if asked_of(target).works_in(location.releases) else served_locally(module)


@functools.lru_cache(maxsize=4)
def served_locally(module: cst.Module) -> cst.Module:
    """The rewrite, the same for every target that lacks ``for_loop``: a ``Migration`` asks
    for it once per target, and then gets one tree, one scope analysis (nodes hash by
    identity, so the cache holds the few modules last asked, never an equal copy)."""
    if "for_loop" not in module.code or NAME in bound_names(module):
        return module
    rewrite = ForLoopRewrite()
    rewritten = cst.MetadataWrapper(module).visit(rewrite)
    if not rewrite.used:
        return module
    at = after_imports(rewritten)
    return rewritten.with_changes(body=[*rewritten.body[:at], *helper(), *rewritten.body[at:]])
