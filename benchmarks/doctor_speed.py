"""``pallas-compat doctor`` at linter speed: the libcst path it had against the ``ast`` path,
side by side in one run, with the targets of issue 44.

    python benchmarks/doctor_speed.py [--against 0543206] [--lines 20000] [--tree-lines 100000]

- one file of ``--lines`` lines (the drift fixture repeated: a Pallas use every few lines, the
  worst case): CPU seconds and peak memory of ``doctor`` on it; target <= 5 s, <= 300 MB;
- a tree of ``--tree-lines`` lines of real kernel files (JAX's ops of the corpus releases from
  the source cache, else the vendored real files, repeated, each copy told apart by a comment):
  wall seconds with an empty cache (target <= 30 s on 2 cores) and again with nothing changed
  (target <= 2 s);
- whether the two paths report the same (every use, state, line and column) on that tree,
  less the uses of rules and facts added since the reference (``scripts/since_reference.py``).

Each run is a fresh interpreter of this Python with the revision's ``pallas_compat`` first on
``sys.path``; ``--against`` is checked out into a temporary git worktree (the default is the
last revision whose doctor read files with libcst). The machine is shared: read the ratios.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "scripts"))

from revision import checked_out  # noqa: E402
from since_reference import REFERENCE, known_to_reference  # noqa: E402

FIXTURE = REPO / "tests" / "fixtures" / "migrate" / "old_kernels.py"
TARGET = "0.12.0.1"
CPU_TARGET, MEMORY_TARGET, COLD_TARGET, WARM_TARGET = 5.0, 300.0, 30.0, 2.0

RUN = "import sys; from pallas_compat._cli import main; sys.exit(main(sys.argv[1:]))"


def ops_cache() -> Path:
    root = os.environ.get("PALLAS_COMPAT_CACHE") or (
        Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "pallas-compat"
    )
    return Path(root) / "ops"


def kernel_files() -> list[Path]:
    """Real kernel files: the corpus's JAX ops where the source cache has them."""
    found = sorted(ops_cache().rglob("*.py")) if ops_cache().is_dir() else []
    if not found:
        found = sorted((REPO / "tests" / "fixtures" / "real").rglob("*.py"))
    return [p for p in found if p.stat().st_size]


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


def tree(lines: int, folder: Path) -> tuple[Path, int, int]:
    """(folder, files, lines): kernel files copied until there are ``lines`` lines."""
    root = folder / "tree"
    sources = [(p, p.read_text(errors="replace")) for p in kernel_files()]
    total, count, copy = 0, 0, 0
    while total < lines:
        for path, text in sources:
            target = root / f"copy{copy}" / f"{count}_{path.name}"
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(f"# copy {copy}\n{text}")
            total += text.count("\n") + 1
            count += 1
            if total >= lines:
                break
        copy += 1
    return root, count, total


def measured(checkout: Path, argv: list[str], cwd: Path) -> tuple[float, float, float, str]:
    """(wall s, CPU s, peak MB, stdout) of one doctor run in a fresh interpreter, its own
    usage read from ``wait4``."""
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    with tempfile.TemporaryFile() as out:
        start = time.perf_counter()
        child = subprocess.Popen(
            [sys.executable, "-c", RUN, *argv],
            cwd=cwd,
            env=env,
            stdout=out,
            stderr=subprocess.DEVNULL,
        )
        _, _, usage = os.wait4(child.pid, 0)
        child.returncode = 0  # reaped here: Popen must not wait for it again
        wall = time.perf_counter() - start
        out.seek(0)
        text = out.read().decode()
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, text


def uses(report: str) -> list[tuple[object, ...]]:
    """Each use's place, rule, API and state on the target, sorted: what the reading decides
    (the releases and advice come from the facts, which may have moved since ``--against``),
    less what the reference could not know."""
    return sorted(
        (u["path"], u["line"], u["column"], u["code"], u["api"], u["state"])
        for u in json.loads(report)["uses"]
        if known_to_reference(u["code"], u["api"])
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", default=REFERENCE, help="the libcst path's revision")
    parser.add_argument("--lines", type=int, default=20000)
    parser.add_argument("--tree-lines", type=int, default=100000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        old = folder / "old"
        with checked_out(args.against, old):
            return compare(old, folder, args)


def compare(old: Path, folder: Path, args: argparse.Namespace) -> int:
    big = big_file(args.lines, folder)
    root, files, lines = tree(args.tree_lines, folder)
    common = ["--target", TARGET, "--format", "json"]
    print(f"one file of {args.lines:,} lines (a drifted use every few lines):")
    _, o_cpu, o_mb, _ = measured(old, ["doctor", str(big), *common], folder)
    _, n_cpu, n_mb, _ = measured(REPO, ["doctor", str(big), "--no-cache", *common], folder)
    print(f"  {'':22} {'CPU s':>8} {'peak MB':>8}")
    print(f"  {'libcst (' + args.against + ')':22} {o_cpu:8.1f} {o_mb:8.0f}")
    print(f"  {'ast (this tree)':22} {n_cpu:8.1f} {n_mb:8.0f}")
    print(
        f"  ratio: {n_cpu / o_cpu:.3f}x the CPU; target <= {CPU_TARGET} s and <= {MEMORY_TARGET:.0f} MB: "
        f"{'met' if n_cpu <= CPU_TARGET and n_mb <= MEMORY_TARGET else 'NOT met'}"
    )
    print(f"a tree of {files} real kernel files, {lines:,} lines, {os.cpu_count()} CPUs:")
    cache = folder / "cache"
    o_tree, _, _, o_out = measured(old, ["doctor", str(root), *common], folder)
    cold, _, _, n_out = measured(
        REPO, ["doctor", str(root), "--cache-dir", str(cache), *common], folder
    )
    warm, _, _, w_out = measured(
        REPO, ["doctor", str(root), "--cache-dir", str(cache), *common], folder
    )
    print(f"  {'':22} {'wall s':>8}")
    print(f"  {'libcst (' + args.against + ')':22} {o_tree:8.1f}")
    print(
        f"  {'ast, empty cache':22} {cold:8.1f}   target <= {COLD_TARGET:.0f} s: {'met' if cold <= COLD_TARGET else 'NOT met'}"
    )
    print(
        f"  {'ast, nothing changed':22} {warm:8.1f}   target <= {WARM_TARGET:.0f} s: {'met' if warm <= WARM_TARGET else 'NOT met'}"
    )
    print(f"  ratio: {cold / o_tree:.3f}x (empty cache), {warm / o_tree:.4f}x (nothing changed)")
    same = uses(o_out) == uses(n_out) == uses(w_out)
    print(
        f"  the same uses (path, line, column, rule, API, state): {'yes' if same else 'NO'} "
        f"({len(uses(n_out))} uses both revisions know of; "
        f"{len(json.loads(n_out)['uses']) - len(uses(n_out))} more from later rules and facts)"
    )
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
