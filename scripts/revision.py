"""Another revision of this repository, checked out beside the checkout for as long as a
benchmark or script compares the two (``git worktree``; taken away again however it ends)."""

from __future__ import annotations

import contextlib
import subprocess
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


@contextlib.contextmanager
def checked_out(revision: str, where: Path) -> Iterator[Path]:
    """``revision`` checked out (detached) at ``where``, a folder that must not exist yet."""
    git = ["git", "-C", str(REPO), "worktree"]
    subprocess.run([*git, "add", "--detach", str(where), revision], check=True, capture_output=True)
    try:
        yield where
    finally:
        subprocess.run([*git, "remove", "--force", str(where)], check=False, capture_output=True)
