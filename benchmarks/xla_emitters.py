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

import os
import subprocess
import sys

from shared_programs import LEVEL_0, compare, suite_arguments

ELEMENTAL = "--xla_cpu_use_fusion_emitters=false"
#: Creates the CPU client, which reads ``XLA_FLAGS`` (as the noxfile's ``XLA_FLAG_TRIAL``).
TRIAL = "import jax; jax.jit(lambda x: x + 1)(1).block_until_ready()"


def xla_takes(flag: str) -> bool:
    env = {**os.environ, "XLA_FLAGS": flag, "JAX_PLATFORMS": "cpu"}
    return (
        subprocess.run([sys.executable, "-c", TRIAL], env=env, capture_output=True).returncode == 0
    )


def main() -> int:
    args = suite_arguments(__doc__.splitlines()[0])
    if not xla_takes(ELEMENTAL):
        print(f"xla_emitters: this release's XLA does not take {ELEMENTAL}: nothing to compare")
        return 0
    configs = {"MLIR emitters": LEVEL_0, "elemental emitters": f"{LEVEL_0} {ELEMENTAL}"}
    return compare("xla_emitters", args, {n: ([], f) for n, f in configs.items()})


if __name__ == "__main__":
    sys.exit(main())
