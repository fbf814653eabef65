"""Reading the paths ``doctor`` and ``migrate`` are given: which files, their bytes, their
libcst module; what cannot be read is named on stderr, one line each, and passed over."""

from __future__ import annotations

import argparse
import ast
import io
import os
import sys
import tokenize
from collections.abc import Sequence
from typing import TYPE_CHECKING

from pallas_compat._usage import UsageError
from pallas_compat.lint._finder import may_use_pallas
from pallas_compat.lint._tree import Exclusions, Skipped, Source, sources

if TYPE_CHECKING:
    import libcst as cst


def python_sources(
    paths: Sequence[str], exclusions: Exclusions | None = None
) -> tuple[list[Source], list[Skipped]]:
    """The sources under ``paths``; what is passed over is named on stderr as it is found."""
    for text in paths:
        if os.path.lexists(text) and not os.path.exists(text):
            raise UsageError(f"{text}: a broken link or a symlink loop")
        if not os.path.exists(text):
            raise UsageError(f"{text}: no such file or directory")
    found, skipped = sources(paths, exclusions)
    for entry in skipped:
        print(entry, file=sys.stderr)
    return found, skipped


def exclusions_of(args: argparse.Namespace) -> Exclusions:
    """``--extend-exclude`` and ``--no-respect-gitignore`` as the walk takes them."""
    patterns = [p.strip() for value in args.extend_exclude or [] for p in value.split(",")]
    return Exclusions(tuple(p for p in patterns if p), not args.no_respect_gitignore)


def undecodable(data: bytes) -> str | None:
    """Why ``data`` is not text in the encoding its coding line (or PEP 3120) names."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        data.decode(encoding)
    except (SyntaxError, UnicodeDecodeError, LookupError) as exc:
        return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return None


def parse(source: Source) -> tuple[bytes, cst.Module | None] | None:
    """(bytes, module) for a file to check; module None when it cannot hold a drifted use.
    None (after one line on stderr) when it cannot be read, decoded or parsed."""
    import libcst as cst

    try:
        data = source.real.read_bytes()
    except OSError as exc:
        print(f"{source.path}: cannot read, left untouched ({exc.strerror})", file=sys.stderr)
        return None
    problem = undecodable(data)
    if problem is not None:
        print(f"{source.path}: cannot decode, left untouched ({problem})", file=sys.stderr)
        return None
    if not may_use_pallas(data):
        return data, None
    large = too_large(data)
    if large is not None:
        print(f"{source.path}: too large to check, left untouched ({large})", file=sys.stderr)
        return None
    beyond = beyond_python(data)
    if beyond is not None:
        print(f"{source.path}: cannot parse, left untouched ({beyond})", file=sys.stderr)
        return None
    try:
        return data, cst.parse_module(data)
    except (cst.ParserSyntaxError, ValueError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        print(f"{source.path}: cannot parse, left untouched ({first})", file=sys.stderr)
        return None


#: Past these, a file is left alone and named: libcst spends about 7 ms of CPU a line, and
#: minutes and a gigabyte on one megabyte-long line (generated code, not a kernel to check).
MAX_BYTES = 2 * 1024 * 1024
MAX_LINE = 100_000


def too_large(data: bytes) -> str | None:
    """Why ``data`` is too large to parse (over ``MAX_BYTES``, or a line over ``MAX_LINE``
    bytes); None otherwise."""
    if len(data) > MAX_BYTES:
        return f"{len(data) / 2**20:.1f} MB, over the {MAX_BYTES // 2**20} MB limit"
    longest = max(map(len, data.splitlines()), default=0)
    if longest > MAX_LINE:
        return f"a line of {longest:,} bytes, over the {MAX_LINE:,} limit"
    return None


def beyond_python(data: bytes) -> str | None:
    """Why CPython itself could not compile ``data`` for its nesting (``((((...))))`` past 200
    levels, an expression too deep for its stack), which libcst's parser would take; None
    otherwise. Other syntax is libcst's to judge (it reads newer grammar than this Python)."""
    try:
        ast.parse(data)
    except SyntaxError as exc:
        return exc.msg if "nested" in (exc.msg or "") else None
    except (RecursionError, MemoryError):
        return "nested too deeply for Python to compile"
    except ValueError:  # null bytes: libcst says so in its own words
        return None
    return None


def too_deep(source: Source, command: str) -> None:
    """One line for a file whose nesting exhausted the stack while ``command`` walked it."""
    print(
        f"{source.path}: {command} left it untouched (nested too deeply to walk)", file=sys.stderr
    )


def internal_error(source: Source, command: str, exc: Exception) -> None:
    """One line for a file ``command`` could not handle because of a bug in pallas-compat."""
    print(
        f"{source.path}: {command} failed on this file, left untouched (internal error "
        f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}; please report it)",
        file=sys.stderr,
    )
