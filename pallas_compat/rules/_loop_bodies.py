"""The bodies of ``plgpu.nd_loop`` (``LOOP_BODIES``) written for the index tuple it handed them
before 0.8.0, and their rewrite for the ``NDLoopInfo`` JAX hands them since.

A body counts as written for the tuple when it unpacks, indexes or iterates its argument; as
written for the info when it reads one of the info's fields (``loop_info.index``); otherwise
it cannot be told and is left alone.
"""

from __future__ import annotations

import ast

from pallas_compat.facts._table import LOOP_BODIES
from pallas_compat.rules._calls import only_argument
from pallas_compat.rules._context import FindContext, FixContext

LOOPS = frozenset(f"{module}.{name}" for module, name in LOOP_BODIES)
INFO_FIELDS = frozenset({"index", "local_index", "num_local_steps"})
FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef


def fresh_name(function: ast.AST, wanted: str = "loop_info") -> str:
    """``wanted``, or with underscores before it, so that it is no name the function uses."""
    taken = set()
    for node in ast.walk(function):
        if isinstance(node, ast.Name):
            taken.add(node.id)
        elif isinstance(node, ast.Attribute):
            taken.add(node.attr)
        elif isinstance(node, ast.arg | ast.keyword) and node.arg:
            taken.add(node.arg)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            taken.add(node.name)
    name = wanted
    while name in taken:
        name = f"_{name}"
    return name


def reading_index(m: FixContext, body: ast.expr, function: FunctionNode) -> str:
    """``body`` handed the info's index: ``lambda loop_info: body(loop_info.index)``."""
    name = fresh_name(function)
    return f"lambda {name}: {m.current(body)}({name}.index)"


def with_loop_info(m: FixContext, function: FunctionNode) -> None:
    """``def body(idx): ...`` -> ``def body(loop_info): idx = loop_info.index; ...``: the new
    statement first in the body, after a docstring."""
    args = function.args
    params = [*args.posonlyargs, *args.args]
    if not params or function.body[0].lineno == function.lineno:
        return
    text = m.edits.source
    param = params[0]
    new = fresh_name(function)
    first = function.body[0]
    docstring = (
        isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
    )
    after = first.end_lineno if docstring and len(function.body) > 0 else None
    anchor = function.body[1] if docstring and len(function.body) > 1 else first
    indent = text.text[text.starts[anchor.lineno - 1] : text.start(anchor)]
    if after is None:  # the line after the header's colon
        after = text.header_line(function)
    m.replace(param, new)
    m.edits.insert(text.starts[after], f"{indent}{param.arg} = {new}.index\n")


def loop_decorator(function: FunctionNode, f: FindContext) -> str | None:
    """The loop a ``def`` is decorated with, called (``@plgpu.nd_loop(grid)``)."""
    for decorator in function.decorator_list:
        if isinstance(decorator, ast.Call):
            for name in f.scopes.qualified(decorator.func) & LOOPS:
                return name
    return None


def first_parameter(function: FunctionNode, at: int = 0) -> ast.arg | None:
    params = [*function.args.posonlyargs, *function.args.args]
    return params[at] if len(params) > at else None


def takes_index_tuple(function: FunctionNode, at: int) -> bool:
    """Does the body use its argument at ``at`` as a tuple (unpacks, indexes or iterates it),
    and never as an info (reads one of ``INFO_FIELDS``)?"""
    param = first_parameter(function, at)
    if param is None:
        return False
    name = param.arg

    def it(node: ast.AST) -> bool:
        return isinstance(node, ast.Name) and node.id == name

    as_tuple = False
    for statement in function.body:
        for node in ast.walk(statement):
            if isinstance(node, ast.Attribute) and node.attr in INFO_FIELDS and it(node.value):
                return False
            if (
                (
                    isinstance(node, ast.Assign)
                    and len(node.targets) == 1
                    and isinstance(node.targets[0], (ast.Tuple, ast.List))
                    and it(node.value)
                )
                or (isinstance(node, ast.Subscript) and it(node.value))
                or (isinstance(node, (ast.For, ast.AsyncFor)) and it(node.iter))
            ):
                as_tuple = True
    return as_tuple


def loop_called(call: ast.Call, f: FindContext) -> str | None:
    """The loop of ``plgpu.nd_loop(grid, ...)(body)``."""
    if not isinstance(call.func, ast.Call) or only_argument(call) is None:
        return None
    if any(k.arg == "init_carry" for k in call.func.keywords):
        return None  # the body takes a carry too: left to a person
    return next(iter(f.scopes.qualified(call.func.func) & LOOPS), None)


def body_of(
    argument: ast.AST, f: FindContext, functions: dict[str, list[FunctionNode]]
) -> tuple[FunctionNode, int] | None:
    """The ``def`` a loop is handed by name or through ``functools.partial(name, *args)``,
    and the position of the argument the loop fills."""
    at = 0
    if isinstance(argument, ast.Call):
        if "functools.partial" not in f.scopes.qualified(argument.func):
            return None
        if argument.keywords or any(isinstance(a, ast.Starred) for a in argument.args[1:]):
            return None
        at = len(argument.args) - 1
        argument = argument.args[0] if argument.args else argument
    if not isinstance(argument, ast.Name):
        return None
    defs = functions.get(argument.id, [])
    return (defs[0], at) if len(defs) == 1 else None
