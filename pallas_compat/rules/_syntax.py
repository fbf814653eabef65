"""Reading libcst trees the way the rules need: what a node names (qualified names, with star
imports and module aliases followed), keywords, literal dicts, and which public Pallas
callable a call reaches, directly, through ``functools.partial`` or a name bound once."""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator

import libcst as cst
from libcst.metadata import QualifiedNameProvider

from pallas_compat.facts._table import PL, PUBLIC_MODULES, backend_of
from pallas_compat.rules import _read
from pallas_compat.rules._argument_order import Bindings
from pallas_compat.rules._context import ReadsMetadata
from pallas_compat.rules._expansions import Expansions


def qualified(node: cst.CSTNode, visitor: ReadsMetadata) -> set[str]:
    """The node's qualified names, and what the module's star imports and module aliases make
    of it where the visitor has read them (``visitor.expansions``)."""
    names = {q.name for q in visitor.get_metadata(QualifiedNameProvider, node, set())}
    more: Expansions | None = getattr(visitor, "expansions", None)
    return more.expand(node, names) if more is not None else names


def is_call_to(node: cst.Call, visitor: ReadsMetadata, name: str) -> bool:
    return f"{PL}.{name}" in qualified(node.func, visitor)


def keyword(call: cst.Call, name: str) -> cst.Arg | None:
    return next((a for a in call.args if a.keyword and a.keyword.value == name), None)


def dict_entries(node: cst.BaseExpression) -> list[tuple[str, cst.BaseExpression]] | None:
    """``{"k": v}`` or ``dict(k=v)`` with plain keys -> [(k, v)]; anything else -> None.
    An ``ast`` node (doctor's finders) is read by ``_read.dict_entries``."""
    if isinstance(node, ast.AST):
        return _read.dict_entries(node)  # type: ignore[return-value]
    if isinstance(node, cst.Dict):
        entries = []
        for element in node.elements:
            if not isinstance(element, cst.DictElement) or not isinstance(
                element.key, cst.SimpleString
            ):
                return None
            key = element.key.evaluated_value
            if not isinstance(key, str):  # b"..." keys: no params dict
                return None
            entries.append((key, element.value))
        return entries
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "dict":
        if any(a.keyword is None for a in node.args):
            return None
        return [(a.keyword.value, a.value) for a in node.args if a.keyword]
    return None


def dict_params(call: cst.Call) -> tuple[str, list[tuple[str, cst.BaseExpression]]] | None:
    """``compiler_params={"mosaic": {...}}`` with one backend -> (backend, fields)."""
    arg = keyword(call, "compiler_params")
    outer = dict_entries(arg.value) if arg else None
    if not outer or len(outer) != 1:
        return None
    backend, inner = outer[0]
    fields = dict_entries(inner)
    found = backend_of(backend)
    if fields is None or found is None or not found.dict_fields:
        return None
    return found.key, fields


def callable_key(node: cst.BaseExpression, visitor: ReadsMetadata) -> str | None:
    """``module:name`` of the public Pallas callable an expression names, if any (not what a
    call of one returns: ``plgpu.kernel(body, ...)(x)`` calls the kernel, not ``kernel``)."""
    if isinstance(node, cst.Call):
        return None
    for qname in qualified(node, visitor):
        module, _, name = qname.rpartition(".")
        if module in PUBLIC_MODULES:
            return f"{module}:{name}"
    return None


def called(
    call: cst.Call, visitor: ReadsMetadata, bindings: Callable[[], Bindings]
) -> tuple[str, int] | None:
    """(``module:name``, where its own arguments start) for a call of a public Pallas
    callable however it is reached: directly (``pl.pallas_call(...)``), through
    ``functools.partial(pl.pallas_call, ...)`` (its arguments start after the callable), or
    through a name the module binds once to either (``call = pl.pallas_call``)."""
    key = callable_key(call.func, visitor)
    if key is not None:
        return key, 0
    if is_partial(call, visitor) and call.args and call.args[0].keyword is None:
        key = callable_key(call.args[0].value, visitor) or bound_callable(
            call.args[0].value, visitor, bindings
        )
        return (key, 1) if key is not None else None
    key = bound_callable(call.func, visitor, bindings)
    return (key, 0) if key is not None else None


def is_partial(call: cst.Call, visitor: ReadsMetadata) -> bool:
    return "functools.partial" in qualified(call.func, visitor)


def bound_callable(
    node: cst.BaseExpression, visitor: ReadsMetadata, bindings: Callable[[], Bindings]
) -> str | None:
    """The Pallas callable a name is bound to by its only assignment in the module (``fn =
    pl.pallas_call``, ``fn = functools.partial(pl.pallas_call, ...)``), if any."""
    if not isinstance(node, cst.Name):
        return None
    values = bindings().values.get(node.value, [])
    if len(values) != 1 or node.value in bindings().functions:
        return None
    (value,) = values
    if isinstance(value, cst.Call):  # what a call returned is no callable of the table,
        if is_partial(value, visitor) and value.args:  # but a partial of one is
            return callable_key(value.args[0].value, visitor)
        return None
    return callable_key(value, visitor)


def imported_modules(node: cst.Import | cst.ImportFrom) -> Iterator[tuple[str, cst.CSTNode]]:
    """(dotted module, node) for each module an import statement names."""
    if isinstance(node, cst.Import):
        for alias in node.names:
            yield cst.helpers.get_full_name_for_node(alias.name) or "", alias
        return
    base = cst.helpers.get_full_name_for_node(node.module) if node.module else ""
    yield base or "", node
    if not isinstance(node.names, cst.ImportStar):
        for alias in node.names:
            yield f"{base}.{alias.name.value}", alias
