"""``doctor`` and ``migrate`` over a source tree, this checkout against another revision, side
by side in one run (the drift rules' dispatch against what it replaced, say).

    python benchmarks/doctor_tree.py PATH... [--against REV] [--target 0.12.0.1] [--repeat 1]

Each (revision, command) runs in a fresh interpreter of this Python with the revision's
``pallas_compat`` first on ``sys.path``; the other revision is checked out into a temporary
git worktree. Wall times are the median of ``--repeat`` runs; the machine is shared, so
read the ratio, not the seconds.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "scripts"))

from revision import checked_out  # noqa: E402

COMMANDS = {
    "doctor": ["doctor", "--format", "json"],
    "migrate": ["migrate"],  # a dry run: the diff goes to /dev/null
}


def timed(tree: Path, argv: list[str]) -> float:
    code = "import sys; from pallas_compat._cli import main; sys.exit(main(sys.argv[1:]))"
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-c", code, *argv],
        cwd=tree,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=False,
    )
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+", type=Path)
    parser.add_argument(
        "--against", default="HEAD~1", help="the other revision (default: %(default)s)"
    )
    parser.add_argument("--target", default="0.12.0.1")
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    paths = [str(p.resolve()) for p in args.paths]
    with tempfile.TemporaryDirectory() as tmp:
        other = Path(tmp) / "other"
        with checked_out(args.against, other):
            print(f"{'':8} {args.against:>12} {'this tree':>12}  ratio (this / other)")
            for name, command in COMMANDS.items():
                argv = [*command, *paths, "--target", args.target]
                runs = {
                    tree: statistics.median(timed(tree, argv) for _ in range(args.repeat))
                    for tree in (other, REPO)
                }
                ratio = runs[REPO] / runs[other]
                print(f"{name:8} {runs[other]:11.1f}s {runs[REPO]:11.1f}s  {ratio:5.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
