"""The shim route as a user takes it: every import of a module the shim serves changed to
``pallas_compat``'s, and nothing else.

The shim serves the Pallas modules and the JAX modules outside Pallas that old kernel files
import (``for_loop``, ``jax.util``, ``jax._src.dtypes``, ``jax._src.prng``: ``NAMESPACE_OF``).
Old code spells those imports in many ways (``from jax.experimental import pallas as pl``,
``import jax.experimental.pallas as pl``, ``from jax.experimental.pallas import tpu as pltpu
# a comment``, ``from jax.experimental.pallas import BlockSpec``, ``from jax import util as
jax_util``); each becomes the same import of the shim's namespace (``from pallas_compat import
pltpu as pltpu``, ``from pallas_compat.pl import BlockSpec``) under the same local names,
comments kept. Imports of JAX's own shipped kernels (``jax.experimental.pallas.ops``) stay.
"""

from __future__ import annotations

import libcst as cst

from pallas_compat.facts import NAMESPACE_OF

SHIM = "pallas_compat"
#: Modules whose submodules the shim serves: ``from jax.experimental import pallas``.
PARENTS = frozenset(module.rpartition(".")[0] for module in NAMESPACE_OF)


def dotted(node: cst.BaseExpression | None) -> str:
    return (cst.helpers.get_full_name_for_node(node) or "") if node is not None else ""


def bound(alias: cst.ImportAlias) -> cst.AsName:
    """The local name an alias binds, spelt out (``tpu`` -> ``as tpu``)."""
    return alias.asname or cst.AsName(cst.Name(dotted(alias.name)))


def from_import(module: str, names: list[cst.ImportAlias]) -> cst.ImportFrom:
    names[-1] = names[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return cst.ImportFrom(module=cst.parse_expression(module), names=names)


class ShimImports(cst.CSTTransformer):
    def leave_SimpleStatementLine(
        self, original: cst.SimpleStatementLine, updated: cst.SimpleStatementLine
    ) -> cst.SimpleStatementLine | cst.FlattenSentinel[cst.SimpleStatementLine]:
        """One import split in two stays one statement per line."""
        if len(original.body) != 1 or len(updated.body) == 1:
            return updated
        first, *rest = updated.body
        lines = [
            updated.with_changes(body=[first.with_changes(semicolon=cst.MaybeSentinel.DEFAULT)])
        ]
        lines += [
            cst.SimpleStatementLine([s.with_changes(semicolon=cst.MaybeSentinel.DEFAULT)])
            for s in rest
        ]
        return cst.FlattenSentinel(lines)

    def leave_Import(
        self, original: cst.Import, updated: cst.Import
    ) -> cst.BaseSmallStatement | cst.FlattenSentinel[cst.BaseSmallStatement]:
        """``import jax.experimental.pallas.tpu as pltpu`` -> ``from pallas_compat import
        pltpu as pltpu``. A plain ``import jax.experimental.pallas`` binds ``jax``, whose
        attribute chain the shim does not stand in for: it stays."""
        kept, shimmed = [], []
        for alias in updated.names:
            space = NAMESPACE_OF.get(dotted(alias.name))
            if space is None or alias.asname is None:
                kept.append(alias)
            else:
                shimmed.append(cst.ImportAlias(cst.Name(space), asname=alias.asname))
        if not shimmed:
            return updated
        made: list[cst.BaseSmallStatement] = [from_import(SHIM, shimmed)]
        if kept:
            kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
            made.insert(0, updated.with_changes(names=kept))
        return cst.FlattenSentinel(made)

    def leave_ImportFrom(
        self, original: cst.ImportFrom, updated: cst.ImportFrom
    ) -> cst.BaseSmallStatement | cst.FlattenSentinel[cst.BaseSmallStatement]:
        """``from jax.experimental import pallas as pl`` -> ``from pallas_compat import pl as
        pl``; ``from jax.experimental.pallas import tpu as pltpu, BlockSpec`` -> ``from
        pallas_compat import pltpu as pltpu`` and ``from pallas_compat.pl import BlockSpec``."""
        module = dotted(updated.module)
        if updated.relative or (module not in PARENTS and module not in NAMESPACE_OF):
            return updated
        if isinstance(updated.names, cst.ImportStar):
            if module not in NAMESPACE_OF:
                return updated
            return updated.with_changes(module=cst.parse_expression(shim_of(module)))
        kept, spaces, members = [], [], []
        for alias in updated.names:
            space = NAMESPACE_OF.get(f"{module}.{dotted(alias.name)}")
            if space is not None:
                spaces.append(alias.with_changes(name=cst.Name(space), asname=bound(alias)))
            elif module in NAMESPACE_OF:
                members.append(alias)
            else:
                kept.append(alias)
        made: list[cst.BaseSmallStatement] = []
        if kept:
            made.append(from_import(module, kept))
        if spaces:
            made.append(from_import(SHIM, spaces))
        if members:
            made.append(from_import(shim_of(module), members))
        if not spaces and not members:
            return updated
        if len(made) == 1:  # keep the statement's own layout (parentheses, comments)
            names = [*kept, *spaces, *members]
            if updated.lpar:
                names[-1] = names[-1].with_changes(comma=updated.names[-1].comma)
            return updated.with_changes(module=made[0].module, names=names)
        return cst.FlattenSentinel(made)


def shim_of(module: str) -> str:
    """``jax.experimental.pallas.tpu`` -> ``pallas_compat.pltpu`` (an importable module)."""
    return f"{SHIM}.{NAMESPACE_OF[module]}"


def shim_imports(source: str) -> str:
    """``source`` with its Pallas imports taken from ``pallas_compat`` instead."""
    return cst.parse_module(source).visit(ShimImports()).code
