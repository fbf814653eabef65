"""Fetch the wheels of the third-party corpus (``kernels/thirdparty/_libraries.py``) and unpack
each into the cache: ``DIR/libraries/<name>-<version>/``.

    python scripts/fetch_libraries.py [--cache DIR] [--only NAME,...]

pip downloads each wheel once, without its dependencies (as configured here: the package
registry; kept in ``DIR/wheels``); nothing is imported or installed, and none of it is
committed. Already unpacked versions are kept. The cache is ``scripts/fetch_ops.py``'s.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from fetch_ops import default_cache  # noqa: E402

from common import cache_lock  # noqa: E402
from kernels.thirdparty._libraries import BY_NAME, LIBRARIES, Library  # noqa: E402


def wheel(library: Library, folder: Path) -> Path:
    """The library's wheel (pip downloads it once, then it is in ``folder``)."""
    found = sorted(folder.glob(library.wheel_glob))
    if found:
        return found[0]
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--quiet",
            "--no-deps",
            "--only-binary",
            ":all:",
            "--ignore-requires-python",  # only the sources are read
            f"{library.name}=={library.version}",
            "-d",
            str(folder),
        ],
        check=True,
    )
    found = sorted(folder.glob(library.wheel_glob))
    if not found:
        raise RuntimeError(f"pip downloaded no {library.label} wheel into {folder}")
    return found[0]


def unpacked(library: Library, cache: Path) -> Path:
    """``cache/libraries/<name>-<version>``: the wheel's Python files, whole or not at all."""
    target = cache / "libraries" / f"{library.name}-{library.version}"
    if target.is_dir():
        return target
    wheels = cache / "wheels"
    wheels.mkdir(parents=True, exist_ok=True)
    with (
        zipfile.ZipFile(wheel(library, wheels)) as archive,
        tempfile.TemporaryDirectory(dir=cache) as tmp,
    ):
        for name in archive.namelist():
            if name.endswith(".py") or name.endswith("/METADATA"):
                out = Path(tmp) / "tree" / name
                out.parent.mkdir(parents=True, exist_ok=True)
                out.write_bytes(archive.read(name))
        target.parent.mkdir(parents=True, exist_ok=True)
        os.replace(Path(tmp) / "tree", target)
    return target


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, default=default_cache())
    parser.add_argument("--only", help="comma-separated library names (default: every one)")
    args = parser.parse_args()
    names = args.only.split(",") if args.only else [lib.name for lib in LIBRARIES]
    unknown = [n for n in names if n not in BY_NAME]
    if unknown:
        print(f"fetch_libraries: error: not in the corpus: {', '.join(unknown)}", file=sys.stderr)
        return 2
    for name in names:
        library = BY_NAME[name]
        try:
            with cache_lock(args.cache):
                where = unpacked(library, args.cache)
        except (OSError, subprocess.CalledProcessError, RuntimeError, zipfile.BadZipFile) as exc:
            print(f"fetch_libraries: error: {library.label}: {exc}", file=sys.stderr)
            return 1
        count = sum(1 for _ in where.rglob("*.py"))
        print(f"{library.label}: {count} file{'s' * (count != 1)} in {where}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
