"""The structure the report reads from snapshots and kernel results, checked on load.

A file of the right schema id but the wrong structure (hand-edited, truncated and repaired,
written by a broken probe) must be refused with one line naming where it breaks, not fail
later as a traceback inside the report. Only what the report reads is checked.
"""

from __future__ import annotations

from typing import Any

from common import CorpusStatus

#: A shape: a type; a tuple of allowed types; ``{key: shape}`` for an object whose keys are
#: optional when they end with "?"; ``{str: shape}`` for a mapping of any keys to one shape;
#: ``[shape]`` for a list of one shape; a frozenset for one of those strings.
Shape = Any

NAME_ENTRY = {
    "status?": str,
    "message?": (str, type(None)),
    "moved_to?": (str, type(None)),
    "signature?": ([dict], type(None)),
    "fields?": [dict],
}
MODULE = {"imports?": bool, "error?": dict, "deprecated?": str, "names?": {str: NAME_ENTRY}}
SNAPSHOT: Shape = {
    "schema": str,
    "environment": {
        "versions": {"jax": str},
        "undeclared_dependencies?": [str],
        "clean_venv_import_errors?": {str: object},
    },
    "modules": {str: MODULE},
    "features": {str: {"status?": str}},
    "behaviours": {str: object},
    "autodiff?": {"rules?": dict},
    "summary?": {"probe_titles?": {str: str}},
    "volatile?": dict,
}
KERNEL_RESULTS: Shape = {
    "schema": str,
    "jax": str,
    "results": [{"kernel": str, "mode": str, "status": str, "tolerance?": str}],
}


class ShapeError(Exception):
    """Where the value departs from the shape, e.g. ``modules['jax.experimental.pallas']``."""


def _type_name(shape: Shape) -> str:
    if isinstance(shape, tuple):
        return " or ".join(_type_name(s) for s in shape)
    if isinstance(shape, dict):
        return "an object"
    if isinstance(shape, list):
        return "a list"
    return {str: "a string", bool: "true/false", type(None): "null"}.get(shape, shape.__name__)


def check(value: Any, shape: Shape, where: str = "") -> None:
    """Raise ShapeError at the first place ``value`` does not have ``shape``."""
    if shape is object:
        return
    if isinstance(shape, frozenset):
        if value not in shape:
            raise ShapeError(f"{where} is {value!r}, not one of {', '.join(sorted(shape))}")
        return
    if isinstance(shape, tuple) and any(isinstance(s, (dict, list)) for s in shape):
        for alternative in shape:
            try:
                check(value, alternative, where)
            except ShapeError:
                continue
            return
        raise ShapeError(f"{where} is not {_type_name(shape)}")
    if isinstance(shape, dict):
        if not isinstance(value, dict):
            raise ShapeError(f"{where or 'the document'} is not an object")
        if set(shape) == {str}:
            for key, item in value.items():
                check(item, shape[str], f"{where}[{key!r}]")
            return
        for key, inner in shape.items():
            name = key.rstrip("?")
            if name in value:
                check(value[name], inner, f"{where}.{name}" if where else name)
            elif not key.endswith("?"):
                raise ShapeError(f"{where or 'the document'} has no {name!r}")
        return
    if isinstance(shape, list):
        if not isinstance(value, list):
            raise ShapeError(f"{where} is not a list")
        for index, item in enumerate(value):
            check(item, shape[0], f"{where}[{index}]")
        return
    if not isinstance(value, shape) or (shape is not bool and isinstance(value, bool)):
        raise ShapeError(f"{where} is not {_type_name(shape)}")


CORPUS_RESULTS: Shape = {
    "schema": str,
    "jax": str,
    "results": [
        {
            "from": str,
            "kernel": str,
            "route": frozenset({"native", "patch", "shim", "migrate"}),
            "status": frozenset(CorpusStatus),
            "detail?": str,
        }
    ],
}

THIRDPARTY_RESULTS: Shape = {
    "schema": str,
    "jax": str,
    "results": [
        {
            "library": str,
            "version": str,
            "from": str,
            "kernel": str,
            "route": frozenset({"native", "patch", "shim", "migrate"}),
            "status": frozenset(CorpusStatus),
            "detail?": str,
        }
    ],
}
