"""Statements as lines of text, for fixes that remove or add whole statements: a statement's
lines with the blank and comment lines above it (which go with it), a module's docstring,
and one name dropped from an import."""

from __future__ import annotations

import ast

from pallas_compat.rules._edits import Edits, Text

__all__ = ["drop_alias", "is_docstring", "statement_lines"]


def is_docstring(statement: ast.stmt) -> bool:
    """A docstring, or ``__strict__ = ...`` (which, like one, stays above the imports)."""
    return (
        isinstance(statement, ast.Expr)
        and isinstance(statement.value, ast.Constant)
        and isinstance(statement.value.value, str)
    ) or (
        isinstance(statement, ast.Assign)
        and len(statement.targets) == 1
        and isinstance(statement.targets[0], ast.Name)
        and statement.targets[0].id == "__strict__"
    )


def statement_lines(text: Text, module: ast.Module, node: ast.stmt) -> tuple[int, int]:
    """A statement's whole lines with the blank and comment lines above it: from the line
    after the statement before it, through its own last line break."""
    before = [
        s.end_lineno
        for s in ast.walk(module)
        if isinstance(s, ast.stmt) and s.end_lineno is not None and s.end_lineno < node.lineno
    ]
    first = max(before) + 1 if before else node.lineno
    last = node.end_lineno or node.lineno
    end = text.starts[last] if last < len(text.starts) else len(text.text)
    return text.starts[first - 1], end


def drop_alias(edits: Edits, statement: ast.Import | ast.ImportFrom, alias: ast.alias) -> None:
    """One name out of an import of several: with the comma after it, or, the last, with
    the comma before it."""
    text = edits.source
    names = statement.names
    index = names.index(alias)
    if index + 1 < len(names):
        edits.replace(text.start(alias), text.start(names[index + 1]), "")
    else:
        edits.replace(text.end(names[index - 1]), text.end(alias), "")
