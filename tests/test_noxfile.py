"""The noxfile, and the script it runs with nox's own Python, load where nox runs them: nox's
own environment, which has neither NumPy nor JAX."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: Runs the noxfile with NumPy and JAX unimportable and nox itself stood in by a mock (the
#: sessions' bodies never run; only what the file does on load).
LOAD_WITHOUT_ARRAYS = """
import importlib.abc, runpy, sys
from unittest import mock

class Refuse(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in ("numpy", "jax", "jaxlib"):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, Refuse())
sys.modules["nox"] = mock.MagicMock()
namespace = runpy.run_path(sys.argv[1])
print(len(namespace["LIBRARIES"]), ",".join(namespace["LIBRARIES_FROM"]))
sys.argv = [sys.argv[2], "--help"]
try:
    runpy.run_path(sys.argv[0], run_name="__main__")
except SystemExit as done:
    sys.exit(done.code)
"""


def test_the_noxfile_and_fetch_libraries_load_without_numpy_or_jax() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            LOAD_WITHOUT_ARRAYS,
            str(ROOT / "noxfile.py"),
            str(ROOT / "scripts" / "fetch_libraries.py"),
        ],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        cwd=ROOT,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    count, releases = done.stdout.split()[:2]
    assert "usage: fetch_libraries" in done.stdout
    assert int(count) >= 6
    assert releases.split(",")[0] == "0.4.30"


def test_the_editable_install_nox_makes_exposes_pallas_compat_only(tmp_path: Path) -> None:
    """hatch's exact dev mode: the checkout's top-level common, kernels, probes and report
    are not importable names in the session's (or a user's) environment."""
    from pallas_compat._matrix_env import uv

    venv = tmp_path / "venv"
    for command in (
        [uv(), "venv", "--quiet", "--python", sys.executable, str(venv)],
        [
            uv(),
            "pip",
            "install",
            "--quiet",
            "--python",
            str(venv / "bin" / "python"),
            "--no-deps",
            "-e",
            str(ROOT),
            "editables",
        ],
    ):
        subprocess.run(command, check=True, capture_output=True, stdin=subprocess.DEVNULL)
    probe = (
        "import importlib.util as u; "
        "print([m for m in ('pallas_compat', 'common', 'kernels', 'probes', 'report') "
        "if u.find_spec(m)])"
    )
    found = subprocess.run(
        [str(venv / "bin" / "python"), "-c", probe],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
        stdin=subprocess.DEVNULL,
    )
    assert found.stdout.split() == ["['pallas_compat']"], found.stderr
