"""Extract JAX's own Pallas kernels (``jax/experimental/pallas/ops/**``) from release wheels.

    python scripts/fetch_ops.py [--releases 0.4.30,0.6.2] [--cache DIR]

For each release (default: the default matrix of ``jax-matrix.json``) the ``jax`` wheel comes
from the package registry through pip (as configured here; kept in ``DIR/wheels``), and its
``ops`` tree is unpacked to ``DIR/ops/<release>/``. Nothing is imported:
this runs without JAX. Already extracted releases are kept. The cache defaults to
``$PALLAS_COMPAT_CACHE``, else ``pallas-compat`` under ``$XDG_CACHE_HOME`` (``~/.cache``).
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

from common import MatrixError, cache_lock, load_matrix  # noqa: E402

OPS = "jax/experimental/pallas/ops/"


def default_cache() -> Path:
    if os.environ.get("PALLAS_COMPAT_CACHE"):
        return Path(os.environ["PALLAS_COMPAT_CACHE"])
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "pallas-compat"


def wheel(release: str, folder: Path) -> Path:
    """The ``jax`` wheel of ``release`` (pip downloads it once, then it is in ``folder``)."""
    found = sorted(folder.glob(f"jax-{release}-*.whl"))
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
            "--ignore-requires-python",  # only the sources are read, by any Python
            f"jax=={release}",
            "-d",
            str(folder),
        ],
        check=True,
    )
    found = sorted(folder.glob(f"jax-{release}-*.whl"))
    if not found:
        raise RuntimeError(f"pip downloaded no jax-{release} wheel into {folder}")
    return found[0]


def extract(release: str, cache: Path) -> Path:
    """``cache/ops/<release>``: the release's ops tree, unpacked whole or not at all."""
    target = cache / "ops" / release
    if target.is_dir():
        return target
    wheels = cache / "wheels"
    wheels.mkdir(parents=True, exist_ok=True)
    with (
        zipfile.ZipFile(wheel(release, wheels)) as archive,
        tempfile.TemporaryDirectory(dir=cache) as tmp,
    ):
        names = [n for n in archive.namelist() if n.startswith(OPS) and n.endswith(".py")]
        for name in names:
            out = Path(tmp) / "ops" / name[len(OPS) :]
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_bytes(archive.read(name))
        target.parent.mkdir(parents=True, exist_ok=True)
        os.replace(Path(tmp) / "ops", target)
    return target


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--releases", help="comma-separated (default: the default matrix)")
    parser.add_argument("--cache", type=Path, default=default_cache())
    args = parser.parse_args()
    try:
        matrix = load_matrix(ROOT / "jax-matrix.json")
    except MatrixError as exc:
        print(f"fetch_ops: error: {exc}", file=sys.stderr)
        return 2
    releases = args.releases.split(",") if args.releases else list(matrix.default)
    unknown = [r for r in releases if r not in matrix.every]
    if unknown:
        print(f"fetch_ops: error: not in jax-matrix.json: {', '.join(unknown)}", file=sys.stderr)
        return 2
    for release in releases:
        try:
            with cache_lock(args.cache):
                where = extract(release, args.cache)
        except (OSError, subprocess.CalledProcessError, RuntimeError, zipfile.BadZipFile) as exc:
            print(f"fetch_ops: error: JAX {release}: {exc}", file=sys.stderr)
            return 1
        count = sum(1 for _ in where.rglob("*.py"))
        print(f"JAX {release}: {count} file{'s' * (count != 1)} in {where}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
