"""Which public Pallas callable a call reaches, and the arguments it passes it: read over
``ast`` for every rule that finds a call (``pl.pallas_call(...)``, through
``functools.partial`` or a name bound once)."""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any, Protocol

from pallas_compat.facts._table import PL, PUBLIC_MODULES
from pallas_compat.rules._bindings import Bindings, position

__all__ = [
    "Reader",
    "bound_callable",
    "callable_key",
    "called",
    "first_argument",
    "is_call_to",
    "is_partial",
    "keyword",
    "keyword_args",
    "only_argument",
    "positional",
]


class Reader(Protocol):
    """What the readings need of the walk (``lint._finder`` gives it): qualified names with
    star imports and module aliases followed, and answers kept for one file."""

    #: Answers kept for the walk of one file, under the reading's name.
    memo: dict[str, dict[int, Any]]

    def qualified(self, node: ast.AST) -> set[str]: ...


def keyword(call: ast.Call, name: str) -> ast.keyword | None:
    return next((k for k in call.keywords if k.arg == name), None)


def keyword_args(call: ast.Call) -> list[tuple[str, ast.keyword]]:
    """The call's ``name=value`` arguments in source order (not ``**kwargs``)."""
    return [(k.arg, k) for k in call.keywords if k.arg is not None]


def positional(call: ast.Call) -> list[ast.expr]:
    """The positional arguments, ``*args`` left out."""
    return [a for a in call.args if not isinstance(a, ast.Starred)]


def first_argument(call: ast.Call) -> ast.expr | None:
    """The call's first argument when it is positional and not starred."""
    if (
        call.args
        and not isinstance(call.args[0], ast.Starred)
        and (not call.keywords or position(call.args[0]) < position(call.keywords[0]))
    ):
        return call.args[0]
    return None


def only_argument(call: ast.Call) -> ast.expr | None:
    """The value of a call's one argument, positional or keyword."""
    if len(call.args) + len(call.keywords) != 1:
        return None
    return call.args[0] if call.args else call.keywords[0].value


def is_call_to(node: ast.Call, reader: Reader, name: str) -> bool:
    """Does the call name ``pl.<name>`` itself?"""
    return f"{PL}.{name}" in reader.qualified(node.func)


def callable_key(node: ast.AST, reader: Reader) -> str | None:
    """``module:name`` of the public Pallas callable an expression names, if any (not what a
    call of one returns: ``plgpu.kernel(body, ...)(x)`` calls the kernel, not ``kernel``)."""
    if isinstance(node, ast.Call):
        return None
    for qname in reader.qualified(node):
        module, _, name = qname.rpartition(".")
        if module in PUBLIC_MODULES:
            return f"{module}:{name}"
    return None


def is_partial(call: ast.Call, reader: Reader) -> bool:
    return "functools.partial" in reader.qualified(call.func)


def called(
    call: ast.Call, reader: Reader, bindings: Callable[[], Bindings]
) -> tuple[str, int] | None:
    """The public Pallas callable a call reaches, directly, through ``functools.partial`` or a
    name bound once, and where its own arguments start (1 past a partial's callable)."""
    memo = reader.memo.setdefault("called", {})
    if id(call) not in memo:
        memo[id(call)] = reached(call, reader, bindings)
    found: tuple[str, int] | None = memo[id(call)]
    return found


def reached(
    call: ast.Call, reader: Reader, bindings: Callable[[], Bindings]
) -> tuple[str, int] | None:
    key = callable_key(call.func, reader)
    if key is not None:
        return key, 0
    first = first_argument(call)
    if first is not None and is_partial(call, reader):
        key = callable_key(first, reader) or bound_callable(first, reader, bindings)
        return (key, 1) if key is not None else None
    key = bound_callable(call.func, reader, bindings)
    return (key, 0) if key is not None else None


def bound_callable(node: ast.AST, reader: Reader, bindings: Callable[[], Bindings]) -> str | None:
    """The callable a name bound once (and never ``def``-ined) holds."""
    if not isinstance(node, ast.Name):
        return None
    values = bindings().values.get(node.id, [])
    if len(values) != 1 or node.id in bindings().functions:
        return None
    (value,) = values
    if isinstance(value, ast.Call):  # what a call returned is no callable of the table,
        if is_partial(value, reader) and value.args:  # but a partial of one is
            return callable_key(value.args[0], reader)
        return None
    return callable_key(value, reader)
