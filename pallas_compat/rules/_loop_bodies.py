"""The bodies of ``plgpu.nd_loop`` (``LOOP_BODIES``) written for the index tuple it handed them
before 0.8.0, and their rewrite for the ``NDLoopInfo`` JAX hands them since.

A body counts as written for the tuple when it unpacks, indexes or iterates its argument; as
written for the info when it reads one of the info's fields (``loop_info.index``); otherwise
it cannot be told and is left alone.
"""

from __future__ import annotations

from typing import Any

import libcst as cst
from libcst.metadata import QualifiedNameProvider

from pallas_compat.facts._table import LOOP_BODIES
from pallas_compat.rules._context import ReadsMetadata

LOOPS = frozenset(f"{module}.{name}" for module, name in LOOP_BODIES)
INFO_FIELDS = frozenset({"index", "local_index", "num_local_steps"})


def loop_decorator(function: cst.FunctionDef, metadata: ReadsMetadata) -> str | None:
    """The loop (``module.name``) a ``def`` is decorated with, called: ``@plgpu.nd_loop(...)``."""
    for decorator in function.decorators:
        if isinstance(decorator.decorator, cst.Call):
            func = decorator.decorator.func
            names = {q.name for q in metadata.get_metadata(QualifiedNameProvider, func, set())}
            for name in names & LOOPS:
                return name
    return None


def first_parameter(function: cst.FunctionDef, position: int = 0) -> cst.Param | None:
    params = [*function.params.posonly_params, *function.params.params]
    return params[position] if len(params) > position else None


def loop_called(call: cst.Call, metadata: ReadsMetadata) -> str | None:
    """The loop of ``plgpu.nd_loop(grid, ...)(body)``: a loop applied without ``@``."""
    if not isinstance(call.func, cst.Call) or len(call.args) != 1:
        return None
    func = call.func.func
    names = {q.name for q in metadata.get_metadata(QualifiedNameProvider, func, set())}
    if any(a.keyword and a.keyword.value == "init_carry" for a in call.func.args):
        return None  # the body takes a carry too: left to a person
    return next(iter(names & LOOPS), None)


PARTIAL = frozenset({"functools.partial"})


def body_of(
    argument: cst.BaseExpression, metadata: ReadsMetadata, functions: dict[str, list[Any]]
) -> tuple[cst.FunctionDef, int] | None:
    """The ``def`` a loop is handed by name, or through ``functools.partial(name, *args)``, and
    the position of the argument the loop fills: the module's only ``def`` of that name."""
    position = 0
    if isinstance(argument, cst.Call):
        names = {q.name for q in metadata.get_metadata(QualifiedNameProvider, argument.func, set())}
        if not names & PARTIAL or any(a.keyword or a.star for a in argument.args[1:]):
            return None
        position = len(argument.args) - 1
        argument = argument.args[0].value if argument.args else argument
    if not isinstance(argument, cst.Name):
        return None
    defs = functions.get(argument.value, [])
    return (defs[0], position) if len(defs) == 1 else None


def takes_index_tuple(function: cst.FunctionDef, position: int = 0) -> bool:
    """Does the body use its argument at ``position`` as a tuple, and never as an info?"""
    import libcst.matchers as m  # lazy: 0.3 s to import, and only migrate's rewrites match

    param = first_parameter(function, position)
    if param is None:
        return False
    name = param.name.value
    it = m.Name(name)
    body = function.body
    as_info = m.findall(body, m.Attribute(value=it, attr=m.OneOf(*map(m.Name, INFO_FIELDS))))
    if as_info:
        return False
    as_tuple = [
        *m.findall(body, m.Assign(targets=[m.AssignTarget(target=m.Tuple() | m.List())], value=it)),
        *m.findall(body, m.Subscript(value=it)),
        *m.findall(body, m.For(iter=it)),
    ]
    return bool(as_tuple)


def reading_index(body: cst.BaseExpression, function: cst.FunctionDef) -> cst.Lambda:
    """``body`` handed the info's index: ``lambda loop_info: body(loop_info.index)``."""
    name = fresh_name(function)
    call = cst.Call(body, [cst.Arg(cst.parse_expression(f"{name}.index"))])
    return cst.Lambda(cst.Parameters([cst.Param(cst.Name(name))]), call)


def fresh_name(function: cst.FunctionDef, wanted: str = "loop_info") -> str:
    import libcst.matchers as m  # lazy: 0.3 s to import, and only migrate's rewrites match

    taken = {n.value for n in m.findall(function, m.Name()) if isinstance(n, cst.Name)}
    name = wanted
    while name in taken:
        name = f"_{name}"
    return name


def with_loop_info(function: cst.FunctionDef) -> cst.FunctionDef:
    """``def body(idx): ...`` -> ``def body(loop_info): idx = loop_info.index; ...``."""
    import libcst.matchers as m  # lazy: 0.3 s to import, and only migrate's rewrites match

    param = first_parameter(function)
    if param is None or not isinstance(function.body, cst.IndentedBlock):
        return function
    old = param.name.value
    new = fresh_name(function)
    unpack = cst.parse_statement(f"{old} = {new}.index\n")
    body = list(function.body.body)
    at = 1 if body and m.matches(body[0], m.SimpleStatementLine([m.Expr(m.SimpleString())])) else 0
    body.insert(at, unpack)
    params = function.params
    renamed = param.with_changes(name=cst.Name(new), annotation=None)
    if params.posonly_params:
        params = params.with_changes(posonly_params=[renamed, *params.posonly_params[1:]])
    else:
        params = params.with_changes(params=[renamed, *params.params[1:]])
    return function.with_changes(params=params, body=function.body.with_changes(body=body))
