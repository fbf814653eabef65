"""kernels/corpus/_mode.py: ``--mode gpu`` compiles the GPU cases and runs them on the GPU.
This machine has none: the mode refuses in one line, and a case attempted in it shows that
the interpreter was really off (JAX's CPU backend refuses a compiled ``pallas_call``)."""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from kernels.corpus._mode import gpu_device, wanted
from kernels.corpus._run import attempt
from pallas_compat import pl

REPO = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.skipif(
    gpu_device() is not None, reason="a GPU is here: nox -s gpu runs the gpu mode for real"
)


@pytest.mark.parametrize("corpus", ["kernels.corpus", "kernels.thirdparty"])
def test_the_gpu_mode_without_a_gpu_is_one_line_and_exit_2(corpus: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", corpus, "--mode", "gpu"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert done.stderr.strip() == (
        f"python -m {corpus}: error: --mode gpu: no GPU here (JAX sees none); run it where one is"
    )


def test_the_gpu_mode_takes_only_gpu_cases() -> None:
    assert wanted("GPU", "gpu") and not wanted("TPU", "gpu")
    assert wanted("TPU", "interpret") and wanted("GPU", "interpret")


class Case:
    """A GPU case that asks for the interpreter, as the corpus cases do."""

    hardware = "GPU"
    precision = "highest"
    atol = 0.0
    device = None

    @staticmethod
    def machine() -> contextlib.AbstractContextManager[None]:
        return contextlib.nullcontext()

    @staticmethod
    def run(module: ModuleType) -> Any:
        def double(x_ref: Any, o_ref: Any) -> None:
            o_ref[...] = 2.0 * x_ref[...]

        x = jnp.ones((8, 128), jnp.float32)
        return pl.pallas_call(double, out_shape=x, interpret=True)(x)

    @staticmethod
    def reference() -> np.ndarray:
        return np.full((8, 128), 2.0)

    finish = staticmethod(np.asarray)


@pytest.mark.release
def test_a_case_in_the_gpu_mode_is_compiled_not_interpreted(tmp_path: Path) -> None:
    interpreted = attempt(Case(), "native", lambda: ModuleType("m"), "mode_case", tmp_path)
    assert interpreted["status"] == "works" and interpreted["precision"] == "highest"
    compiled = attempt(Case(), "native", lambda: ModuleType("m"), "mode_case", tmp_path, "gpu")
    assert compiled["status"] == "error" and "lowered" not in compiled
    assert jax.default_backend() == "cpu"  # whose refusal this is: the CPU backend's


@pytest.mark.release
def test_the_tpu_compile_mode_compiles_per_chip_or_says_what_it_needs(tmp_path: Path) -> None:
    """Opt-in: with libtpu the TPU example kernel compiles for every chip by every route;
    without it the mode is refused in one line that names the install."""
    out = tmp_path / "tc.json"
    done = subprocess.run(
        [sys.executable, "-m", "kernels.corpus", "--mode", "tpu_compile", "--only", "TPU example",
         "--out", str(out)],
        cwd=REPO, capture_output=True, text=True, timeout=600,
        env={**os.environ, "ALLOW_MULTIPLE_LIBTPU_LOAD": "1"},  # this process may hold libtpu
    )  # fmt: skip
    if importlib.util.find_spec("libtpu") is None:
        assert done.returncode == 2 and "jax[tpu]" in done.stderr.strip().splitlines()[-1]
        return
    assert done.returncode == 0, done.stderr
    records = json.loads(out.read_text())["results"]
    assert records and all(
        set(r["compiled"].values()) == {"fits"} for r in records if r["status"] == "works"
    )
