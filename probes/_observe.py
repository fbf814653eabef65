"""Turn what JAX does (return or raise) into deterministic, JSON-ready records."""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

MAX_MESSAGE = 2000

_ADDRESS = re.compile(r"0x[0-9a-fA-F]{4,}")
#: ``<jax._src.pallas.core.NoBlockSpec object at 0x7f...>`` -> ``<NoBlockSpec object>``, and
#: ``<function f at 0x...>`` -> ``<function f>``: the address says nothing, the name does.
_DEFAULT_REPR = re.compile(r"<(?:[\w.]+\.)?(\w+( object)?|function [\w.<>]+) at 0x[0-9a-fA-F]{4,}>")
_SITE_PACKAGES = re.compile(r"(?:/[^\s'\"]+)?/(?:site|dist)-packages/")
_REPO = re.compile(
    re.escape(str(Path(__file__).resolve().parent.parent)) + r"/([\w/.]+\.py)(?::\d+)?"
)


def normalize(text: str) -> str:
    """Drop what changes from run to run or machine to machine: addresses, install paths."""
    text = _DEFAULT_REPR.sub(r"<\1>", text)
    text = _ADDRESS.sub("0x…", text)
    text = _REPO.sub(r"<repo>/\1", text)
    return _SITE_PACKAGES.sub("<site-packages>/", text)


def clip(text: str, limit: int = MAX_MESSAGE) -> str:
    return text if len(text) <= limit else text[:limit] + f"… [{len(text) - limit} more chars]"


TRACEBACK = "Traceback (most recent call last):"
_TRACEBACK_FRAME = re.compile(r'^\s+File "')


def strip_tracebacks(text: str) -> str:
    """Drop Python traceback frames that some errors embed (io_callback): they name our own code."""
    if TRACEBACK not in text:
        return text
    kept, in_frame = [], False
    for line in text.replace(TRACEBACK, "").splitlines():
        if _TRACEBACK_FRAME.match(line):
            in_frame = True
            continue
        if in_frame and line.startswith("    "):
            continue
        in_frame = False
        kept.append(line.rstrip())
    return "\n".join(kept)


def error_record(exc: BaseException) -> dict[str, str]:
    """Exception type (qualified when it is not a builtin) and normalized message."""
    cls = type(exc)
    name = cls.__name__ if cls.__module__ == "builtins" else f"{cls.__module__}.{cls.__qualname__}"
    return {"type": name, "message": clip(normalize(strip_tracebacks(str(exc))))}


def first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else ""


def observe(fn: Callable[[], Any], describe: Callable[[Any], Any] | None = None) -> dict[str, Any]:
    """Run ``fn``: ``{"outcome": "returned", "value": ...}`` or ``{"outcome": "raised", "error": ...}``."""
    try:
        value = fn()
    except Exception as exc:  # a probe records every failure; none is fatal
        return {"outcome": "raised", "error": error_record(exc)}
    record: dict[str, Any] = {"outcome": "returned"}
    if describe is not None:
        record["value"] = describe(value)
    return record


def py_repr(value: Any) -> str:
    """A stable ``repr``: normalized, clipped."""
    try:
        text = repr(value)
    except Exception as exc:
        text = f"<unrepresentable {type(value).__name__}: {type(exc).__name__}>"
    return clip(normalize(text), 300)


def python_version() -> str:
    return ".".join(map(str, sys.version_info[:3]))
