"""Turn what JAX does (return or raise) into deterministic, JSON-ready records."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from common import CallOutcome, clip, normalize, strip_tracebacks


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
        return {"outcome": CallOutcome.RAISED, "error": error_record(exc)}
    record: dict[str, Any] = {"outcome": CallOutcome.RETURNED}
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
    """``3.12``: the patch release moves from machine to machine and changes no fact probed."""
    return ".".join(map(str, sys.version_info[:2]))
