"""What XLA CPU's elemental emitters save where the release's XLA takes the flag: a session
compiled at level 0 alone, then with ``--xla_cpu_use_fusion_emitters=false`` too (as the main
job runs JAX 0.7 to 0.10), side by side in one run.

    python benchmarks/xla_emitters.py [--suite corpus|thirdparty|kernels] [--only TEXT]

Run it with the Python of an environment that has JAX and the project (a nox session's,
``.nox/corpus-jax-0-9-2/bin/python``), as ``benchmarks/shared_programs.py``. On a release
whose XLA does not know the flag (it aborts on one it does not know) there is nothing to
compare, and it says so. The two results must be byte-identical, or the script fails. The
machine is shared, so read the ratio, not the seconds; interpreter timings say nothing about
kernel speed.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from shared_programs import LEVEL_0, MODULES, run

ELEMENTAL = "--xla_cpu_use_fusion_emitters=false"
#: Creates the CPU client, which reads ``XLA_FLAGS`` (as the noxfile's ``XLA_FLAG_TRIAL``).
TRIAL = "import jax; jax.jit(lambda x: x + 1)(1).block_until_ready()"


def xla_takes(flag: str) -> bool:
    env = {**os.environ, "XLA_FLAGS": flag, "JAX_PLATFORMS": "cpu"}
    return (
        subprocess.run([sys.executable, "-c", TRIAL], env=env, capture_output=True).returncode == 0
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", choices=sorted(MODULES), default="corpus")
    parser.add_argument(
        "--only", nargs="*", default=[], help="what the suite's own --only takes (one text)"
    )
    args = parser.parse_args()
    if not xla_takes(ELEMENTAL):
        print(f"xla_emitters: this release's XLA does not take {ELEMENTAL}: nothing to compare")
        return 0
    configs = {"level 0, MLIR emitters": LEVEL_0, "level 0, elemental": f"{LEVEL_0} {ELEMENTAL}"}
    module, rows, texts = MODULES[args.suite], [], set()
    with tempfile.TemporaryDirectory() as tmp:
        for name, flags in configs.items():
            print(f"{name}: XLA_FLAGS='{flags}' python -m {module}", flush=True)
            wall, cpu, text = run(module, args.only, [], Path(tmp), xla_flags=flags)
            rows.append((name, wall, cpu))
            texts.add(text)
    if len(texts) != 1:
        raise SystemExit("xla_emitters: the two configurations gave different results")
    base_cpu = rows[0][2]
    print(f"\n{'configuration':24} {'wall':>8} {'CPU':>8}  CPU / MLIR emitters")
    for name, wall, cpu in rows:
        print(f"{name:24} {wall:7.1f}s {cpu:7.1f}s  {cpu / base_cpu:.2f}x")
    print("results: byte-identical")
    return 0


if __name__ == "__main__":
    sys.exit(main())
