"""Small libcst rewrites the rules share: an expression safe outside its parentheses, a
subscript, a keyword argument, an argument dropped, and the ``# pallas-compat:`` notes that
``migrate`` leaves on a line it could not rewrite."""

from __future__ import annotations

from typing import TypeVar

import libcst as cst

MARKER = "# pallas-compat:"


def standalone(expr: cst.BaseExpression) -> cst.BaseExpression:
    """``expr`` safe outside the call parentheses it came from: a multi-line expression that
    relied on them for its line breaks gets parentheses of its own."""
    if "\n" not in cst.Module([]).code_for_node(expr) or expr.lpar:
        return expr
    return expr.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def subscript(value: cst.BaseExpression, index: cst.BaseExpression) -> cst.Subscript:
    """``value[index]``, spreading a tuple literal into ``value[a, b]`` (not one with a
    ``*starred`` part, which stays a tuple: ``value[(*a, b)]``)."""
    parts = [index]
    if (
        isinstance(index, cst.Tuple)
        and index.elements  # ``ref[()]`` stays: ``ref[]`` is no Python
        and not any(isinstance(e, cst.StarredElement) for e in index.elements)
    ):
        parts = [e.value for e in index.elements]
    return cst.Subscript(standalone(value), [cst.SubscriptElement(cst.Index(p)) for p in parts])


def keyword_arg(name: str, value: cst.BaseExpression) -> cst.Arg:
    tight = cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace(""))
    return cst.Arg(value, keyword=cst.Name(name), equal=tight)


def attr(dotted: str) -> cst.BaseExpression:
    return cst.parse_expression(dotted)


#: Expressions that bind tighter than ``*``: written after it as they are.
ATOMS = (cst.Name, cst.Integer, cst.Attribute, cst.Call, cst.Subscript)


def without_argument(call: cst.Call, arg: cst.Arg | None) -> cst.Call:
    """``call`` without ``arg``; a last argument's comma goes to the new last one."""
    args = [a for a in call.args if a is not arg]
    if args and arg is not None and call.args[-1] is arg:
        args[-1] = args[-1].with_changes(comma=arg.comma)
    return call.with_changes(args=args)


def with_argument(call: cst.Call, arg: cst.Arg) -> cst.Call:
    """``call`` with ``arg`` last; the one before gets a comma where it had none."""
    args = list(call.args)
    if args and args[-1].comma is cst.MaybeSentinel.DEFAULT:
        args[-1] = args[-1].with_changes(
            comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
        )
    return call.with_changes(args=[*args, arg])


def noted(whitespace: cst.TrailingWhitespace, notes: list[str]) -> cst.TrailingWhitespace:
    """The line's end with the notes as one comment (after the author's, never twice)."""
    comment = whitespace.comment
    if not notes or (comment and MARKER in comment.value):
        return whitespace
    text = f"{MARKER} {'; '.join(dict.fromkeys(notes))}"
    if comment is not None:  # the author's comment stays; the note follows it
        text = f"{comment.value}  {text}"
    return whitespace.with_changes(whitespace=cst.SimpleWhitespace("  "), comment=cst.Comment(text))


Compound = TypeVar("Compound", cst.FunctionDef, cst.ClassDef, cst.If, cst.For, cst.While, cst.With)


def with_header_notes(node: Compound, notes: list[str]) -> Compound:
    """Notes raised in a compound statement's header go on the line that ends with ``:``."""
    body = node.body
    if not notes:
        return node
    if isinstance(body, cst.IndentedBlock):
        return node.with_changes(body=body.with_changes(header=noted(body.header, notes)))
    if isinstance(body, cst.SimpleStatementSuite):  # def f(): return ... on one line
        whitespace = noted(body.trailing_whitespace, notes)
        return node.with_changes(body=body.with_changes(trailing_whitespace=whitespace))
    return node


def one_per_line(
    original: cst.SimpleStatementLine, updated: cst.SimpleStatementLine
) -> cst.SimpleStatementLine | cst.FlattenSentinel[cst.SimpleStatementLine]:
    """A statement a rewrite made into several (an import split in two, a swap into its read
    and its write) as several lines: the first keeps the lines above, the last the comment."""
    if len(updated.body) == len(original.body) or len(original.body) != 1:
        return updated
    last = len(updated.body) - 1
    lines = [
        cst.SimpleStatementLine(
            [statement.with_changes(semicolon=cst.MaybeSentinel.DEFAULT)],
            leading_lines=updated.leading_lines if i == 0 else (),
            trailing_whitespace=(
                updated.trailing_whitespace if i == last else cst.TrailingWhitespace()
            ),
        )
        for i, statement in enumerate(updated.body)
    ]
    return cst.FlattenSentinel(lines)
