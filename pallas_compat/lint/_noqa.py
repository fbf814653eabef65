"""``# noqa: PAL101, PAL2`` comments, in flake8's and ruff's syntax: they silence the rules
named on their line (a code prefix names a group). Codes of other tools on the same comment
(``# noqa: E501, PAL101``) are theirs, and a bare ``# noqa`` is always another linter's: kernel
files carry them for other reasons (easydel's ``pl.pallas_call(  # noqa``), and a breakage
must not be hidden by a comment that never named it."""

from __future__ import annotations

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


def silenced_in(lines: Silenced, first: int, last: int, code: str) -> bool:
    """Does a ``# noqa:`` on any line from ``first`` to ``last`` silence ``code``? (A rewrite
    of a node that spans lines leaves it alone for any of them.)"""
    return any(first <= line <= last and silenced(lines, line, code) for line in lines)
