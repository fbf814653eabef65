"""kernels/_measured.py: a committed result is the same bytes on every machine.

The two XLA CPU configurations below stand for two machines: one thread pool or many, one
device or four. Each reduces in another order, so the measured errors differ in their last
digits; the committed records must not, and the measured errors go to the timings file.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
REAL = Path(__file__).parent / "fixtures" / "real" / "jax_0_4_30"
#: Two machines, as XLA's CPU client sees them.
CONFIGURATIONS = {
    "one thread, one device": "--xla_cpu_multi_thread_eigen=false",
    "many threads, four devices": "--xla_force_host_platform_device_count=4",
}


def run_as(flags: str, *argv: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "XLA_FLAGS": flags}
    return subprocess.run(
        [sys.executable, *argv], cwd=REPO, env=env, capture_output=True, text=True, timeout=600
    )


def on_both_machines(tmp_path: Path, *argv: str) -> list[tuple[bytes, dict]]:
    """The committed result's bytes and the side file's contents, once per configuration."""
    seen = []
    for i, flags in enumerate(CONFIGURATIONS.values()):
        out, timings = tmp_path / f"out-{i}.json", tmp_path / f"timings-{i}.json"
        done = run_as(flags, *argv, "--out", str(out), "--timings", str(timings))
        assert done.returncode == 0, done.stderr[-2000:]
        seen.append((out.read_bytes(), json.loads(timings.read_text())))
    return seen


def test_a_chapter_kernel_records_the_same_bytes_on_both(tmp_path: Path) -> None:
    # softmax_grad_custom_vjp's error moved by a power of ten between two machines (issue 21)
    kernels = ("softmax_grad_custom_vjp", "matmul_accumulate")
    argv = ("-m", "kernels", "--modes", "interpret", "--only", *kernels)
    (first, side), (second, _) = on_both_machines(tmp_path, *argv)
    assert first == second
    results = json.loads(first)["results"]
    assert {r["status"] for r in results} == {"pass"}
    assert all(r["tolerance"].startswith("rtol=") for r in results)
    assert "max_abs_error" not in first.decode() and "seconds" not in first.decode()
    assert set(side["max_abs_error"]) == {f"{kernel} interpret" for kernel in kernels}


def test_a_corpus_case_records_the_same_bytes_on_both(tmp_path: Path) -> None:
    ops = tmp_path / "ops" / "0.4.30" / "gpu"
    ops.mkdir(parents=True)
    shutil.copy(REAL / "softmax.py", ops / "softmax.py")
    argv = ("-m", "kernels.corpus", "--ops", str(tmp_path / "ops"), "--only", "softmax, a power")
    (first, side), (second, _) = on_both_machines(tmp_path, *argv)
    assert first == second
    results = json.loads(first)["results"]
    assert results and {r["status"] for r in results} == {"works"}
    assert all(r["tolerance"] == "rtol=0 atol=1e-06" for r in results)
    assert "max_abs_error" not in first.decode()
    assert len(side["max_abs_error"]) == len(results)
