"""doctor's cache, as ruff keeps one: what the analysis found in a file, keyed by the file's
bytes and by this pallas-compat (its rules, its facts and the Python that parses), so that an
unchanged file costs one read and one hash on the next run.

It lives in ``.pallas_compat_cache`` of the folder doctor runs in (``--cache-dir``, or the
``PALLAS_COMPAT_CACHE_DIR`` variable, moves it; ``--no-cache`` leaves it alone), with a
``CACHEDIR.TAG`` and a ``.gitignore`` of ``*`` so that backups and git pass it over. A cache
that cannot be read is ignored, one that cannot be written is not written: it only saves time.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pallas_compat._file_writes import write_atomic

__all__ = ["Cache", "content_key", "default_folder"]

FOLDER = ".pallas_compat_cache"
#: Entries kept at most (the newest run's first): a tree of 100,000 lines is a few thousand.
MOST = 50_000
TAG = "Signature: 8a477f597d28d172789f06886806bc55\n# pallas-compat doctor's cache\n"


def default_folder() -> Path:
    return Path(os.environ.get("PALLAS_COMPAT_CACHE_DIR") or FOLDER)


def content_key(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@functools.cache
def tool_key() -> str:
    """This pallas-compat's rules, facts and finder (every source and data file of the
    package) and the Python that parses: a change to any of them is another cache."""
    package = Path(__file__).resolve().parent.parent
    digest = hashlib.sha256(sys.version.split()[0].encode())
    for path in sorted(package.rglob("*")):
        if path.suffix in (".py", ".json", ".pyi") and "__pycache__" not in path.parts:
            digest.update(str(path.relative_to(package)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


class Cache:
    """Found uses (as JSON fields) and ``# noqa`` lines by file content."""

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder
        self.entries: dict[str, Any] = {}
        self.new: dict[str, Any] = {}
        if folder is not None:
            self.entries = self.read(folder / f"doctor-{tool_key()}.json")

    @staticmethod
    def read(path: Path) -> dict[str, Any]:
        try:
            found = json.loads(path.read_bytes())
        except (OSError, ValueError):
            return {}
        return found if isinstance(found, dict) else {}

    def get(self, key: str) -> Any | None:
        found = self.entries.get(key)
        if found is not None:
            self.new[key] = found
        return found

    def put(self, key: str, value: Any) -> None:
        self.new[key] = value

    def save(self) -> None:
        """Write this run's entries first, then older ones up to ``MOST``; only if anything
        was added."""
        if self.folder is None or not (self.new.keys() - self.entries.keys()):
            return
        kept = dict(self.new)
        for key, value in self.entries.items():
            if len(kept) >= MOST:
                break
            kept.setdefault(key, value)
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            for name, text in (("CACHEDIR.TAG", TAG), (".gitignore", "*\n")):
                if not (self.folder / name).exists():
                    write_atomic(self.folder / name, text)
            write_atomic(self.folder / f"doctor-{tool_key()}.json", json.dumps(kept))
            stale(self.folder, keep=f"doctor-{tool_key()}.json")
        except OSError:
            return


def stale(folder: Path, keep: str) -> None:
    """Remove the caches of other pallas-compat versions."""
    others: Iterable[Path] = (p for p in folder.glob("doctor-*.json") if p.name != keep)
    for path in others:
        with contextlib.suppress(OSError):
            path.unlink()
