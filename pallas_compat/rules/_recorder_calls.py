"""The TPU simulator's ``grid_point_recorder`` in the protocol of the target release.

JAX 0.6.2-0.10.0 call ``recorder(grid_point, core_id)``; from 0.10.1 the simulator threads
an effects token through it, ``recorder(token, grid_point, core_id)``, and wants it back. The
shim adapts either way at run time (``_interpret.adapt_recorder``); ``migrate`` rewrites a
recorder the module defines with two parameters: ``token`` goes first, and every way out of
the function returns it. One that returns a value of its own is left for a person.
"""

from __future__ import annotations

import ast

from pallas_compat.facts._table import FEATURES_BY_KEY
from pallas_compat.rules._bindings import Bindings, position
from pallas_compat.rules._context import FindContext, FixContext

TOKEN = "token"
#: Every spelling of the TPU simulator's params class.
PARAMS = frozenset(f"{loc.module}.{loc.attr}" for loc in FEATURES_BY_KEY["tpu_simulator"].locations)
FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef


def own_returns(function: FunctionNode) -> list[ast.Return]:
    """The function's ``return`` statements, not those of functions or lambdas nested in it."""
    found = []
    todo: list[ast.AST] = [*function.body]
    while todo:
        node = todo.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
            continue
        if isinstance(node, ast.Return):
            found.append(node)
        todo.extend(ast.iter_child_nodes(node))
    return found


def mendable(function: FunctionNode) -> bool:
    """Returns nothing of its own, and has a body of its own lines."""
    if function.body[0].lineno == function.lineno:
        return False
    return all(
        r.value is None or (isinstance(r.value, ast.Constant) and r.value.value is None)
        for r in own_returns(function)
    )


def with_token(m: FixContext, function: FunctionNode) -> None:
    """The recorder taking the token first and returning it."""
    text = m.edits.source
    args = function.args
    first = (args.posonlyargs or args.args)[0]
    m.edits.insert(text.start(first), f"{TOKEN}, ")
    for found in own_returns(function):
        m.replace(found, f"return {TOKEN}")
    last = function.body[-1]
    line_end = last.end_lineno or last.lineno
    ends_in_return = any(
        isinstance(s, ast.Return) and (s.end_lineno or s.lineno) == line_end for s in function.body
    )
    if not ends_in_return:
        indent = text.text[text.starts[function.body[0].lineno - 1] : text.start(function.body[0])]
        at = text.starts[line_end] if line_end < len(text.starts) else len(text.text)
        before = "" if text.text[:at].endswith("\n") else "\n"
        m.edits.insert(at, f"{before}{indent}return {TOKEN}\n")


def recorder_arguments(f: FindContext) -> list[ast.keyword]:
    """The ``grid_point_recorder=`` arguments of calls of the simulator's params, in source
    order."""
    found = [
        k
        for node in f.scopes.calls
        if any(k.arg == "grid_point_recorder" for k in node.keywords)
        and f.scopes.qualified(node.func) & PARAMS
        for k in node.keywords
        if k.arg == "grid_point_recorder"
    ]
    return sorted(found, key=position)


def two_argument_recorder(name: ast.AST, bindings: Bindings) -> FunctionNode | None:
    """The module's only ``def`` of that name, if it takes exactly two positional
    arguments."""
    if not isinstance(name, ast.Name) or name.id in bindings.values:
        return None
    defs = bindings.functions.get(name.id, [])
    if len(defs) != 1:
        return None
    args = defs[0].args
    plain = [*args.posonlyargs, *args.args]
    if len(plain) != 2 or args.kwonlyargs or args.kwarg or args.vararg:
        return None
    return defs[0]
