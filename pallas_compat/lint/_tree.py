"""The Python sources that ``doctor`` and ``migrate`` read under the paths they are given.

Each real file is read once (a link and its target are one file; ``migrate`` rewrites the
target and keeps the link). What cannot be read is named and passed over, never fatal: links
that leave the given paths, symlink loops, broken links, notebooks, files that are not Python.
"""

from __future__ import annotations

import errno
import fnmatch
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from pallas_compat._not_project_code import not_project_code
from pallas_compat.lint._gitignore import Gitignores

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
    #: True where the OS refused to list or stat it: code under it went unchecked, so
    #: ``doctor`` and ``migrate`` exit 1 (a notebook or a link out of the paths is a choice).
    unread: bool = False

    def __str__(self) -> str:
        return f"{self.path}: skipped, {self.reason}"


@dataclass(frozen=True)
class Exclusions:
    """What a walk leaves out, as ruff does: folders that are never project code, the user's
    ``--extend-exclude`` patterns (file or folder names), and what ``.gitignore`` ignores."""

    extend: tuple[str, ...] = ()
    gitignore: bool = True


def _walk(folder: Path, skipped: list[Skipped], exclusions: Exclusions) -> list[Path]:
    """Every file under ``folder`` in a stable order, less what ``exclusions`` leave out (each
    folder left out is named once in ``skipped``); folder links are not followed. A folder the
    OS will not list is added too, as unread: never passed over in silence."""
    found: list[Path] = []
    ignores = Gitignores(folder) if exclusions.gitignore else None

    def refused(exc: OSError) -> None:
        where = Path(exc.filename) if exc.filename else folder
        skipped.append(Skipped(where, f"cannot read this folder ({exc.strerror})", unread=True))

    for top, dirs, files in os.walk(folder, onerror=refused):
        here = Path(top)
        if ignores is not None:
            ignores.enter(here)
        kept = []
        for name in sorted(dirs):
            why = _left_out(here / name, exclusions, ignores, folder=True, top=here == folder)
            if why is None:
                kept.append(name)
            else:
                skipped.append(Skipped(here / name, why))
        dirs[:] = kept
        for name in sorted(files):
            path = here / name
            why = _left_out(path, exclusions, ignores, folder=False, top=here == folder)
            if why is None:
                found.append(path)
            elif path.suffix in SOURCE_SUFFIXES:
                skipped.append(Skipped(path, why))
    return found


NOT_CODE = "not project code (environments, version control, caches, builds)"


def _left_out(
    path: Path, exclusions: Exclusions, ignores: Gitignores | None, *, folder: bool, top: bool
) -> str | None:
    """Why the walk leaves ``path`` out, or None (``top``: it is in the walked folder itself)."""
    if folder and not_project_code(path.name, top=top):
        return f"{NOT_CODE}; --extend-exclude adds more"
    if any(fnmatch.fnmatchcase(path.name, pattern) for pattern in exclusions.extend):
        return "matched by --extend-exclude"
    if ignores is not None and ignores.ignored(path, folder=folder):
        return "ignored by .gitignore (--no-respect-gitignore reads it)"
    return None


def _asked(question: Callable[[Path], bool], path: Path) -> bool:
    """``question(path)`` (``Path.exists``, ``Path.is_file``, ...), False where the OS will not
    say: a folder without search permission refuses to stat what is in it."""
    try:
        return question(path)
    except OSError:
        return False


def is_link(path: Path) -> bool:
    return _asked(Path.is_symlink, path)


def _real(path: Path) -> Path | str:
    """The file ``path`` is, or why it is none."""
    try:
        return path.resolve(strict=True)
    except RuntimeError:  # Python < 3.13 reports a loop this way
        return "a symlink loop"
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "a symlink loop"
        return "a broken link" if is_link(path) else f"cannot read it ({exc.strerror})"


def sources(
    paths: Sequence[str], exclusions: Exclusions | None = None
) -> tuple[list[Source], list[Skipped]]:
    """The sources under ``paths`` (each real file once, preferring a path that is no link)
    and what was passed over, with the reason. A file named itself is always read; folders
    are walked less ``exclusions``. Missing paths are the caller's check."""
    given = [Path(text) for text in paths]
    roots = [root for root in (_real(path) for path in given) if isinstance(root, Path)]
    candidates: list[Path] = []
    skipped: list[Skipped] = []
    for path in given:
        try:
            folder = path.is_dir()
        except OSError as exc:  # the OS will not say what it is: nothing under it was read
            skipped.append(Skipped(path, f"cannot read it ({exc.strerror})", unread=True))
            continue
        files = _walk(path, skipped, exclusions or Exclusions()) if folder else [path]
        candidates.extend(file for file in files if file.suffix in SOURCE_SUFFIXES)
        notebooks = sum(file.suffix == NOTEBOOK_SUFFIX for file in files)
        if notebooks:
            skipped.append(Skipped(path, f"{notebooks} notebook(s) (.ipynb): {NOTEBOOKS}"))
        if not folder and path.suffix not in (*SOURCE_SUFFIXES, NOTEBOOK_SUFFIX):
            skipped.append(Skipped(path, "not a Python source (.py or .pyi)"))
    chosen: dict[Path, Source] = {}
    for path in candidates:
        real = _real(path)
        if isinstance(real, str):
            skipped.append(Skipped(path, real, unread=real.startswith("cannot read")))
        elif not any(real == root or root in real.parents for root in roots):
            skipped.append(Skipped(path, "a link to outside the given paths"))
        elif not _asked(Path.is_file, real):
            skipped.append(Skipped(path, "not a regular file"))
        elif real not in chosen or (is_link(chosen[real].path) and not is_link(path)):
            chosen[real] = Source(path, real)
    order = {path: index for index, path in enumerate(candidates)}
    return sorted(chosen.values(), key=lambda source: order[source.path]), skipped
