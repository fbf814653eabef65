"""Write files so that a reader never sees half of one and a failed run loses nothing.

One implementation for every writer of the project: ``migrate --write``, the probes' snapshots,
the kernel results, the report pair and the scripts. A new file gets the mode an ordinary
``open()`` would give it (0o666 less the umask); a replaced file keeps its own mode.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path


def _new_file_mode() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def _temporary_copy(path: Path, data: str | bytes) -> Path:
    """``data`` in a hidden temporary file beside ``path``, flushed to disk, with its mode."""
    mode = path.stat().st_mode & 0o7777 if path.is_file() else _new_file_mode()
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data.encode() if isinstance(data, str) else data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return Path(tmp)


def write_atomic(path: Path, data: str | bytes) -> None:
    """Replace ``path`` in one step (a temporary file beside it, then a rename)."""
    tmp = _temporary_copy(path, data)
    try:
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def write_all(files: Mapping[Path, str | bytes]) -> None:
    """Replace every file, or none: a pair such as ``api-diff.md`` and ``.html`` never disagrees.

    All are written to temporary files first; if a rename then fails, the files already
    replaced get their previous content back (kept as hard links until the end)."""
    temps: dict[Path, Path] = {}
    backups: dict[Path, Path | None] = {}
    try:
        for path, data in files.items():
            temps[path] = _temporary_copy(path, data)
        for path, tmp in temps.items():
            backups[path] = _keep(path)
            os.replace(tmp, path)
    except BaseException:
        for path, backup in backups.items():
            with contextlib.suppress(OSError):
                if backup is not None:
                    os.replace(backup, path)
                    backup.unlink(missing_ok=True)  # a rename onto the same file keeps both names
                elif not temps[path].exists():  # it was new and got written: take it back
                    path.unlink()
        for tmp in temps.values():
            tmp.unlink(missing_ok=True)
        raise
    for backup in backups.values():
        if backup is not None:
            backup.unlink(missing_ok=True)


def _keep(path: Path) -> Path | None:
    """A hard link to the current ``path`` (None if there is none), to put it back."""
    if not path.is_file():
        return None
    fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".old")
    os.close(fd)
    os.unlink(name)
    os.link(path, name)
    return Path(name)


def unwritable(path: Path) -> str | None:
    """Why ``path`` cannot be written as a file, found by trying; None when it can.

    Checked before the work starts, so that a run does not end in a lost result. Permission
    bits are not enough (root ignores them; a read-only file system does not)."""
    if path.is_dir():
        return "is a folder; give a file name"
    folder = path.parent
    if not folder.is_dir():
        return f"folder {folder} does not exist"
    try:
        fd, probe = tempfile.mkstemp(dir=folder, prefix=f".{path.name}.", suffix=".check")
    except OSError as exc:
        return f"cannot write in folder {folder} ({exc.strerror})"
    os.close(fd)
    os.unlink(probe)
    return None


def save_elsewhere(path: Path, data: str | bytes) -> Path:
    """Keep results whose own destination failed at the end: a new file in the temp folder."""
    fd, name = tempfile.mkstemp(prefix=f"{path.stem}-", suffix=path.suffix or ".out")
    with os.fdopen(fd, "wb") as handle:
        handle.write(data.encode() if isinstance(data, str) else data)
    return Path(name)


def write_or_keep(path: Path, data: str | bytes, command: str) -> bool:
    """Write the results of a long run; if that fails after all the work, keep them in a
    temporary file, say where on stderr (one line) and return False."""
    import sys

    try:
        write_atomic(path, data)
    except OSError as exc:
        kept = save_elsewhere(path, data)
        print(
            f"{command}: error: cannot write {path} ({exc.strerror}); the results are in {kept}",
            file=sys.stderr,
        )
        return False
    return True
