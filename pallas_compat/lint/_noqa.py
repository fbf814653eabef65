"""``# noqa: PAL101, PAL2`` comments, in flake8's and ruff's syntax: they silence the rules
named (a code prefix names a group) in the statement they are written in, on every line of
it: doctor and migrate read a comment on the first line of a multi-line call alike. Codes of other tools on the same comment
(``# noqa: E501, PAL101``) are theirs, and a bare ``# noqa`` is always another linter's: kernel
files carry them for other reasons (easydel's ``pl.pallas_call(  # noqa``), and a breakage
must not be hidden by a comment that never named it."""

from __future__ import annotations

import ast
import io
import re
import tokenize

NOQA = re.compile(r"#\s*noqa:\s*(?P<codes>[A-Za-z]+[0-9]*(?:[,\s]+[A-Za-z]+[0-9]*)*)", re.I)
CODE = re.compile(r"[A-Za-z]+[0-9]*")
#: Line -> the code prefixes its noqa comment names.
Silenced = dict[int, frozenset[str]]


def noqa_lines(data: bytes) -> Silenced:
    """Line number -> what its ``# noqa`` comment silences, for the lines that have one."""
    if b"noqa" not in data.lower():
        return {}
    found: Silenced = {}
    try:
        tokens = list(tokenize.tokenize(io.BytesIO(data).readline))
    except (tokenize.TokenError, SyntaxError):  # the parser has already said what is wrong
        return {}
    for token in tokens:
        if token.type != tokenize.COMMENT or not (match := NOQA.search(token.string)):
            continue
        line = token.start[0]
        named = frozenset(c.upper() for c in CODE.findall(match.group("codes")))
        found[line] = found.get(line, frozenset()) | named
    return found


def silenced(lines: Silenced, line: int, code: str) -> bool:
    """Does the ``# noqa:`` of ``line`` silence ``code``?"""
    return any(code.startswith(prefix) for prefix in lines.get(line, ()))


def by_statement(lines: Silenced, module: ast.Module) -> Silenced:
    """``lines`` with each comment's codes on every line of its statement (the innermost; the
    header of a ``def``, ``class``, ``if``, ... with its decorators)."""
    if not lines:
        return lines
    spans = [span for node in ast.walk(module) if (span := statement_span(node)) is not None]
    found: dict[int, frozenset[str]] = {}
    for line, codes in lines.items():
        around = [(first, last) for first, last in spans if first <= line <= last]
        first, last = min(around, key=lambda s: s[1] - s[0], default=(line, line))
        for covered in range(first, last + 1):
            found[covered] = found.get(covered, frozenset()) | codes
    return found


def statement_span(node: ast.AST) -> tuple[int, int] | None:
    if not isinstance(node, ast.stmt):
        return None
    start = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", ()))])
    body = getattr(node, "body", None)
    if isinstance(body, list) and body:
        return start, max(node.lineno, body[0].lineno - 1)
    return start, node.end_lineno or node.lineno
