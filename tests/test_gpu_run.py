"""scripts/gpu_run.py, what ``nox -s gpu`` runs: on a machine without a GPU it says so,
writes nothing and succeeds; the session stays out of the default run."""

from __future__ import annotations

import runpy
import subprocess
import sys
from pathlib import Path
from unittest import mock

import pytest

from kernels.corpus._mode import gpu_device

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "scripts"))

from gpu_run import slug  # noqa: E402


@pytest.mark.skipif(gpu_device() is not None, reason="a GPU is here: the script runs for real")
def test_without_a_gpu_it_is_skipped_and_writes_nothing(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "scripts/gpu_run.py", "--out", str(tmp_path / "gpu")],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("no GPU: skipped (")
    assert not (tmp_path / "gpu").exists()


def test_a_device_name_is_a_folder_name() -> None:
    assert slug("NVIDIA H200") == "nvidia-h200"
    assert slug("NVIDIA H100 80GB HBM3") == "nvidia-h100-80gb-hbm3"


def test_the_gpu_session_is_opt_in() -> None:
    with mock.patch.dict(sys.modules, {"nox": mock.MagicMock()}):
        namespace = runpy.run_path(str(REPO / "noxfile.py"))
    assert callable(namespace["gpu"])
    assert "gpu" not in namespace["longest_first"]()
