"""What kept bytecode saves each process that imports JAX and Pallas, as the main job's and
the tests' sessions start dozens a release: compiled from source each time, then kept in one
folder (the noxfile's ``keep_bytecode``), side by side in one run.

    python benchmarks/bytecode.py [--repeat N]

Run it with the Python of an environment uv made, which installs packages without bytecode
(``.nox/corpus-jax-0-9-2/bin/python``). "compiled each time" is a process started with
``PYTHONDONTWRITEBYTECODE=1``, as many container images set it; "kept" reads the bytecode a
first process wrote under ``PYTHONPYCACHEPREFIX`` (that first process is shown apart). The
machine is shared, so read the ratio, not the seconds.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from importlib.util import find_spec
from pathlib import Path

IMPORTS = (
    "import jax, jax.numpy as jnp; from jax.experimental import pallas as pl; "
    "from jax.experimental.pallas import tpu as pltpu; jnp.ones(3).block_until_ready()"
)


def child_cpu(env: dict[str, str]) -> float:
    """CPU seconds (user and system) of one fresh process that runs ``IMPORTS``."""
    before = os.times()
    subprocess.run([sys.executable, "-c", IMPORTS], env=env, check=True)
    after = os.times()
    return (after.children_user - before.children_user) + (
        after.children_system - before.children_system
    )


def bytecode_beside_jax() -> bool:
    """Whether JAX's bytecode lies beside its source here (then nothing compiles anyway)."""
    spec = find_spec("jax")
    return (
        spec is not None
        and spec.origin is not None
        and (Path(spec.origin).parent / "__pycache__").is_dir()
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="processes per setting")
    args = parser.parse_args()
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    if find_spec("jax") is None:
        sys.exit("bytecode: error: JAX is not installed for this Python; use a session's")
    if bytecode_beside_jax():
        print("bytecode: JAX's bytecode lies beside its source here: nothing to compare")
        return 0
    base = {k: v for k, v in os.environ.items() if k != "PYTHONPYCACHEPREFIX"}
    each_time = {**base, "PYTHONDONTWRITEBYTECODE": "1"}
    with tempfile.TemporaryDirectory() as folder:
        kept = {**base, "PYTHONPYCACHEPREFIX": folder}
        kept.pop("PYTHONDONTWRITEBYTECODE", None)
        first = child_cpu(kept)
        runs: dict[str, list[float]] = {"compiled each time": [], "kept": []}
        for _ in range(args.repeat):  # interleaved, so that the machine's load hits both alike
            runs["compiled each time"].append(child_cpu(each_time))
            runs["kept"].append(child_cpu(kept))
    median = {name: statistics.median(seconds) for name, seconds in runs.items()}
    print(f"bytecode: {args.repeat} processes per setting, CPU seconds of each (median)")
    print(f"  first process, writing the kept bytecode: {first:.2f} s")
    for name, seconds in median.items():
        print(f"  {name}: {seconds:.2f} s")
    print(f"  kept / compiled each time: {median['kept'] / median['compiled each time']:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
