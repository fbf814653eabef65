"""pallas_compat/pytest_plugin.py: ``pytest -p pallas_compat.pytest_plugin`` runs a suite with
``patch()`` installed before its conftest and test modules import Pallas."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pallas_compat


def test_patch_is_in_place_before_conftest_runs(tmp_path: Path) -> None:
    (tmp_path / "conftest.py").write_text(
        "from pallas_compat.shim._patch import patched\nPATCHED_AT_CONFTEST = patched()\n"
    )
    (tmp_path / "test_it.py").write_text(
        "import conftest\n\ndef test_patched():\n    assert conftest.PATCHED_AT_CONFTEST\n"
    )
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    run = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", str(tmp_path)]
    plugged = subprocess.run(
        [*run[:3], "-p", "pallas_compat.pytest_plugin", *run[3:]],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    assert plugged.returncode == 0, plugged.stdout
    assert (
        f"pallas-compat {pallas_compat.__version__}: patch() installed into JAX " in plugged.stdout
    )
    plain = subprocess.run(
        run, cwd=tmp_path, capture_output=True, text=True, stdin=subprocess.DEVNULL, check=False
    )
    assert plain.returncode == 1, plain.stdout  # the test can fail: without the plugin it does
