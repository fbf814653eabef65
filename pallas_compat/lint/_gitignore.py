"""What git ignores under a walked folder, decided as git decides it: the deepest
``.gitignore`` with a pattern that matches wins (so a deeper ``!keep.py`` re-includes what a
parent ignores), then the repository's ``info/exclude``, then the user's ``core.excludesFile``;
within one file, the last matching pattern wins."""

from __future__ import annotations

import os
from pathlib import Path

import pathspec


def _asked_exists(path: Path) -> bool:
    try:
        return path.exists()
    except OSError:  # a folder without search permission will not say
        return False


def has_git(folder: Path) -> bool:
    return _asked_exists(folder / ".git")


def _read_spec(path: Path) -> pathspec.GitIgnoreSpec | None:
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    return pathspec.GitIgnoreSpec.from_lines(lines)


def git_dir(root: Path) -> Path | None:
    """The repository's common git folder: ``.git``, or where a worktree's ``.git`` file
    points (its ``commondir``, for ``info/exclude`` and ``config``)."""
    dot_git = root / ".git"
    if dot_git.is_dir():
        return dot_git
    try:
        text = dot_git.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    if not text.startswith("gitdir:"):
        return None
    found = (root / text.removeprefix("gitdir:").strip()).resolve()
    try:
        common = (found / "commondir").read_text(encoding="utf-8").strip()
    except OSError:
        return found
    return (found / common).resolve()


def excludes_file(config_files: list[Path]) -> Path:
    """``core.excludesFile`` of the first config that sets it (repository, then user), else
    git's default ``$XDG_CONFIG_HOME/git/ignore``."""
    for config in config_files:
        value = _core_excludes(config)
        if value is not None:
            return Path(os.path.expanduser(value))
    xdg = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(xdg) / "git" / "ignore"


def _core_excludes(config: Path) -> str | None:
    """The ``excludesFile`` key of the ``[core]`` section (git's keys ignore case)."""
    try:
        lines = config.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    section, value = "", None
    for raw in lines:
        line = raw.strip()
        if line.startswith("["):
            section = line.strip("[]").strip().lower()
        elif section == "core" and "=" in line:
            key, _, text = line.partition("=")
            if key.strip().lower() == "excludesfile":
                value = text.strip().strip('"')
    return value


def user_configs() -> list[Path]:
    xdg = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return [Path(xdg) / "git" / "config", Path(os.path.expanduser("~")) / ".gitconfig"]


class Gitignores:
    """The ignore rules that apply under a walked folder: the ``.gitignore`` files of the folder
    and every folder above it up to the repository's root (the first with ``.git``), each one
    the walk enters, and the repository-wide files. Outside a repository, the walked folder's
    own ``.gitignore`` only."""

    def __init__(self, root: Path) -> None:
        self.specs: dict[Path, pathspec.GitIgnoreSpec] = {}
        self.repository_wide: list[pathspec.GitIgnoreSpec] = []
        start = root.absolute()
        chain = [start]
        while not has_git(chain[-1]) and chain[-1].parent != chain[-1]:
            chain.append(chain[-1].parent)
        self.top = chain[-1] if has_git(chain[-1]) else start
        if self.top == start and not has_git(start):
            chain = [start]
        else:
            self._read_repository_wide()
        for folder in reversed(chain):
            self.enter(folder)

    def _read_repository_wide(self) -> None:
        common = git_dir(self.top)
        configs = [common / "config"] if common is not None else []
        files = [common / "info" / "exclude"] if common is not None else []
        files.append(excludes_file([*configs, *user_configs()]))
        for path in files:
            spec = _read_spec(path)
            if spec is not None:
                self.repository_wide.append(spec)

    def enter(self, folder: Path) -> None:
        where = folder.absolute()
        if where in self.specs:
            return
        spec = _read_spec(where / ".gitignore")
        if spec is not None:
            self.specs[where] = spec

    def ignored(self, path: Path, *, folder: bool) -> bool:
        full = path.absolute()
        suffix = "/" if folder else ""
        bases = sorted(
            (base for base in self.specs if base != full and base in full.parents),
            key=lambda base: len(base.parts),
            reverse=True,  # the deepest file first: its verdict wins
        )
        for base in bases:
            verdict = self.specs[base].check_file(full.relative_to(base).as_posix() + suffix)
            if verdict.include is not None:
                return verdict.include
        if self.top in full.parents:
            relative = full.relative_to(self.top).as_posix() + suffix
            for spec in self.repository_wide:
                verdict = spec.check_file(relative)
                if verdict.include is not None:
                    return verdict.include
        return False
