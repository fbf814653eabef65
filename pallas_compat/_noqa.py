"""``# noqa`` comments, as flake8 and ruff read them: ``# noqa`` alone silences every rule on
its line, ``# noqa: PAL101, PAL2`` the rules named (a code prefix names a group). Codes of
other tools on the same comment (``# noqa: E501, PAL101``) are theirs, and ignored here."""

from __future__ import annotations

import io
import re
import tokenize

NOQA = re.compile(r"#\s*noqa(?P<codes>:\s*[A-Za-z]+[0-9]*(?:[,\s]+[A-Za-z]+[0-9]*)*)?", re.I)
CODE = re.compile(r"[A-Za-z]+[0-9]*")
#: A line's value: None silences every rule; else the code prefixes it names.
Silenced = dict[int, frozenset[str] | None]


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
        codes = match.group("codes")
        line = token.start[0]
        if codes is None:
            found[line] = None
        elif found.get(line, frozenset()) is not None:
            named = frozenset(c.upper() for c in CODE.findall(codes[1:]))
            found[line] = (found.get(line) or frozenset()) | named
    return found


def silenced(lines: Silenced, line: int, code: str) -> bool:
    """Does the ``# noqa`` of ``line`` silence ``code``?"""
    if line not in lines:
        return False
    named = lines[line]
    return named is None or any(code.startswith(prefix) for prefix in named)
