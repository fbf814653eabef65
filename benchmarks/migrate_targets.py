"""One file migrated for several releases: a ``Migration`` per release against one shared
``Migration`` (one reading, one fixing per set of answers the releases give), side by side in
one run.

    python benchmarks/migrate_targets.py [FILE...] [--targets 0.6.2,0.12.0.1] [--repeat 1]

The corpus sessions migrate every old kernel file for every newer release of the matrix
(``--also-migrate-to``); this says what sharing the reading saves there. Without a
file it takes JAX 0.4.30's kernels in ``tests/fixtures/real/jax_0_4_30``. Wall times are the
best of ``--repeat`` runs; the machine is shared, so read the ratio, not the seconds.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from pallas_compat.lint._finder import gc_paused  # noqa: E402
from pallas_compat.lint._migrate import Migration  # noqa: E402

FIXTURES = REPO / "tests" / "fixtures" / "real" / "jax_0_4_30"
TARGETS = "0.4.35,0.4.38,0.5.3,0.6.2,0.7.2,0.8.3,0.9.2,0.10.2,0.11.2,0.12.0.1"


def each_apart(source: str, targets: list[str]) -> list[str]:
    return [Migration(source).code(t) for t in targets]


#: The fixings the last shared migration made (one per set of answers, ``_target.py``).
walks: list[int] = [0]


def shared(source: str, targets: list[str]) -> list[str]:
    migration = Migration(source)
    out = [migration.code(t) for t in targets]
    walks[0] = len(migration._made)
    return out


def best(
    run: Callable[[str, list[str]], list[str]], source: str, targets: list[str], repeat: int
) -> tuple[float, list[str]]:
    times, out = [], []
    for _ in range(repeat):
        with gc_paused():
            start = time.perf_counter()
            out = run(source, targets)
            times.append(time.perf_counter() - start)
    return min(times), out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--targets", default=TARGETS, help="comma-separated releases")
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    files = args.files or sorted(FIXTURES.glob("*.py"))
    targets = [t for t in args.targets.split(",") if t]
    print(f"each file migrated for {len(targets)} releases")
    print(f"{'file':36} {'apart':>8} {'shared':>8} {'walks':>6}  ratio (shared / apart)")
    total_apart = total_shared = 0.0
    total_walks = 0
    for path in files:
        source = path.read_text()
        apart, expected = best(each_apart, source, targets, args.repeat)
        together, got = best(shared, source, targets, args.repeat)
        if got != expected:
            raise SystemExit(f"migrate_targets: {path.name}: the shared migration differs")
        total_apart, total_shared = total_apart + apart, total_shared + together
        ratio = together / apart
        print(f"{path.name:36} {apart:7.2f}s {together:7.2f}s {walks[0]:6}  {ratio:.2f}x")
        total_walks += walks[0]
    ratio = total_shared / total_apart
    print(f"{'all':36} {total_apart:7.2f}s {total_shared:7.2f}s {total_walks:6}  {ratio:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
