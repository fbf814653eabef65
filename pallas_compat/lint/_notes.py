"""Where ``migrate``'s notes go: a ``# pallas-compat:`` comment at the end of the line that
ends the statement the note is about, or, for a node in the header of a ``def``, ``class``,
``if``, ``for``, ``while`` or ``with`` (its decorators, signature, test), at the end of the
header's ``:`` line. An author's comment on that line stays, and the note follows it; a line
that has a note already gets none again. A node in no such statement (the ``except`` clause
of a module-level ``try``) gets no note: there is no line to own it.
"""

from __future__ import annotations

import ast
import io
import tokenize
from collections.abc import Iterator

from pallas_compat.rules._edits import Edits, Text

MARKER = "# pallas-compat:"

#: Compound statements whose header owns the notes of the nodes in it.
HEADED = (
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
    ast.If,
    ast.For,
    ast.AsyncFor,
    ast.While,
    ast.With,
    ast.AsyncWith,
)
#: The fields that hold statements: a statement with none is a simple one.
BODIES = ("body", "orelse", "finalbody", "handlers", "cases")


class Lines:
    """For each node of a module, the line its notes go on (None: nowhere)."""

    def __init__(self, module: ast.Module, text: Text) -> None:
        self.text = text
        self.owner: dict[int, int | None] = {}
        for statement in module.body:
            self.walk(statement, None)

    def walk(self, node: ast.AST, line: int | None) -> None:
        """``line``: where the notes of the statement around ``node`` go."""
        if isinstance(node, HEADED):
            line = self.text.header_line(node)
        elif isinstance(node, ast.stmt) and not any(hasattr(node, f) for f in BODIES):
            line = node.end_lineno  # a simple statement: the line it ends on
        self.owner[id(node)] = line
        for child in ast.iter_child_nodes(node):
            self.walk(child, line)

    def line_of(self, node: ast.AST) -> int | None:
        return self.owner.get(id(node))


def tokens(text: str) -> Iterator[tokenize.TokenInfo]:
    try:
        yield from tokenize.generate_tokens(io.StringIO(text).readline)
    except (tokenize.TokenError, SyntaxError):
        return


def comments(text: str) -> dict[int, tuple[int, str]]:
    """Line -> (the character column where its comment starts, the comment)."""
    return {
        token.start[0]: (token.start[1], token.string)
        for token in tokens(text)
        if token.type == tokenize.COMMENT
    }


def write_notes(edits: Edits, notes: dict[int, list[str]]) -> None:
    """Each line's notes as one comment at its end, after the author's comment there."""
    if not notes:
        return
    text = edits.source
    found = comments(text.text)
    for line, said in sorted(notes.items()):
        if not said:
            continue
        start = text.starts[line - 1]
        end = text.line_end(line)
        comment = found.get(line)
        if comment is not None and MARKER in comment[1]:
            continue
        code_end = start + comment[0] if comment else end
        body = text.text[start:code_end].rstrip()
        note = f"{MARKER} {'; '.join(dict.fromkeys(said))}"
        if comment is not None:
            note = f"{comment[1]}  {note}"
        edits.replace(start + len(body), end, f"  {note}")
