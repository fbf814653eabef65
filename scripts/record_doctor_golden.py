"""Record what doctor found at a reference revision, as the golden file today's doctor is held to.

    python scripts/record_doctor_golden.py [--against 0543206]

The reference is the last revision whose doctor read files with libcst (before issue 44 gave
it its own ``ast`` path): an independent reading, by another parser and another scope
analysis. This runs revision ``--against`` (checked out into a temporary git worktree, with
this script's Python, which must have libcst installed: ``pip install libcst``) over every
file that can use Pallas among the repository's fixtures and kernels and the third-party
libraries of the corpus (``scripts/fetch_libraries.py``), and writes each use's line, column,
rule, API, certainty, releases, warning releases and a digest of its advice to
``tests/fixtures/doctor_golden.json`` (``tests/test_finder_golden.py`` reads it). A fact
changed since the reference is named in that test, with its new value. Rerun this only to
record files added since, or to move the golden to another reference revision, never to bless
the code under test.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "scripts"))

from fetch_ops import default_cache  # noqa: E402
from revision import checked_out  # noqa: E402

GOLDEN = REPO / "tests" / "fixtures" / "doctor_golden.json"
LIBCST_PATH = "0543206"

DUMP = """
import hashlib, json, sys
import libcst as cst
from pallas_compat.lint._finder import find_uses, gc_paused, may_use_pallas
found = {}
for key, path in json.loads(sys.stdin.read()):
    data = open(path, "rb").read()
    if not may_use_pallas(data):
        continue
    with gc_paused():
        uses = find_uses(path, cst.parse_module(data))
    found[key] = [
        [u.line, u.column, u.code, u.api, u.certain, u.releases, u.warns,
         hashlib.sha256(u.hint.encode()).hexdigest()[:12]]
        for u in uses
    ]
json.dump(found, sys.stdout, sort_keys=True)
"""


def files() -> list[tuple[str, str]]:
    """(key, path) of every file to hold the two paths to: ``repo:<relative>`` and
    ``library:<name-version>/<relative>``."""
    found = [
        (f"repo:{p.relative_to(REPO)}", str(p))
        for folder in ("tests/fixtures", "kernels")
        for p in sorted((REPO / folder).rglob("*.py"))
    ]
    libraries = default_cache() / "libraries"
    found += [
        (f"library:{p.relative_to(libraries)}", str(p))
        for p in sorted(libraries.rglob("*.py"))
        if "__pycache__" not in p.parts
    ]
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", default=LIBCST_PATH)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        old = Path(tmp) / "old"
        with checked_out(args.against, old):
            done = subprocess.run(
                [sys.executable, "-c", DUMP],
                input=json.dumps(files()),
                capture_output=True,
                text=True,
                check=True,
                env={**os.environ, "PYTHONPATH": str(old)},
                cwd=tmp,
            )
    found = json.loads(done.stdout)
    golden = {"reference": args.against, "uses": found}
    from pallas_compat._file_writes import write_atomic

    write_atomic(GOLDEN, json.dumps(golden, indent=0, sort_keys=True) + "\n")
    count = sum(len(v) for v in found.values())
    print(f"{GOLDEN.relative_to(REPO)}: {count} uses in {len(found)} files, from {args.against}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
