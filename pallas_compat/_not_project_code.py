"""Folders that are never a project's own code: version control, environments, caches and
build output. ``doctor`` and ``migrate`` do not read them (a ``.venv`` holds JAX's own
sources: 3,497 files in a small project), and ``matrix`` does not copy them. Build output
(``build``, ``dist``) is that only at the top of the project: deeper, a folder of that name
is a package's own code (``mypkg/build/``)."""

from __future__ import annotations

import fnmatch

__all__ = ["NOT_PROJECT_CODE", "TOP_LEVEL_ONLY", "not_project_code"]

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


#: Of those, the names that are build output only at the project's top.
TOP_LEVEL_ONLY: tuple[str, ...] = ("build", "dist")


def not_project_code(name: str, extra: tuple[str, ...] = (), *, top: bool = True) -> bool:
    """Is a folder of this name, at the project's top (``top``) or deeper, one of those (or
    matched by one of ``extra``'s patterns)?"""
    patterns = (*NOT_PROJECT_CODE, *extra)
    if not top:
        patterns = tuple(p for p in patterns if p not in TOP_LEVEL_ONLY)
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in patterns)
