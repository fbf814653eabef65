"""``pallas-compat migrate`` on a large tree: the revision before one reading (libcst re-read
and re-decided every file with uses) against this tree (the finder's decisions turned into
text edits), side by side in one run.

    python benchmarks/migrate_speed.py [--against REV] [--tree-lines 100000] [--target 0.12.0.1]

The tree is ``doctor_speed.py``'s: real kernel files (JAX's ops of the corpus releases from
the source cache, else the vendored real files) copied until it has ``--tree-lines`` lines.
Each side runs ``migrate --no-cache`` (a dry run: the diff on stdout) in a fresh interpreter
with its revision's ``pallas_compat`` first on ``sys.path``; ``--against`` is checked out
into a temporary git worktree and needs libcst in this Python (``pip install libcst``). It
prints wall and CPU seconds, peak memory and whether the two diffs are the same; the machine
is shared: read the ratios.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from doctor_speed import REPO, measured, tree
from revision import checked_out  # doctor_speed put scripts/ on the path

#: The last revision whose migrate read files with libcst.
BEFORE = "49ec578"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", default=BEFORE, help="the revision to compare with")
    parser.add_argument("--tree-lines", type=int, default=100000)
    parser.add_argument("--target", default="0.12.0.1")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        old = folder / "old"
        with checked_out(args.against, old):
            return compare(old, folder, args)


def compare(old: Path, folder: Path, args: argparse.Namespace) -> int:
    root, files, lines = tree(args.tree_lines, folder)
    command = ["migrate", str(root), "--target", args.target, "--no-cache"]
    print(f"migrate --target {args.target} over {files} real kernel files, {lines:,} lines:")
    o_wall, o_cpu, o_mb, o_out = measured(old, command, folder)
    n_wall, n_cpu, n_mb, n_out = measured(REPO, command, folder)
    print(f"  {'':24} {'wall s':>8} {'CPU s':>8} {'peak MB':>8}")
    print(f"  {'before (' + args.against + ')':24} {o_wall:8.1f} {o_cpu:8.1f} {o_mb:8.0f}")
    print(f"  {'one reading (this tree)':24} {n_wall:8.1f} {n_cpu:8.1f} {n_mb:8.0f}")
    print(f"  ratio: {n_wall / o_wall:.3f}x the wall time, {n_cpu / o_cpu:.3f}x the CPU")
    same = o_out == n_out
    changed = sum(1 for line in n_out.splitlines() if line.startswith("+++ "))
    print(f"  the same diff: {'yes' if same else 'NO'} ({changed} files rewritten)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
