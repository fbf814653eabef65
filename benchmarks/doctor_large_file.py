"""``pallas-compat doctor`` on one large file, the old way and the current way, side by side.

    python benchmarks/doctor_large_file.py [--lines 20000] [--repeat 1]

The file repeats the drift fixture (tests/fixtures/migrate/old_kernels.py) until it has
``--lines`` lines: a Pallas use every few lines, the worst case for the analysis. Each
configuration runs in a fresh interpreter (wall time and peak memory of parse + analysis):

- before: libcst's MetadataWrapper deep-copies the module (a second tree) and the cyclic
  garbage collector runs, re-scanning the growing tree (superlinear in the file size);
- after: no copy (a freshly parsed module shares no nodes) and the collector paused while
  libcst works (its trees are acyclic: reference counting frees them).

Also prints the per-line cost at a quarter of the size, to show that "after" is linear.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
FIXTURE = REPO / "tests" / "fixtures" / "migrate" / "old_kernels.py"

RUN = """
import gc, resource, sys, time
import libcst as cst
from pallas_compat.lint import _finder
data = open(sys.argv[1], "rb").read()
copy, collector = sys.argv[2] == "copy", sys.argv[3] == "gc"
if not collector:
    gc.disable()
if copy:  # what find_uses did before: the wrapper's default deep copy
    real = cst.MetadataWrapper
    _finder.cst.MetadataWrapper = lambda module, **_: real(module)
start = time.perf_counter()
uses = _finder.find_uses(sys.argv[1], cst.parse_module(data))
seconds = time.perf_counter() - start
print(seconds, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, len(uses))
"""

CONFIGS = {"before (copy, gc)": ("copy", "gc"), "after (no copy, gc paused)": ("share", "nogc")}


def big_file(lines: int, folder: Path) -> Path:
    text = FIXTURE.read_text().splitlines()
    head = [line for line in text if line.startswith(("import ", "from "))]
    body = [line for line in text if not line.startswith(("import ", "from "))]
    out, copy = list(head), 0
    while len(out) < lines:
        out += [line.replace("def ", f"def v{copy}_") for line in body]
        copy += 1
    path = folder / f"big_{lines}.py"
    path.write_text("\n".join(out) + "\n")
    return path


def measure(path: Path, copy: str, collector: str) -> tuple[float, float, int]:
    done = subprocess.run(
        [sys.executable, "-c", RUN, str(path), copy, collector],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    )
    seconds, megabytes, uses = done.stdout.split()
    return float(seconds), float(megabytes), int(uses)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=20000)
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        sizes = (args.lines // 4, args.lines)
        files = {size: big_file(size, Path(folder)) for size in sizes}
        results: dict[tuple[str, int], list[tuple[float, float, int]]] = {}
        for _ in range(args.repeat):  # alternate, so that load on the machine hits both alike
            for size, path in files.items():
                for name, config in CONFIGS.items():
                    results.setdefault((name, size), []).append(measure(path, *config))
    print(f"{'configuration':28} {'lines':>6} {'seconds':>8} {'ms/line':>8} {'peak MB':>8} uses")
    for (name, size), samples in results.items():
        seconds = statistics.median(s for s, _, _ in samples)
        megabytes = statistics.median(m for _, m, _ in samples)
        print(
            f"{name:28} {size:6d} {seconds:8.1f} {1000 * seconds / size:8.2f} "
            f"{megabytes:8.0f} {samples[0][2]}"
        )
    full = {
        name: statistics.median(s for s, _, _ in results[(name, args.lines)]) for name in CONFIGS
    }
    before, after = full.values()
    print(f"after / before at {args.lines} lines: {after / before:.2f}x the time")
    return 0


if __name__ == "__main__":
    sys.exit(main())
