"""Reading the paths ``doctor`` and ``migrate`` are given: which files, their bytes, their
parsed module; what cannot be read is named on stderr, one line each, and passed over."""

from __future__ import annotations

import io
import os
import sys
import tokenize
from collections.abc import Sequence

from pallas_compat._usage import UsageError
from pallas_compat.lint._tree import Exclusions, Skipped, Source, sources

#: The grammar files are read in: this interpreter's (a newer one's syntax cannot be read).
PYTHON = ".".join(map(str, sys.version_info[:2]))


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


def undecodable(data: bytes) -> str | None:
    """Why ``data`` is not text in the encoding its coding line (or PEP 3120) names."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        data.decode(encoding)
    except (SyntaxError, UnicodeDecodeError, LookupError) as exc:
        return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return None


def read(source: Source) -> tuple[bytes | None, str]:
    """(bytes, "") of a file to check; (None, why) where it cannot be read or decoded."""
    try:
        data = source.real.read_bytes()
    except OSError as exc:
        return None, f"{source.path}: cannot read, left untouched ({exc.strerror})"
    problem = undecodable(data)
    if problem is not None:
        return None, f"{source.path}: cannot decode, left untouched ({problem})"
    return data, ""


def why_not_parsed(exc: BaseException) -> str:
    """One line for a file CPython's parser refused: its message and where."""
    if isinstance(exc, (RecursionError, MemoryError)):
        return "nested too deeply for Python to compile"
    if isinstance(exc, SyntaxError):
        if "nested" in (exc.msg or ""):
            return exc.msg
        where = f", line {exc.lineno}" if exc.lineno else ""
        return f"{exc.msg}{where}; read as Python {PYTHON}"
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


#: Past these, a file is left alone and named: generated code, not a kernel to check.
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


def too_deep(path: object, command: str) -> str:
    """The line for a file whose nesting exhausted the stack while ``command`` walked it."""
    return f"{path}: {command} left it untouched (nested too deeply to walk)"


def internal_error(path: object, command: str, exc: Exception) -> str:
    """The line for a file ``command`` could not handle because of a bug in pallas-compat."""
    text = str(exc).splitlines()[0] if str(exc) else ""
    return (
        f"{path}: {command} failed on this file, left untouched (internal error "
        f"{type(exc).__name__}: {text}; please report it)"
    )
