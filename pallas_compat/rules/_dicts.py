"""What a literal dict holds: ``{"k": v}`` or ``dict(k=v)`` with keys written as plain
strings (implicit concatenation included: ``{"mos" "aic": ...}`` is the key ``mosaic``, as
Python reads it). Anything else (``**more``, a computed key) cannot be told from the source."""

from __future__ import annotations

import ast

__all__ = ["dict_entries", "string"]


def string(node: ast.AST) -> str | None:
    """The value of a string literal (``ast`` has joined an implicit concatenation)."""
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def dict_entries(node: ast.AST) -> list[tuple[str, ast.expr]] | None:
    """``{"k": v}`` or ``dict(k=v)`` with plain keys -> [(k, v)]; anything else -> None."""
    if isinstance(node, ast.Dict):
        entries = []
        for key, value in zip(node.keys, node.values, strict=True):
            text = string(key) if key is not None else None
            if text is None:
                return None
            entries.append((text, value))
        return entries
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "dict":
        if node.args or any(k.arg is None for k in node.keywords):
            return None
        return [(k.arg, k.value) for k in node.keywords if k.arg is not None]
    return None
