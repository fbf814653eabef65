"""Refresh ``jax-matrix.json`` from the package registry (PEP 691 JSON simple index).

    python scripts/refresh_matrix.py [--oldest 0.4.30]

``every``: each JAX release >= oldest with a wheel, with its Requires-Python; ``default``: the
oldest plus the newest patch of every minor series after it. Needs only `packaging`.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import urllib.request
from pathlib import Path

from packaging.version import InvalidVersion, Version

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from common import write_atomic  # noqa: E402

MATRIX = ROOT / "jax-matrix.json"
#: What the committed file says about where the list came from: the registry in words, never
#: its address (the address is whatever index pip is configured with).
SOURCE = "the package registry's simple index, as pip is configured (scripts/refresh_matrix.py)"


def configured_index() -> str:
    """The index pip uses here: PIP_INDEX_URL, else pip's configuration, else pip's default."""
    if os.environ.get("PIP_INDEX_URL"):
        return os.environ["PIP_INDEX_URL"].split()[0]
    found = subprocess.run(
        [sys.executable, "-m", "pip", "config", "get", "global.index-url"],
        capture_output=True,
        text=True,
    )
    if found.returncode == 0 and found.stdout.strip():
        return found.stdout.strip()
    from pip._internal.models.index import PyPI  # pip's own default; no address typed here

    return PyPI.simple_url


def releases(oldest: Version) -> dict[str, str | None]:
    """version -> Requires-Python of its wheel, for every non-yanked release >= oldest."""
    request = urllib.request.Request(
        configured_index().rstrip("/") + "/jax/",
        headers={"Accept": "application/vnd.pypi.simple.v1+json"},
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        files = json.load(response)["files"]
    found: dict[str, str | None] = {}
    for entry in files:
        name = entry["filename"]
        if not name.endswith(".whl") or entry.get("yanked"):
            continue
        try:
            version = Version(name.split("-")[1])
        except (IndexError, InvalidVersion):
            continue
        if version >= oldest and not version.is_prerelease:
            found[str(version)] = entry.get("requires-python")
    return dict(sorted(found.items(), key=lambda item: Version(item[0])))


def default_matrix(versions: list[str]) -> list[str]:
    """The oldest, then the newest patch of every minor series."""
    newest: dict[tuple[int, int], str] = {}
    for text in versions:
        version = Version(text)
        newest[version.release[:2]] = text  # versions come sorted: the last one wins
    picked = [versions[0], *newest.values()]
    return sorted(set(picked), key=Version)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--oldest", default="0.4.30")
    args = parser.parse_args()
    every = releases(Version(args.oldest))
    matrix = {
        "source": SOURCE,
        "oldest": args.oldest,
        "default": default_matrix(list(every)),
        "every": [{"jax": v, "requires_python": rp} for v, rp in every.items()],
    }
    write_atomic(MATRIX, json.dumps(matrix, indent=1) + "\n")
    print(f"wrote {MATRIX}: {len(every)} releases, default {', '.join(matrix['default'])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
