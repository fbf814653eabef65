"""Reading ``ast`` trees the way the rules' finders need, for ``doctor``'s fast path: the
``ast`` counterparts of ``_syntax``, ``_argument_order`` and ``_expansions`` (which read
libcst's trees for ``migrate``'s rewrites), answering the same questions the same way."""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

from pallas_compat.facts._table import PL, PUBLIC_MODULES
from pallas_compat.rules._argument_order import INDEX_MAP, SHAPE, Order
from pallas_compat.rules._expansions import FOLLOWED, RUN_TIME_IMPORTS, Expansions
from pallas_compat.rules._scopes import Scopes, full_name

__all__ = [
    "Bindings",
    "block_spec_order",
    "bound_callable",
    "callable_key",
    "called",
    "dict_entries",
    "expansions",
    "function_defs",
    "imported_modules",
    "is_call_to",
    "is_partial",
    "keyword",
    "keyword_args",
    "positional",
    "returns",
]

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef


def keyword(call: ast.Call, name: str) -> ast.keyword | None:
    return next((k for k in call.keywords if k.arg == name), None)


def keyword_args(call: ast.Call) -> list[tuple[str, ast.keyword]]:
    """The call's ``name=value`` arguments in source order (not ``**kwargs``)."""
    return [(k.arg, k) for k in call.keywords if k.arg is not None]


def positional(call: ast.Call) -> list[ast.expr]:
    """The positional arguments, ``*args`` left out (as libcst's ``positional``)."""
    return [a for a in call.args if not isinstance(a, ast.Starred)]


def string(node: ast.AST) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def dict_entries(node: ast.AST) -> list[tuple[str, ast.expr]] | None:
    """``{"k": v}`` or ``dict(k=v)`` with plain keys -> [(k, v)]; anything else -> None."""
    if isinstance(node, ast.Dict):
        entries = []
        for key, value in zip(node.keys, node.values, strict=True):
            text = string(key) if key is not None else None
            if text is None:
                return None
            entries.append((text, value))
        return entries
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "dict":
        if node.args or any(k.arg is None for k in node.keywords):
            return None
        return [(k.arg, k.value) for k in node.keywords if k.arg is not None]
    return None


class Reader(Protocol):
    """What the helpers need of the walk (``lint._finder`` gives it): the module's scopes,
    and qualified names with star imports and module aliases followed."""

    scopes: Scopes
    #: Answers kept for the walk of one file, under the helper's name.
    memo: dict[str, dict[int, Any]]

    def qualified(self, node: ast.AST) -> set[str]: ...


def is_call_to(node: ast.Call, reader: Reader, name: str) -> bool:
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


def first_argument(call: ast.Call) -> ast.expr | None:
    """libcst's ``call.args[0]`` when it is positional and not starred."""
    if (
        call.args
        and not isinstance(call.args[0], ast.Starred)
        and (not call.keywords or position(call.args[0]) < position(call.keywords[0]))
    ):
        return call.args[0]
    return None


def position(node: ast.AST) -> tuple[int, int]:
    return (getattr(node, "lineno", 0), getattr(node, "col_offset", 0))


def called(
    call: ast.Call, reader: Reader, bindings: Callable[[], Bindings]
) -> tuple[str, int] | None:
    """``_syntax.called``: the public Pallas callable a call reaches, directly, through
    ``functools.partial`` or a name bound once, and where its own arguments start."""
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


def imported_modules(node: ast.Import | ast.ImportFrom) -> Iterator[tuple[str, ast.AST]]:
    """(dotted module, node) for each module an import statement names."""
    if isinstance(node, ast.Import):
        for alias in node.names:
            yield alias.name, alias
        return
    base = node.module or ""
    yield base, node
    if not (len(node.names) == 1 and node.names[0].name == "*"):
        for alias in node.names:
            yield f"{base}.{alias.name}", alias


@dataclass
class Bindings:
    """What each name of a module is bound to: assigned values and ``def``s, any scope."""

    values: dict[str, list[ast.expr]] = field(default_factory=dict)
    functions: dict[str, list[FunctionNode]] = field(default_factory=dict)

    @classmethod
    def of(cls, scopes: Scopes) -> Bindings:
        """From the assignments and ``def``s the scope pass kept, in source order."""
        found = cls()
        for node in sorted(scopes.assignments, key=position):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        found.values.setdefault(target.id, []).append(node.value)
            elif isinstance(node.target, ast.Name) and node.value is not None:
                found.values.setdefault(node.target.id, []).append(node.value)
        for function in sorted(scopes.functions, key=position):
            found.functions.setdefault(function.name, []).append(function)
        return found


EMPTY = Bindings()


def returns(function: FunctionNode) -> list[ast.expr | None]:
    """The values a function returns (not those of functions or lambdas nested in it)."""
    found: list[ast.expr | None] = []
    todo: list[ast.AST] = [*function.body]
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        if isinstance(node, ast.Return):
            found.append(node.value)
        todo.extend(ast.iter_child_nodes(node))
    return found


def function_defs(reader: Reader) -> list[FunctionNode]:
    """The module's ``def``s, in source order."""
    return sorted(reader.scopes.functions, key=position)


def argument_kind(
    node: ast.AST, bindings: Bindings, seen: frozenset[str] = frozenset()
) -> str | None:
    """``_argument_order.argument_kind`` over ``ast``."""
    if isinstance(node, ast.Lambda):
        return INDEX_MAP
    if isinstance(node, (ast.Tuple, ast.List)):
        return SHAPE
    if isinstance(node, ast.Name) and node.id not in seen:
        if node.id in bindings.functions and node.id not in bindings.values:
            return INDEX_MAP
        kinds = {
            argument_kind(v, bindings, seen | {node.id}) for v in bindings.values.get(node.id, [])
        }
        return kinds.pop() if len(kinds) == 1 else None
    if isinstance(node, ast.Call):
        name = full_name(node.func) or ""
        if name.rpartition(".")[2] == "partial":
            return INDEX_MAP
        if name in ("tuple", "list"):
            return SHAPE
        defs = bindings.functions.get(name, [])
        if len(defs) == 1:
            kinds = {
                argument_kind(v, bindings, seen | {name}) if v is not None else None
                for v in returns(defs[0])
            }
            return kinds.pop() if len(kinds) == 1 and SHAPE in kinds else None
    return None


def block_spec_order(call: ast.Call, bindings: Callable[[], Bindings]) -> Order | None:
    """``_argument_order.block_spec_order`` over ``ast``."""
    args = positional(call)
    if len(args) < 2:
        return None
    first, second = (argument_kind(a, EMPTY) for a in args[:2])
    if (first is None and second is None) or first == second:
        known = bindings()
        first, second = (argument_kind(a, known) for a in args[:2])
    if first == INDEX_MAP or (second == SHAPE and first != SHAPE):
        return Order.OLD
    if first == SHAPE or second == INDEX_MAP:
        return Order.NEW
    return Order.UNKNOWN


def expansions(
    module: ast.Module, reader: Reader, where: Callable[[ast.AST], tuple[int, int]]
) -> Expansions:
    """``_expansions.expansions`` over ``ast``: star imports and module aliases of the top
    level, and imports by name at run time anywhere (``where`` gives a node's line and
    column)."""
    found = Expansions()
    bound: dict[str, int] = {}
    for statement in module.body:
        if isinstance(statement, ast.ImportFrom) and statement.names[0].name == "*":
            name = "." * statement.level + (statement.module or "")
            if name in FOLLOWED:
                found.star.add(name)
        elif isinstance(statement, ast.Assign):
            for target in statement.targets:
                if isinstance(target, ast.Name):
                    bound[target.id] = bound.get(target.id, 0) + 1
                    names = reader.scopes.qualified(statement.value)
                    module_name = next((n for n in sorted(names) if n in FOLLOWED), None)
                    if module_name is not None:
                        found.aliases[target.id] = module_name
    found.aliases = {k: v for k, v in found.aliases.items() if bound.get(k) == 1}
    for node in reader.scopes.calls:
        if not node.args and not node.keywords:
            continue
        if not reader.scopes.qualified(node.func) & RUN_TIME_IMPORTS:
            continue
        first = node.args[0] if node.args else None
        if first is None or (node.keywords and position(node.keywords[0]) < position(first)):
            first = node.keywords[0].value
        if isinstance(first, ast.Constant) and isinstance(first.value, (str, bytes)):
            text = str(first.value)
            if text.startswith(tuple(FOLLOWED)):
                line, column = where(node)
                found.opaque.append((line, column, text))
    found.opaque.sort()
    return found


# -- the forms some rules find: the ``ast`` counterparts of their libcst helpers


def raw_qualified(node: ast.AST, reader: Reader) -> set[str]:
    """Qualified names without star imports or module aliases (as those helpers read them)."""
    return reader.scopes.qualified(node)


def only_argument(call: ast.Call) -> ast.expr | None:
    """The value of a call's one argument, positional or keyword."""
    if len(call.args) + len(call.keywords) != 1:
        return None
    return call.args[0] if call.args else call.keywords[0].value


def is_cost_analysis_call(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Call)
        and not node.args
        and not node.keywords
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "cost_analysis"
    )


def is_old_cost_index(node: ast.Subscript, bound: set[str]) -> bool:
    """``_cost_analysis_index.is_old_index``: ``X.cost_analysis()[0]``, or ``cost[0]`` with
    ``cost`` in ``bound``."""
    index = node.slice
    written_zero = (
        isinstance(index, ast.Constant)
        and type(index.value) is int
        and index.value == 0
        and index.end_col_offset == index.col_offset + 1
    )
    value = node.value
    return written_zero and (
        is_cost_analysis_call(value) or (isinstance(value, ast.Name) and value.id in bound)
    )


def names_in(node: ast.AST | None) -> Iterator[str]:
    """Every name written in a target (``a.b[c]`` -> a, b, c), as libcst's collector sees."""
    if node is None:
        return
    for inner in ast.walk(node):
        if isinstance(inner, ast.Name):
            yield inner.id
        elif isinstance(inner, ast.Attribute):
            yield inner.attr


#: Statements and expressions that bind their ``target``.
TARGETED = (ast.AugAssign, ast.AnnAssign, ast.For, ast.AsyncFor, ast.NamedExpr)


def cost_bound_in(function: FunctionNode) -> set[str]:
    """``_cost_analysis_index.bound_in``: names of one function (not its nested ones) bound
    from ``....cost_analysis()`` by their only binding."""
    from_cost: set[str] = set()
    bound: dict[str, int] = {}

    def bind(names: Iterable[str]) -> None:
        for name in names:
            bound[name] = bound.get(name, 0) + 1

    every = function.args
    todo: list[ast.AST] = [*function.body]
    bind(a.arg for a in every_parameter(every))
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        if isinstance(node, ast.Lambda):
            bind(a.arg for a in every_parameter(node.args))
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                bind(names_in(target))
            if (
                len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
                and is_cost_analysis_call(node.value)
            ):
                from_cost.add(node.targets[0].id)
        elif isinstance(node, TARGETED):
            bind(names_in(node.target))
        elif isinstance(node, ast.withitem):
            bind(names_in(node.optional_vars))
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bind([node.name])
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bind(a.asname for a in node.names if a.asname)
        todo.extend(ast.iter_child_nodes(node))
    return {n for n in from_cost if bound.get(n) == 1}


def every_parameter(args: ast.arguments) -> list[ast.arg]:
    return [
        a
        for a in (*args.posonlyargs, *args.args, args.vararg, *args.kwonlyargs, args.kwarg)
        if a is not None
    ]


def own_init(node: ast.ClassDef) -> FunctionNode | None:
    """``_subclass_init.own_init``: the class's own ``__init__``."""
    return next(
        (
            s
            for s in node.body
            if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == "__init__"
        ),
        None,
    )


def subclasses(node: ast.ClassDef, reader: Reader, spelling: str) -> bool:
    """Does a base of the class name ``spelling`` (``module.attr``)?"""
    return any(spelling in raw_qualified(base, reader) for base in node.bases)


def recorder_arguments(reader: Reader, params: frozenset[str]) -> list[ast.keyword]:
    """``_recorder_calls.recorder_arguments``: the ``grid_point_recorder=`` arguments of
    calls of the simulator's params (``params``), in source order."""
    found = [
        k
        for node in reader.scopes.calls
        if any(k.arg == "grid_point_recorder" for k in node.keywords)
        and raw_qualified(node.func, reader) & params
        for k in node.keywords
        if k.arg == "grid_point_recorder"
    ]
    return sorted(found, key=position)


def two_argument_recorder(name: ast.AST, bindings: Bindings) -> FunctionNode | None:
    """``_recorder_calls.two_argument_recorder``: the module's only ``def`` of that name, if
    it takes exactly two positional arguments."""
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


def loop_decorator(function: FunctionNode, reader: Reader, loops: frozenset[str]) -> str | None:
    """``_loop_bodies.loop_decorator``: the loop a ``def`` is decorated with, called."""
    for decorator in function.decorator_list:
        if isinstance(decorator, ast.Call):
            for name in raw_qualified(decorator.func, reader) & loops:
                return name
    return None


def first_parameter(function: FunctionNode, at: int = 0) -> ast.arg | None:
    params = [*function.args.posonlyargs, *function.args.args]
    return params[at] if len(params) > at else None


def takes_index_tuple(function: FunctionNode, at: int, fields: frozenset[str]) -> bool:
    """``_loop_bodies.takes_index_tuple``: does the body use its argument at ``at`` as a
    tuple (unpacks, indexes or iterates it), and never as an info (reads one of ``fields``)?"""
    param = first_parameter(function, at)
    if param is None:
        return False
    name = param.arg

    def it(node: ast.AST) -> bool:
        return isinstance(node, ast.Name) and node.id == name

    as_tuple = False
    for statement in function.body:
        for node in ast.walk(statement):
            if isinstance(node, ast.Attribute) and node.attr in fields and it(node.value):
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


def loop_called(call: ast.Call, reader: Reader, loops: frozenset[str]) -> str | None:
    """``_loop_bodies.loop_called``: the loop of ``plgpu.nd_loop(grid, ...)(body)``."""
    if not isinstance(call.func, ast.Call) or only_argument(call) is None:
        return None
    if any(k.arg == "init_carry" for k in call.func.keywords):
        return None  # the body takes a carry too: left to a person
    return next(iter(raw_qualified(call.func.func, reader) & loops), None)


def body_of(
    argument: ast.AST, reader: Reader, functions: dict[str, list[FunctionNode]]
) -> tuple[FunctionNode, int] | None:
    """``_loop_bodies.body_of``: the ``def`` a loop is handed by name or through
    ``functools.partial(name, *args)``, and the position of the argument the loop fills."""
    at = 0
    if isinstance(argument, ast.Call):
        if "functools.partial" not in raw_qualified(argument.func, reader):
            return None
        if argument.keywords or any(isinstance(a, ast.Starred) for a in argument.args[1:]):
            return None
        at = len(argument.args) - 1
        argument = argument.args[0] if argument.args else argument
    if not isinstance(argument, ast.Name):
        return None
    defs = functions.get(argument.id, [])
    return (defs[0], at) if len(defs) == 1 else None
