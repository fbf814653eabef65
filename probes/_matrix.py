"""The JAX release matrix (``jax-matrix.json``): which releases nox runs, and with which Python."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

#: Interpreters nox may use, in order of preference (one 3.12 covers 0.4.30 to 0.12).
PYTHONS = ("3.12", "3.13", "3.11", "3.10")


class MatrixError(Exception):
    """A bad matrix file: one line naming the file."""


@dataclass(frozen=True)
class Matrix:
    path: Path
    default: tuple[str, ...]
    requires_python: dict[str, str | None]

    @property
    def every(self) -> tuple[str, ...]:
        return tuple(self.requires_python)

    def python_for(self, release: str) -> str:
        """The first preferred interpreter that the release's Requires-Python allows."""
        spec = SpecifierSet(self.requires_python.get(release) or "")
        return next((p for p in PYTHONS if Version(p) in spec), PYTHONS[0])


def load_matrix(path: Path) -> Matrix:
    try:
        data = json.loads(path.read_text())
    except OSError as exc:
        raise MatrixError(f"{path}: cannot read ({exc.strerror})") from None
    except json.JSONDecodeError as exc:
        raise MatrixError(f"{path}: not valid JSON (line {exc.lineno}: {exc.msg})") from None
    try:
        every = {entry["jax"]: entry.get("requires_python") for entry in data["every"]}
        default = tuple(data["default"])
    except (KeyError, TypeError):
        raise MatrixError(f"{path}: needs 'default' and 'every' lists") from None
    for release in (*every, *default):
        try:
            Version(release)
        except InvalidVersion:
            raise MatrixError(f"{path}: {release!r} is not a release number") from None
    for release, spec in every.items():
        try:
            SpecifierSet(spec or "")
        except InvalidSpecifier:
            raise MatrixError(f"{path}: JAX {release} has a bad requires_python {spec!r}") from None
    unknown = [r for r in default if r not in every]
    if unknown:
        raise MatrixError(
            f"{path}: unknown JAX release {unknown[0]} in 'default' (not in 'every'); "
            "refresh with `nox -s refresh_matrix`"
        )
    return Matrix(path, default, every)
