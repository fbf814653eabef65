"""Run the GPU checks on this machine's GPU with the installed JAX (``nox -s gpu`` runs this):
the kernel set's GPU variants (``python -m kernels --modes gpu``) and both corpora's GPU
cases (``--mode gpu``), compiled, every route, float32 matmul precision.

    python scripts/gpu_run.py [--out DIR]

Results go to ``DIR/<device>/jax-<release>/{kernels,corpus,thirdparty}.json`` (default
``reports/gpu``), apart from the machine-independent goldens: they hold what this device
measured. The ops and libraries come from the cache (``scripts/fetch_ops.py``,
``scripts/fetch_libraries.py``); a machine with no network needs it carried there (or named by
``PALLAS_COMPAT_CACHE``). Without a GPU it prints ``no GPU: skipped`` and exits 0.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

#: Releases whose own kernels the ops corpus runs: the noxfile's CORPUS_FROM (which this
#: script cannot import: the noxfile needs nox, a GPU machine's Python may not have it).
OPS_FROM = "0.4.30,0.4.35,0.6.2,0.9.2,0.12.0.1"


def device_and_release() -> tuple[str | None, str]:
    """The GPU JAX sees and the installed JAX release; (None, why) where there is no GPU."""
    try:
        import jax

        from kernels.corpus._mode import gpu_device
    except ImportError as exc:  # no JAX in this Python: no GPU to run on either
        return None, f"no JAX here ({exc})"
    device = gpu_device()
    return (device, jax.__version__) if device else (None, f"JAX {jax.__version__} sees none")


def slug(device: str) -> str:
    """``NVIDIA H200`` -> ``nvidia-h200``: a folder name."""
    return re.sub(r"[^a-z0-9.]+", "-", device.lower()).strip("-")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "reports" / "gpu")
    args = parser.parse_args(argv)
    device, release = device_and_release()
    if device is None:
        print(f"no GPU: skipped ({release})")
        return 0
    folder = args.out / slug(device) / f"jax-{release}"
    folder.mkdir(parents=True, exist_ok=True)
    print(f"on {device} with JAX {release}: results in {folder}")
    fetch = [
        [sys.executable, "scripts/fetch_ops.py", "--releases", OPS_FROM],
        [sys.executable, "scripts/fetch_libraries.py"],
    ]
    runs = [
        ["-m", "kernels", "--modes", "gpu", "--out", str(folder / "kernels.json")],
        ["-m", "kernels.corpus", "--mode", "gpu", "--out", str(folder / "corpus.json")],
        ["-m", "kernels.thirdparty", "--mode", "gpu", "--out", str(folder / "thirdparty.json")],
    ]
    failed = 0
    for command in [*fetch, *([sys.executable, *run] for run in runs)]:
        failed |= subprocess.run(command, cwd=ROOT).returncode != 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
