"""pallas_compat.lint._gitignore: what doctor and migrate leave out is what git ignores. The
expectations are written out from git's documentation and, where git is installed, asked of
``git check-ignore`` itself."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from pallas_compat.lint._gitignore import Gitignores

#: path -> ignored?, by git's rules for the tree ``repository`` builds.
EXPECTED = {
    "src/kernel.py": False,
    "src/api_pb2.py": True,  # the root's *_pb2.py
    "src/keep_pb2.py": False,  # the root's own !keep_pb2.py
    "src/gen/a_pb2.py": False,  # src/gen/.gitignore's !a_pb2.py: the deeper file wins
    "src/gen/b_pb2.py": True,
    "src/gen/local.py": True,  # src/gen/.gitignore: local.py
    "notes/scratch.py": True,  # .git/info/exclude: scratch.py
    "notes/todo.py": True,  # core.excludesFile: todo.py
    "notes/keep.py": False,
    "lib/todo.py": False,  # lib/.gitignore's !todo.py outranks core.excludesFile
}


@pytest.fixture
def repository(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    (home / ".config" / "git").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))  # the user's own git settings stay out of it
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    root = tmp_path / "repo"
    (root / ".git" / "info").mkdir(parents=True)
    (root / ".git" / "info" / "exclude").write_text("scratch.py\n")
    excludes = tmp_path / "global-ignore"
    excludes.write_text("todo.py\n")
    (root / ".git" / "config").write_text(f'[core]\n\texcludesFile = "{excludes}"\n')
    (root / ".gitignore").write_text("*_pb2.py\n!keep_pb2.py\n")
    for folder, lines in (("src/gen", "!a_pb2.py\nlocal.py\n"), ("lib", "!todo.py\n")):
        (root / folder).mkdir(parents=True)
        (root / folder / ".gitignore").write_text(lines)
    for path in EXPECTED:
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text("")
    return root


def verdicts(root: Path) -> dict[str, bool]:
    ignores = Gitignores(root)
    for folder in ("src", "src/gen", "notes", "lib"):
        ignores.enter(root / folder)
    return {path: ignores.ignored(root / path, folder=False) for path in EXPECTED}


def test_git_precedence_deeper_files_then_info_exclude_then_core_excludes_file(
    repository: Path,
) -> None:
    assert verdicts(repository) == EXPECTED


@pytest.mark.skipif(
    shutil.which("git") is None, reason="git is not installed: the table above holds"
)
def test_git_itself_agrees(repository: Path) -> None:
    subprocess.run(["git", "init", "-q", str(repository)], check=True, capture_output=True)
    (repository / ".git" / "info" / "exclude").write_text("scratch.py\n")  # init may rewrite it
    done = subprocess.run(
        ["git", "-C", str(repository), "check-ignore", "--no-index", *EXPECTED],
        capture_output=True,
        text=True,
    )
    ignored_by_git = set(done.stdout.split())
    assert {path: path in ignored_by_git for path in EXPECTED} == EXPECTED


def test_a_worktree_reads_the_common_info_exclude(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / ".config"))
    common = tmp_path / "main" / ".git"
    (common / "info").mkdir(parents=True)
    (common / "info" / "exclude").write_text("scratch.py\n")
    linked = common / "worktrees" / "wt"
    linked.mkdir(parents=True)
    (linked / "commondir").write_text("../..\n")
    tree = tmp_path / "wt"
    tree.mkdir()
    (tree / ".git").write_text(f"gitdir: {linked}\n")
    assert Gitignores(tree).ignored(tree / "scratch.py", folder=False)
    assert not Gitignores(tree).ignored(tree / "kernel.py", folder=False)
