"""Text edits on a file's source, ruff's model of a fix: each replaces a range of the text the
``ast`` reading located, nothing outside the ranges moves, and they are applied together.

``ast`` counts columns in UTF-8 bytes; the edits count characters of the text
(``Text.offset``). A rule's fix that copies source into its replacement copies it with the
edits already made inside it (``Edits.current``): fixes run from the innermost node out, so
an outer rewrite carries the inner ones, and its edit takes their place. Two edits that
overlap without one holding the other are a bug of the rules: the second is refused.
"""

from __future__ import annotations

import ast
import bisect
import functools
import io
import tokenize
from dataclasses import dataclass


class Text:
    """A file's text, and where ``ast`` positions fall in it."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0]
        for line in text.splitlines(keepends=True):
            self.starts.append(self.starts[-1] + len(line))
        self.ascii = text.isascii()

    def offset(self, line: int, column: int) -> int:
        """The character offset of ``ast``'s (line from 1, column in UTF-8 bytes)."""
        start = self.starts[line - 1]
        if self.ascii:
            return start + column
        end = self.starts[line] if line < len(self.starts) else len(self.text)
        return start + len(self.text[start:end].encode()[:column].decode(errors="replace"))

    def start(self, node: ast.AST) -> int:
        """Where a node starts (a module: at the start of the text)."""
        if isinstance(node, ast.Module):
            return 0
        return self.offset(node.lineno, node.col_offset)  # type: ignore[attr-defined]

    def end(self, node: ast.AST) -> int:
        if isinstance(node, ast.Module):
            return len(self.text)
        return self.offset(node.end_lineno, node.end_col_offset)  # type: ignore[attr-defined]

    def span(self, node: ast.AST) -> tuple[int, int]:
        return self.start(node), self.end(node)

    def segment(self, node: ast.AST) -> str:
        start, end = self.span(node)
        return self.text[start:end]

    def line_of(self, offset: int) -> int:
        """The line (from 1) holding ``offset``."""
        return bisect.bisect_right(self.starts, offset)

    @functools.cached_property
    def colons(self) -> list[tuple[int, int]]:
        """(line, column in characters) of every ``:`` operator token, in order."""
        found = []
        try:
            for token in tokenize.generate_tokens(io.StringIO(self.text).readline):
                if token.type == tokenize.OP and token.string == ":":
                    found.append(token.start)
        except (tokenize.TokenError, SyntaxError):
            pass
        return found

    @functools.cached_property
    def indent(self) -> str:
        """The file's unit of indentation: its first indented block's (four spaces where it
        has none); code a fix writes in whole is indented with it."""
        try:
            for token in tokenize.generate_tokens(io.StringIO(self.text).readline):
                if token.type == tokenize.INDENT:
                    return token.string
        except (tokenize.TokenError, SyntaxError):
            pass
        return "    "

    def header_line(self, node: ast.AST) -> int:
        """The line of the ``:`` that ends a compound statement's header: the last ``:``
        before its body."""
        first = node.body[0]  # type: ignore[attr-defined]
        start = self.offset(node.lineno, node.col_offset)  # type: ignore[attr-defined]
        before = self.start(first)
        found = [
            line for line, column in self.colons if start <= self.starts[line - 1] + column < before
        ]
        return found[-1] if found else node.lineno  # type: ignore[attr-defined]

    def line_end(self, line: int) -> int:
        """The offset of the end of ``line``'s text, before its line break."""
        start = self.starts[line - 1]
        end = self.starts[line] if line < len(self.starts) else len(self.text)
        body = self.text[start:end]
        return start + len(body.rstrip("\r\n"))


@dataclass(frozen=True)
class Edit:
    """``text`` in place of the source's ``[start, end)`` (an insertion where they meet)."""

    start: int
    end: int
    text: str

    def inside(self, start: int, end: int) -> bool:
        """Part of ``[start, end)``: an insertion strictly inside it, a replacement within it."""
        if self.start == self.end:
            return start < self.start < end
        return start <= self.start and self.end <= end


class EditConflict(ValueError):
    """Two edits overlap without one holding the other."""


class Edits:
    """The edits made to one text, in the order made."""

    def __init__(self, text: Text) -> None:
        self.source = text
        self.made: list[Edit] = []

    def replace(self, start: int, end: int, new: str, *, leading: bool = False) -> None:
        """``new`` in place of ``[start, end)``: the edits inside it are taken into it (their
        text was read with ``current`` to make ``new``, with ``leading`` as there)."""
        kept = []
        for edit in self.made:
            if edit.inside(start, end) or (leading and edit.start == edit.end == start):
                continue  # taken into the new text
            disjoint = edit.end <= start or end <= edit.start
            if not disjoint:
                raise EditConflict(f"[{start}, {end}) overlaps [{edit.start}, {edit.end})")
            kept.append(edit)
        self.made = [*kept, Edit(start, end, new)]

    def insert(self, at: int, new: str, *, first: bool = False) -> None:
        """``new`` at ``at``, after what was inserted there before (``first``: before it, as
        the imports a file gains go before code a fix writes after its imports)."""
        for edit in self.made:
            if edit.start < at < edit.end:
                raise EditConflict(f"{at} is inside [{edit.start}, {edit.end})")
        if first:
            self.made.insert(0, Edit(at, at, new))
        else:
            self.made.append(Edit(at, at, new))

    def current(self, start: int, end: int, *, leading: bool = False) -> str:
        """The source's ``[start, end)`` with the edits made inside it; ``leading``: with what
        was inserted at ``start`` too (a keyword written before a positional argument)."""
        inner = [
            e for e in self.made if e.inside(start, end) or (leading and e.start == e.end == start)
        ]
        return apply(self.source.text[start:end], inner, start)

    def node(self, node: ast.AST, *, leading: bool = False) -> str:
        """``current`` of a node's range."""
        return self.current(*self.source.span(node), leading=leading)

    def result(self) -> str:
        return apply(self.source.text, self.made, 0)


def apply(text: str, edits: list[Edit], base: int) -> str:
    """``text`` (which starts at offset ``base``) with ``edits`` made; insertions at one place
    in the order they were made."""
    ordered = sorted(enumerate(edits), key=lambda pair: (pair[1].start, pair[1].end, pair[0]))
    parts: list[str] = []
    at = base
    for _, edit in ordered:
        if edit.start < at:  # inside an edit already applied: taken into it
            continue
        parts.append(text[at - base : edit.start - base])
        parts.append(edit.text)
        at = edit.end
    parts.append(text[at - base :])
    return "".join(parts)
