"""What ``pallas-compat migrate`` writes for every old kernel file the project holds, for each
release of the default matrix: the fixtures, the idiom files, JAX's own ops of the corpus
releases and the third-party libraries (``scripts/fetch_ops.py``, ``fetch_libraries.py``).

    python scripts/migrate_outputs.py OUT [--against REV] [--targets 0.6.2,0.12.0.1]

``OUT/<target>/<group>/...`` holds each file as migrate left it (``--write`` on a copy). With
``--against``, revision REV (checked out into a temporary git worktree) writes them instead,
so that two revisions' outputs compare with ``diff -r``: the measure that a change to
migrate's machinery leaves what it writes as it was.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "scripts"))

from fetch_ops import default_cache  # noqa: E402
from revision import checked_out  # noqa: E402

RUN = "import sys; from pallas_compat._cli import main; sys.exit(main(sys.argv[1:]))"


def inputs() -> dict[str, Path]:
    """Group name -> folder of old kernel files."""
    cache = default_cache()
    found = {"fixtures": REPO / "tests" / "fixtures"}
    found |= {f"ops-{p.name}": p for p in sorted((cache / "ops").glob("*")) if p.is_dir()}
    found |= {f"library-{p.name}": p for p in sorted((cache / "libraries").glob("*")) if p.is_dir()}
    return found


def default_targets() -> list[str]:
    return list(json.loads((REPO / "jax-matrix.json").read_text())["default"])


def migrate(tree: Path, target: str, code: Path) -> None:
    """``migrate --write`` over ``tree`` for ``target``, as revision ``code`` does it."""
    command = ["migrate", str(tree), "--write", "--target", target, "--no-cache"]
    subprocess.run(
        [sys.executable, "-c", RUN, *command, "--no-respect-gitignore"],
        env={"PYTHONPATH": str(code), "PATH": "/usr/bin:/bin"},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=False,
    )


def write_outputs(out: Path, targets: list[str], code: Path) -> None:
    for target in targets:
        for group, folder in inputs().items():
            tree = out / target / group
            shutil.copytree(folder, tree, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
            migrate(tree, target, code)
        print(f"{target}: written", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--against", help="the revision whose migrate writes (default: this)")
    parser.add_argument("--targets", help="comma-separated (default: the default matrix)")
    args = parser.parse_args()
    if args.out.exists():
        print(f"migrate_outputs: error: {args.out} exists", file=sys.stderr)
        return 2
    targets = args.targets.split(",") if args.targets else default_targets()
    if args.against is None:
        write_outputs(args.out, targets, REPO)
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        other = Path(tmp) / "other"
        with checked_out(args.against, other):
            write_outputs(args.out, targets, other)
    return 0


if __name__ == "__main__":
    sys.exit(main())
