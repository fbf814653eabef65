"""Folders that are never a project's own code: version control, environments, caches and
build output. ``doctor`` and ``migrate`` do not read them (a ``.venv`` holds JAX's own
sources: 3,497 files in a small project), and ``matrix`` does not copy them."""

from __future__ import annotations

import fnmatch

__all__ = ["NOT_PROJECT_CODE", "not_project_code"]

NOT_PROJECT_CODE: tuple[str, ...] = (
    ".git",
    ".hg",
    ".svn",
    ".venv",
    "venv",
    ".nox",
    ".tox",
    "__pycache__",
    ".pytest_cache",
    ".mypy_cache",
    ".ruff_cache",
    "build",
    "dist",
    "*.egg-info",
    "node_modules",
    "site-packages",
)


def not_project_code(name: str, extra: tuple[str, ...] = ()) -> bool:
    """Is a folder of this name one of those (or matched by one of ``extra``'s patterns)?"""
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in (*NOT_PROJECT_CODE, *extra))
