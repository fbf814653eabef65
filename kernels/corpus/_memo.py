"""A disk cache of what pallas-compat makes of a source text: the shim route's imports and
doctor's uses (from the text alone) and migrate's rewrite (for one target).

Every corpus and third-party session prepares the same old files, one release each: without
the cache each session reads and rewrites every file again. An entry is keyed by the text,
the target where the answer depends on it, and the digest of the code that computes it
(``pallas_compat``, the shim-route rewriter, the Python minor), so a change to any of them is
a miss, never a stale answer. Entries are written atomically: the sessions nox runs side by side share it.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import json
import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

#: Where entries go; None (the default, and for library use) computes everything each time.
_folder: Path | None = None
#: The releases the sessions beside this one migrate to: a file migrated here is migrated for
#: those too, at once, sharing one reading (``pallas_compat.lint._migrate.Migration``).
_also: tuple[str, ...] = ()


def use_folder(folder: Path | None) -> None:
    """Keep entries under ``folder``; None: no cache."""
    global _folder
    _folder = folder


def default_folder() -> Path:
    """``prepared/`` in the pallas-compat cache (``scripts/fetch_ops.py``'s, beside the ops)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
    from fetch_ops import default_cache

    return default_cache() / "prepared"


def also_migrate_to(releases: tuple[str, ...]) -> None:
    global _also
    _also = releases


def migrate_targets(target: str, newer_than: str | None) -> list[str]:
    """``target``, then the releases of ``--also-migrate-to`` newer than ``newer_than`` (the
    release a file was written for: migrate's route runs it only there); with no cache to
    keep their answers in, ``target`` alone."""
    from packaging.version import Version

    if _folder is None or newer_than is None:
        return [target]
    others = [r for r in _also if r != target and Version(r) > Version(newer_than)]
    return [target, *others]


def add_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--no-memo",
        action="store_true",
        help="prepare every file again instead of reading the cache of earlier sessions "
        "(PALLAS_COMPAT_CACHE/prepared)",
    )
    parser.add_argument(
        "--also-migrate-to",
        metavar="RELEASES",
        default="",
        help="comma-separated releases whose sessions migrate the same files: a file migrated "
        "here is migrated for them too, sharing one reading, and kept in the cache",
    )


def configure(args: argparse.Namespace) -> None:
    use_folder(None if args.no_memo else default_folder())
    also_migrate_to(tuple(r for r in args.also_migrate_to.split(",") if r))


@functools.cache
def code_digest() -> str:
    """The digest of everything an entry's answer comes from besides its text and target."""
    import pallas_compat

    digest = hashlib.sha256(f"{sys.version_info[:2]}".encode())
    package = Path(pallas_compat.__file__).parent
    files = sorted(p for p in package.rglob("*") if p.suffix in (".py", ".json"))
    for path in [*files, Path(__file__).with_name("_shim_imports.py")]:
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def entry(kind: str, text: str, target: str) -> Path | None:
    if _folder is None:
        return None
    key = hashlib.sha256(f"{code_digest()}\0{kind}\0{target}\0".encode() + text.encode())
    name = key.hexdigest()
    return _folder / name[:2] / f"{name}.json"


#: What ``recalled`` gives for an answer the cache does not hold.
MISSING = object()


def remembered(kind: str, text: str, target: str, compute: Callable[[], object]) -> object:
    """``compute()``'s JSON-able answer for ``(kind, text, target)``, from the cache or
    computed and kept. A damaged entry is computed again."""
    answer = recalled(kind, text, target)
    if answer is MISSING:
        answer = compute()
        remember(kind, text, target, answer)
    return answer


def recalled(kind: str, text: str, target: str) -> object:
    """The kept answer for ``(kind, text, target)``; ``MISSING`` where none is, or it is
    damaged."""
    path = entry(kind, text, target)
    if path is not None and path.is_file():
        try:
            return json.loads(path.read_text())["answer"]
        except (OSError, ValueError, KeyError):
            pass
    return MISSING


def remember(kind: str, text: str, target: str, answer: object) -> None:
    path = entry(kind, text, target)
    if path is not None:
        keep(path, json.dumps({"kind": kind, "target": target, "answer": answer}))


def keep(path: Path, text: str) -> None:
    """Write atomically; a cache that cannot be written is only slower."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    except OSError:
        return
    try:
        with os.fdopen(fd, "w") as out:
            out.write(text)
        os.replace(tmp, path)
    except OSError:
        Path(tmp).unlink(missing_ok=True)
