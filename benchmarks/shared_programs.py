"""What sharing programs between routes saves: a session run with nothing shared, with
compiles shared, and with lowerings shared too (the default), side by side in one run.

    python benchmarks/shared_programs.py [--suite corpus|thirdparty|kernels] [--only TEXT]

Run it with the Python of an environment that has JAX and the project (a nox session's,
``.nox/corpus-jax-0-9-2/bin/python``); the corpus suites need their sources fetched
(``scripts/fetch_ops.py``, ``scripts/fetch_libraries.py``). Each configuration is a fresh
process, XLA at optimization level 0 as the main job runs it; CPU seconds are the process's
own (``getrusage``). The three results must be byte-identical, or the script fails. The
machine is shared, so read the ratios, not the seconds; interpreter timings say nothing
about kernel speed.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
MODULES = {"corpus": "kernels.corpus", "thirdparty": "kernels.thirdparty", "kernels": "kernels"}
CONFIGS = {
    "nothing shared": ["--no-shared-compiles", "--no-shared-lowerings"],
    "compiles shared": ["--no-shared-lowerings"],
    "compiles and lowerings (default)": [],
}


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


#: How the main job compiles (noxfile's ``FAST_COMPILE``).
LEVEL_0 = "--xla_backend_optimization_level=0"


def run(
    module: str, only: list[str], flags: list[str], folder: Path, xla_flags: str = LEVEL_0
) -> tuple[float, float, str]:
    """(wall, CPU, result text) of one session."""
    out, timings = folder / "out.json", folder / "timings.json"
    command = [sys.executable, "-m", module, "--out", str(out), "--timings", str(timings)]
    command += [*(["--only", *only] if only else []), *flags]
    env = {**os.environ, "XLA_FLAGS": xla_flags}
    cpu, start = children_cpu(), time.perf_counter()
    done = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True)
    wall, cpu = time.perf_counter() - start, children_cpu() - cpu
    if done.returncode != 0:
        tail = (done.stderr.strip().splitlines() or ["(no output)"])[-1]
        raise SystemExit(f"shared_programs: {' '.join(command)} failed: {tail}")
    counts = json.loads(timings.read_text())
    print(
        f"  compiles {counts.get('compiles', {})}, lowerings {counts.get('lowerings', {})}",
        flush=True,
    )
    return wall, cpu, out.read_text()


def suite_arguments(description: str) -> argparse.Namespace:
    """``--suite`` and ``--only``, as this benchmark and ``xla_emitters.py`` take them."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--suite", choices=sorted(MODULES), default="corpus")
    parser.add_argument(
        "--only", nargs="*", default=[], help="what the suite's own --only takes (one text)"
    )
    return parser.parse_args()


def compare(prog: str, args: argparse.Namespace, configs: dict[str, tuple[list[str], str]]) -> int:
    """Run the suite once per configuration (its options, its ``XLA_FLAGS``) and print each
    one's CPU against the first's; the results must be byte-identical."""
    module, rows, texts = MODULES[args.suite], [], set()
    with tempfile.TemporaryDirectory() as tmp:
        for name, (flags, xla_flags) in configs.items():
            print(
                f"{name}: XLA_FLAGS='{xla_flags}' python -m {module} {' '.join(flags)}", flush=True
            )
            wall, cpu, text = run(module, args.only, flags, Path(tmp), xla_flags)
            rows.append((name, wall, cpu))
            texts.add(text)
    if len(texts) != 1:
        raise SystemExit(f"{prog}: the configurations gave different results")
    first, base_cpu = rows[0][0], rows[0][2]
    print(f"\n{'configuration':34} {'wall':>8} {'CPU':>8}  CPU / {first}")
    for name, wall, cpu in rows:
        print(f"{name:34} {wall:7.1f}s {cpu:7.1f}s  {cpu / base_cpu:.2f}x")
    print("results: byte-identical")
    return 0


def main() -> int:
    args = suite_arguments(__doc__.splitlines()[0])
    return compare("shared_programs", args, {n: (f, LEVEL_0) for n, f in CONFIGS.items()})


if __name__ == "__main__":
    sys.exit(main())
