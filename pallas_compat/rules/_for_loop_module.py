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

import ast
import functools
import io
import tokenize
from dataclasses import dataclass
from pathlib import Path

from pallas_compat.facts._table import FEATURES_BY_KEY, FOR_LOOP
from pallas_compat.rules._context import FindContext, FixContext
from pallas_compat.rules._edits import Edits, Text
from pallas_compat.rules._statements import drop_alias, statement_lines

FUNCTION = f"{FOR_LOOP}.for_loop"
NAME = "for_loop"

LOCAL = Path(__file__).parents[1] / "shim" / "_for_loop_local.py"


@functools.cache
def helper(indent: str = "    ") -> str:
    """The class and function of ``_for_loop_local``, annotations dropped, each with the
    blank and comment lines above it, indented with ``indent``: the text written into a
    module (a module indented by two spaces gets two)."""
    text = Text(LOCAL.read_text())
    tree = ast.parse(text.text)
    edits = Edits(text)
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            unannotated(edits, node)
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            edits.replace(text.end(node.target), text.start(node.value), " = ")
    kept = [s for s in tree.body if isinstance(s, ast.ClassDef | ast.FunctionDef)]
    parts = []
    for statement in kept:
        start, end = statement_lines(text, tree, statement)
        parts.append(edits.current(start, end))
    return reindented("".join(parts), indent)


def reindented(code: str, indent: str) -> str:
    """``code`` (indented by four spaces a level) indented by ``indent`` a level. A line
    inside brackets keeps its place relative to its statement's; a line inside a string (a
    docstring's) stays as it is."""
    if indent == "    ":
        return code
    inside: set[int] = set()
    continued: set[int] = set()
    depth = 0
    for token in tokenize.generate_tokens(io.StringIO(code).readline):
        if token.type == tokenize.STRING:
            inside.update(range(token.start[0] + 1, token.end[0] + 1))
        elif token.type == tokenize.OP and token.string in "([{":
            depth += 1
        elif token.type == tokenize.OP and token.string in ")]}":
            depth -= 1
        elif token.type == tokenize.NL and depth:
            continued.add(token.start[0] + 1)
    lines = code.splitlines(keepends=True)
    level = 0
    for number, line in enumerate(lines, start=1):
        body = line.lstrip(" ")
        if number in inside or not body.strip():
            continue
        spaces = len(line) - len(body)
        if number in continued:  # inside brackets: the statement's indent, then its own
            lines[number - 1] = indent * level + " " * (spaces - 4 * level) + body
        else:
            level = spaces // 4
            lines[number - 1] = indent * level + body
    return "".join(lines)


def unannotated(edits: Edits, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
    """A ``def`` without the hints of its parameters and return."""
    text = edits.source
    args = node.args
    every = [*args.posonlyargs, *args.args, args.vararg, *args.kwonlyargs, args.kwarg]
    defaults = dict(zip([*args.posonlyargs, *args.args][::-1], args.defaults[::-1], strict=False))
    defaults |= {a: d for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True) if d}
    for arg in every:
        if arg is None or arg.annotation is None:
            continue
        start = text.start(arg)
        default = defaults.get(arg)
        if default is not None:
            edits.replace(start, text.start(default), f"{arg.arg}=")
        else:
            edits.replace(start, text.end(arg), arg.arg)
    if node.returns is not None:
        close = text.text.rindex(")", 0, text.start(node.returns))
        edits.replace(close + 1, text.end(node.returns), "")


@dataclass(frozen=True)
class ServedLocally:
    """The rewrite of one module, the same for every target that lacks ``for_loop``: its
    imports of it dropped (statements, or names of them), calls through the module made
    calls of the name, and the helper written after the leading imports."""

    module: ast.Module
    imports: list[tuple[ast.Import | ast.ImportFrom, list[ast.alias]]]
    through_module: list[ast.Attribute]
    after: ast.stmt | None

    def __call__(self, m: FixContext) -> bool | None:
        if m.works_in(FEATURES_BY_KEY["for_loop"].modern.releases):
            return None
        text = m.edits.source
        for statement, dropped in self.imports:
            if len(dropped) == len(statement.names):
                m.edits.replace(*statement_lines(text, self.module, statement), "")
            else:
                for alias in dropped:
                    drop_alias(m.edits, statement, alias)
        for attribute in self.through_module:
            m.replace(attribute, NAME)
        at = text.starts[self.after.end_lineno] if self.after is not None else 0  # type: ignore[index]
        m.edits.insert(at, helper(text.indent))
        return True


def served_locally(f: FindContext, module: ast.Module) -> ServedLocally | None:
    """The module's rewrite, where it uses JAX's ``for_loop`` and binds no ``for_loop`` of
    its own at its top level (then doctor keeps listing the use)."""
    if NAME in bound_names(module):
        return None
    imports: list[tuple[ast.Import | ast.ImportFrom, list[ast.alias]]] = []
    for node in ast.walk(module):
        if isinstance(node, ast.ImportFrom) and node.names[0].name != "*":
            dropped = [a for a in node.names if f"{node.module}.{a.name}" in (FOR_LOOP, FUNCTION)]
        elif isinstance(node, ast.Import):
            dropped = [a for a in node.names if a.name == FOR_LOOP]
        else:
            continue
        if dropped:
            imports.append((node, dropped))
    through = [
        node
        for node in ast.walk(module)
        if isinstance(node, ast.Attribute) and FUNCTION in f.scopes.qualified(node)
    ]
    if not imports and not through:
        return None
    gone = {id(s) for s, dropped in imports if len(dropped) == len(s.names)}
    return ServedLocally(module, imports, through, last_import(module, gone))


def bound_names(module: ast.Module) -> set[str]:
    """Names the module binds at its top level other than by importing ``for_loop``."""
    names = set()
    for statement in module.body:
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(statement.name)
        elif isinstance(statement, ast.Assign):
            names.update(t.id for t in statement.targets if isinstance(t, ast.Name))
    return names


def last_import(module: ast.Module, gone: set[int]) -> ast.stmt | None:
    """The last import of the module's leading block (a docstring may come first), of those
    the rewrite keeps: the helper goes after it."""
    found = None
    for position, statement in enumerate(module.body):
        if id(statement) in gone:
            continue
        if isinstance(statement, ast.Import | ast.ImportFrom):
            found = statement
        elif position > 0:  # the first statement may be anything (a docstring)
            break
    return found
