"""Small text rewrites the rules' fixes share: an expression safe where it is moved, a
subscript, what an expression needs around it to stay one operand, and the marker of the
notes ``migrate`` leaves on a line it could not rewrite."""

from __future__ import annotations

import ast

from pallas_compat.rules._context import FixContext

MARKER = "# pallas-compat:"

#: Expressions that bind tighter than any operator: written beside one as they are.
ATOMS = (ast.Name, ast.Attribute, ast.Call, ast.Subscript)


def parenthesized(m: FixContext, node: ast.AST) -> bool:
    """Does the source hold ``node`` in parentheses of its own (``(a + b)``, not a call's)?"""
    text = m.edits.source.text
    start, end = m.edits.source.span(node)
    before = text[:start].rstrip()
    after = text[end:].lstrip()
    if not (before.endswith("(") and after.startswith(")")):
        return False
    opener = before[:-1].rstrip()  # a call's, a def's or a subscript's parenthesis follows a name
    return not (opener and (opener[-1].isalnum() or opener[-1] in "_)]"))


def atom(m: FixContext, node: ast.AST) -> bool:
    """Can ``node``'s text stand beside an operator as it is?"""
    is_int = isinstance(node, ast.Constant) and type(node.value) is int
    return isinstance(node, ATOMS) or is_int or parenthesized(m, node)


def operand(m: FixContext, node: ast.AST) -> str:
    """``node``'s current text, in parentheses where an operator beside it would bind it
    otherwise (``[x] * (block_k // 128)``)."""
    text = m.current(node)
    return text if atom(m, node) else f"({text})"


def standalone(m: FixContext, node: ast.AST) -> str:
    """``node``'s current text, safe outside the parentheses it came from: a multi-line
    expression that relied on them for its line breaks gets parentheses of its own."""
    text = m.current(node)
    if "\n" not in text or parenthesized(m, node):
        return text
    return f"({text})"


def subscript(m: FixContext, value: ast.AST, index: ast.AST) -> str:
    """``value[index]``, spreading a tuple literal into ``value[a, b]`` (not one with a
    ``*starred`` part, which stays a tuple: ``value[(*a, b)]``, nor the empty one:
    ``value[()]``)."""
    if (
        isinstance(index, ast.Tuple)
        and index.elts
        and not any(isinstance(e, ast.Starred) for e in index.elts)
    ):
        inside = ", ".join(m.current(e) for e in index.elts)
    else:
        inside = m.current(index)
    return f"{standalone(m, value)}[{inside}]"
