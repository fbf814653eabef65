"""The Python sources that ``doctor`` and ``migrate`` read under the paths they are given.

Each real file is read once (a link and its target are one file; ``migrate`` rewrites the
target and keeps the link). What cannot be read is named and passed over, never fatal: links
that leave the given paths, symlink loops, broken links, notebooks, files that are not Python.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

#: Read as Python source: modules and stubs.
SOURCE_SUFFIXES = (".py", ".pyi")
NOTEBOOK_SUFFIX = ".ipynb"
NOTEBOOKS = (
    "not read; doctor and migrate read .py and .pyi files "
    "(`jupyter nbconvert --to script` exports a notebook's code)"
)


@dataclass(frozen=True)
class Source:
    """One file to read: ``path`` as the user named it, ``real`` the file it is."""

    path: Path
    real: Path

    @property
    def display(self) -> str:
        """The path for diff headers: ``a/<display>`` must not read ``a//abs/path``."""
        return str(self.path).lstrip("/")


@dataclass(frozen=True)
class Skipped:
    path: Path
    reason: str

    def __str__(self) -> str:
        return f"{self.path}: skipped, {self.reason}"


def _walk(folder: Path) -> list[Path]:
    """Every file under ``folder`` in a stable order; folder links are not followed."""
    found: list[Path] = []
    for top, dirs, files in os.walk(folder):
        dirs.sort()
        found.extend(Path(top) / name for name in sorted(files))
    return found


def _real(path: Path) -> Path | str:
    """The file ``path`` is, or why it is none."""
    try:
        return path.resolve(strict=True)
    except RuntimeError:  # Python < 3.13 reports a loop this way
        return "a symlink loop"
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "a symlink loop"
        return "a broken link" if path.is_symlink() else f"cannot read it ({exc.strerror})"


def sources(paths: Sequence[str]) -> tuple[list[Source], list[Skipped]]:
    """The sources under ``paths`` (each real file once, preferring a path that is no link)
    and what was passed over, with the reason. Missing paths are the caller's check."""
    given = [Path(text) for text in paths]
    roots = [root for root in (_real(path) for path in given) if isinstance(root, Path)]
    candidates: list[Path] = []
    skipped: list[Skipped] = []
    for path in given:
        files = _walk(path) if path.is_dir() else [path]
        candidates.extend(file for file in files if file.suffix in SOURCE_SUFFIXES)
        notebooks = sum(file.suffix == NOTEBOOK_SUFFIX for file in files)
        if notebooks:
            skipped.append(Skipped(path, f"{notebooks} notebook(s) (.ipynb): {NOTEBOOKS}"))
        if not path.is_dir() and path.suffix not in (*SOURCE_SUFFIXES, NOTEBOOK_SUFFIX):
            skipped.append(Skipped(path, "not a Python source (.py or .pyi)"))
    chosen: dict[Path, Source] = {}
    for path in candidates:
        real = _real(path)
        if isinstance(real, str):
            skipped.append(Skipped(path, real))
        elif not any(real == root or root in real.parents for root in roots):
            skipped.append(Skipped(path, "a link to outside the given paths"))
        elif not real.is_file():
            skipped.append(Skipped(path, "not a regular file"))
        elif real not in chosen or (chosen[real].path.is_symlink() and not path.is_symlink()):
            chosen[real] = Source(path, real)
    order = {path: index for index, path in enumerate(candidates)}
    return sorted(chosen.values(), key=lambda source: order[source.path]), skipped
