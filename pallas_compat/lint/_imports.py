"""The imports ``migrate`` reads, adds and tidies, on the file's text: the names a module binds
its modules to (a rewrite never adds an import the file already has, wherever it stands at
the top level), the imports a rewrite needs (written after the file's leading block of
imports, or into a ``from`` import of the same module there), and the imports a rewrite left
unused (``pltpu.repeat`` rewritten away leaves ``pltpu`` unused), which go with the comment
and blank lines above them.
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass

from pallas_compat.rules._edits import Edits, Text
from pallas_compat.rules._statements import drop_alias, is_docstring, statement_lines

SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


def top_level_imports(module: ast.Module) -> Iterator[ast.Import | ast.ImportFrom]:
    """The module's imports outside functions and classes (inside ``if``/``try`` too)."""
    todo: list[ast.AST] = list(reversed(module.body))
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        elif not isinstance(node, SCOPES):
            todo.extend(reversed(list(ast.iter_child_nodes(node))))


def module_bindings(module: ast.Module) -> dict[str, str]:
    """Dotted module (or ``module.name``) -> the name the module binds it to at its top level:
    ``import jax.numpy as jnp`` -> ``{"jax.numpy": "jnp"}``, ``import jax`` -> ``{"jax":
    "jax"}``, ``from jax.experimental import pallas as pl`` -> ``{"jax.experimental.pallas":
    "pl"}``; the first binding wins."""
    bound: dict[str, str] = {}
    for node in top_level_imports(module):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    bound.setdefault(alias.name, alias.asname)
                elif "." not in alias.name:
                    bound.setdefault(alias.name, alias.name)
        elif node.level == 0 and node.module and node.names[0].name != "*":
            for alias in node.names:
                bound.setdefault(f"{node.module}.{alias.name}", alias.asname or alias.name)
    return bound


@dataclass(frozen=True)
class Needed:
    """An import a rewrite needs: ``import module`` (``name`` None) or ``from module import
    name as alias``."""

    module: str
    name: str | None = None
    alias: str | None = None


def leading_block(module: ast.Module) -> list[ast.stmt]:
    """The imports the module starts with (after its docstring), each alone on its line."""
    body = module.body
    start = 1 if body and is_docstring(body[0]) else 0
    block: list[ast.stmt] = []
    for statement in body[start:]:
        if not isinstance(statement, ast.Import | ast.ImportFrom):
            break
        block.append(statement)
    return block


def add_imports(edits: Edits, module: ast.Module, needed: list[Needed]) -> None:
    """Write the ``needed`` imports the leading block lacks: a name into a ``from`` import of
    its module there (first, sorted), the rest after the block (``import``s sorted, then one
    ``from`` import per module, sorted), and a blank line after them where there was none."""
    if not needed:
        return
    text = edits.source
    block = leading_block(module)
    have_modules = {
        a.name for s in block if isinstance(s, ast.Import) for a in s.names if not a.asname
    }
    have_names = {
        (s.module, a.name, a.asname)
        for s in block
        if isinstance(s, ast.ImportFrom) and s.level == 0
        for a in s.names
    }
    modules = sorted({n.module for n in needed if n.name is None} - have_modules)
    names: dict[str, set[tuple[str, str | None]]] = {}
    for n in needed:
        if n.name is not None and (n.module, n.name, n.alias) not in have_names:
            names.setdefault(n.module, set()).add((n.name, n.alias))
    for statement in block:  # into a ``from`` import of the same module
        if isinstance(statement, ast.ImportFrom) and statement.module in names:
            if statement.level or statement.names[0].name == "*":
                continue
            added = sorted(names.pop(statement.module), key=lambda p: (p[0], p[1] or ""))
            first = statement.names[0]
            written = ", ".join(spelled(name, alias) for name, alias in added)
            edits.insert(text.offset(first.lineno, first.col_offset), f"{written}, ")
    lines = [f"import {m}\n" for m in modules]
    lines += [
        f"from {m} import "
        + ", ".join(spelled(n, a) for n, a in sorted(names[m], key=lambda p: (p[0], p[1] or "")))
        + "\n"
        for m in sorted(names)
    ]
    if not lines:
        return
    body = module.body
    documented = bool(body) and is_docstring(body[0])
    if block:  # the line after the block
        at = text.starts[block[-1].end_lineno or block[-1].lineno]
    elif documented and len(body) > 1:  # the line of the first statement after the docstring
        at = text.starts[body[1].lineno - 1]
    elif documented:  # the line after the docstring
        at = text.starts[body[0].end_lineno or body[0].lineno]
    else:
        at = 0
    rest = text.text[at:]
    after = "" if not rest.strip() or rest.startswith(("\n", "\r\n")) else "\n"
    edits.insert(at, "".join(lines) + after, first=True)


def spelled(name: str, alias: str | None) -> str:
    return name if alias is None else f"{name} as {alias}"


def binding(alias: ast.alias) -> str:
    return alias.asname or alias.name.partition(".")[0]


def made_unused(before: Counter[str], after_text: str, module: ast.Module) -> set[str]:
    """The names the migrated ``module`` (whose text is ``after_text``) still imports at its
    top level but no longer reads, of those ``before`` (the original's reads) shows it read."""
    after = name_reads(module)
    still = {
        binding(alias)
        for node in top_level_imports(module)
        for alias in node.names
        if alias.name != "*"
    }
    return {name for name in still & set(before) if after[name] == 0}


def name_reads(module: ast.Module) -> Counter[str]:
    """How often each name is written outside import statements: read, bound by a ``def``, an
    argument, a ``global``, a pattern or a type parameter (``True``, ``False``, ``None``
    count too). A name written anywhere keeps its import: only one no longer written at all
    was made unused by the rewrite."""
    count: Counter[str] = Counter()
    for node in ast.walk(module):
        if isinstance(node, ast.Name):
            count[node.id] += 1
        elif isinstance(node, (ast.Constant, ast.MatchSingleton)) and any(
            node.value is named for named in (True, False, None)
        ):
            count[repr(node.value)] += 1
        else:
            for field in NAME_FIELDS.get(type(node), ()):
                value = getattr(node, field)
                if isinstance(value, str):
                    count[value] += 1
                elif isinstance(value, list):
                    count.update(value)
    return count


NAME_FIELDS: dict[type[ast.AST], tuple[str, ...]] = {
    ast.FunctionDef: ("name",),
    ast.AsyncFunctionDef: ("name",),
    ast.ClassDef: ("name",),
    ast.arg: ("arg",),
    ast.keyword: ("arg",),
    ast.ExceptHandler: ("name",),
    ast.Global: ("names",),
    ast.Nonlocal: ("names",),
    ast.MatchAs: ("name",),
    ast.MatchStar: ("name",),
    ast.MatchMapping: ("rest",),
    ast.MatchClass: ("kwd_attrs",),
    **{  # type parameters (Python 3.12)
        node: ("name",)
        for node in (getattr(ast, n, None) for n in ("TypeVar", "ParamSpec", "TypeVarTuple"))
        if node is not None
    },
}


def drop_bindings(text: str, module: ast.Module, names: set[str]) -> str:
    """``text`` without the top-level import aliases that bind one of ``names``; a statement
    left with none goes, with the blank and comment lines above it."""
    source = Text(text)
    edits = Edits(source)
    for node in top_level_imports(module):
        if node.names[0].name == "*":
            continue
        aliases = node.names
        dropped = [a for a in aliases if binding(a) in names]
        if not dropped:
            continue
        if len(dropped) == len(aliases):
            start, end = statement_lines(source, module, node)
            edits.replace(start, end, "")
            continue
        for alias in dropped:
            drop_alias(edits, node, alias)
    return edits.result()
