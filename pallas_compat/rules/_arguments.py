"""A call's arguments as they are written: where each one is, and the comma and space that
follow it, for fixes that drop, move or add an argument (``ast`` keeps no commas).

An argument's *slot* runs from its start to the start of the next argument, or, for the last
one, to the call's closing parenthesis: its comma, the space after it and any comment on its
line. Dropping an argument drops its slot (the last one's comma goes to the new last one, so
that no ``x, )`` is left where there was none).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from pallas_compat.rules._context import FixContext
from pallas_compat.rules._edits import Edits, Text


@dataclass(frozen=True)
class Argument:
    """One argument: a positional value, ``*args``, ``name=value`` or ``**kwargs``."""

    node: ast.expr | ast.keyword
    #: The keyword, None for a positional argument (and ``**kwargs``'s is None too).
    keyword: str | None
    #: Where the argument starts and ends, and where its slot ends.
    start: int
    end: int
    slot_end: int

    @property
    def value(self) -> ast.expr:
        return self.node.value if isinstance(self.node, ast.keyword) else self.node

    @property
    def starred(self) -> bool:
        return isinstance(self.node, ast.Starred) or (
            isinstance(self.node, ast.keyword) and self.node.arg is None
        )


def arguments(call: ast.Call, text: Text) -> list[Argument]:
    """The call's arguments in source order."""
    nodes: list[ast.expr | ast.keyword] = sorted(
        [*call.args, *call.keywords], key=lambda n: (n.lineno, n.col_offset)
    )
    spans = [text.span(n) for n in nodes]
    close = text.end(call) - 1  # the ``)``
    found = []
    for i, (node, (start, end)) in enumerate(zip(nodes, spans, strict=True)):
        slot_end = spans[i + 1][0] if i + 1 < len(spans) else close
        keyword = node.arg if isinstance(node, ast.keyword) else None
        found.append(Argument(node, keyword, start, end, slot_end))
    return found


def separator(argument: Argument, text: Text) -> str:
    """What follows the argument in its slot (``", "``, ``",\\n    "``, or nothing)."""
    return text.text[argument.end : argument.slot_end]


def has_comma(argument: Argument, text: Text) -> bool:
    return "," in separator(argument, text).split("#")[0]


def drop(edits: Edits, call: ast.Call, argument: Argument) -> None:
    """Drop ``argument`` from ``call``: its slot goes; where it was the last, the comma it
    lacked goes from the one before (its slot keeps what followed the dropped one)."""
    text = edits.source
    found = arguments(call, text)
    index = next(i for i, a in enumerate(found) if a.node is argument.node)
    if index + 1 < len(found) or index == 0:
        edits.replace(argument.start, argument.slot_end, "")
        return
    before = found[index - 1]
    kept = text.text[argument.end : argument.slot_end]  # the dropped one's comma, if any
    edits.replace(before.end, argument.slot_end, kept)


def after_last(argument: Argument, text: Text, written: str) -> tuple[int, str]:
    """Where to insert, and what, so that ``written`` follows ``argument``, the call's last, in
    the call's own layout: after ``", "`` where it has no trailing comma; where it has one and
    the arguments stand one a line, on a line of its own after it, indented alike."""
    gap = separator(argument, text)
    if not has_comma(argument, text):
        return argument.end, f", {written}"
    newline = gap.find("\n")
    if newline < 0:
        return argument.slot_end, written
    line_start = text.text.rfind("\n", 0, argument.start) + 1
    line = text.text[line_start : argument.start]
    indent = line if not line.strip() else line[: len(line) - len(line.lstrip())] + "    "
    return argument.end + newline + 1, f"{indent}{written},\n"


def with_argument(m: FixContext, call: ast.Call, written: str) -> None:
    """``written`` as the call's last argument, in the call's layout (``after_last``)."""
    text = m.edits.source
    found = arguments(call, text)
    if not found:
        m.edits.insert(text.end(call) - 1, written)
    else:
        m.edits.insert(*after_last(found[-1], text, written))
