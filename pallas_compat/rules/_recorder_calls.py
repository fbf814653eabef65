"""The TPU simulator's ``grid_point_recorder`` in the protocol of the target release.

JAX 0.6.2-0.10.0 call ``recorder(grid_point, core_id)``; from 0.10.1 the simulator threads
an effects token through it, ``recorder(token, grid_point, core_id)``, and wants it back. The
shim adapts either way at run time (``_interpret.adapt_recorder``); ``migrate`` rewrites a
recorder the module defines with two parameters: ``token`` goes first, and every way out of
the function returns it. One that returns a value of its own is left for a person.
"""

from __future__ import annotations

import libcst as cst
from libcst.metadata import QualifiedNameProvider

from pallas_compat.facts._table import FEATURES_BY_KEY
from pallas_compat.rules._argument_order import Bindings
from pallas_compat.rules._context import ReadsMetadata

TOKEN = "token"
#: Every spelling of the TPU simulator's params class.
PARAMS = frozenset(f"{loc.module}.{loc.attr}" for loc in FEATURES_BY_KEY["tpu_simulator"].locations)


class RecorderArguments(cst.CSTVisitor):
    """The ``grid_point_recorder=`` arguments of ``InterpretParams(...)`` calls."""

    def __init__(self, metadata: ReadsMetadata) -> None:
        super().__init__()
        self.reader = metadata
        self.found: list[cst.Arg] = []

    def visit_Call(self, node: cst.Call) -> None:
        names = {q.name for q in self.reader.get_metadata(QualifiedNameProvider, node.func, set())}
        if names & PARAMS:
            self.found += [
                a for a in node.args if a.keyword and a.keyword.value == "grid_point_recorder"
            ]


def recorder_arguments(module: cst.Module, metadata: ReadsMetadata) -> list[cst.Arg]:
    finder = RecorderArguments(metadata)
    module.visit(finder)
    return finder.found


def two_argument_recorder(name: cst.BaseExpression, bindings: Bindings) -> cst.FunctionDef | None:
    """The module's only ``def`` of that name, if it takes exactly two positional arguments."""
    if not isinstance(name, cst.Name) or name.value in bindings.values:
        return None
    defs = bindings.functions.get(name.value, [])
    if len(defs) != 1:
        return None
    params = defs[0].params
    plain = [*params.posonly_params, *params.params]
    if len(plain) != 2 or params.kwonly_params or params.star_kwarg:
        return None
    if isinstance(params.star_arg, cst.Param):
        return None
    return defs[0]


class Returns(cst.CSTTransformer):
    """``return`` -> ``return token`` in one function, not in functions nested in it; a
    ``return <value>`` makes the rewrite unsafe."""

    def __init__(self) -> None:
        super().__init__()
        self.returns_value = False

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False  # it visits the recorder's body: a def in it has returns of its own

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def leave_Return(self, original: cst.Return, updated: cst.Return) -> cst.Return:
        if updated.value is not None and not (
            isinstance(updated.value, cst.Name) and updated.value.value == "None"
        ):
            self.returns_value = True
            return updated
        return updated.with_changes(
            value=cst.Name(TOKEN), whitespace_after_return=cst.SimpleWhitespace(" ")
        )


def with_token(node: cst.FunctionDef) -> cst.FunctionDef | None:
    """The recorder taking the token first and returning it; None where it returns a value."""
    returns = Returns()
    body = node.body.visit(returns)
    if returns.returns_value or not isinstance(body, cst.IndentedBlock):
        return None
    params = node.params
    first = cst.Param(cst.Name(TOKEN), comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    if params.posonly_params:
        params = params.with_changes(posonly_params=[first, *params.posonly_params])
    else:
        params = params.with_changes(params=[first, *params.params])
    last = body.body[-1] if body.body else None
    ends_in_return = isinstance(last, cst.SimpleStatementLine) and any(
        isinstance(s, cst.Return) for s in last.body
    )
    if not ends_in_return:
        body = body.with_changes(
            body=[*body.body, cst.SimpleStatementLine([cst.Return(cst.Name(TOKEN))])]
        )
    return node.with_changes(params=params, body=body)
