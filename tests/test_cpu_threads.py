from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from pallas_compat import _cpus
from pallas_compat.shim._cpu_threads import THREAD_COUNT_ENV, keep_callbacks_unblocked

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture
def unset(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for name in THREAD_COUNT_ENV:
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def test_one_cpu_gets_two_client_threads(unset: pytest.MonkeyPatch) -> None:
    unset.setattr(_cpus, "usable_cpus", lambda: 1)
    assert keep_callbacks_unblocked() == {"PJRT_NPROC": "2"}
    assert os.environ["PJRT_NPROC"] == "2"
    assert keep_callbacks_unblocked() == {}


def test_the_users_thread_count_wins(unset: pytest.MonkeyPatch) -> None:
    unset.setattr(_cpus, "usable_cpus", lambda: 1)
    unset.setenv("NPROC", "1")
    assert keep_callbacks_unblocked() == {}
    assert "PJRT_NPROC" not in os.environ


def test_two_cpus_are_left_as_they_are(unset: pytest.MonkeyPatch) -> None:
    unset.setattr(_cpus, "usable_cpus", lambda: 2)
    assert keep_callbacks_unblocked() == {}
    assert not any(name in os.environ for name in THREAD_COUNT_ENV)


#: A TPU-simulator kernel with a 4 MiB input, in a process limited to one CPU: with one client
#: thread it hung on JAX 0.5.3 to 0.10.2 (``NPROC=1`` brings the hang back there).
ONE_CPU_SIMULATION = """
import os
os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
import numpy as np
import pallas_compat
from pallas_compat import pl
import jax

def double(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2.0

x = np.random.default_rng(0).standard_normal((1024, 1024), dtype=np.float32)
block = pl.BlockSpec((256, 256), lambda i, j: (i, j))
out = pl.pallas_call(
    double,
    out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
    grid=(4, 4),
    in_specs=[block],
    out_specs=block,
    interpret=pallas_compat.interpret("tpu_sim"),
)(x)
np.testing.assert_array_equal(np.asarray(out), x * 2.0)
print(os.environ.get("PJRT_NPROC"))
"""


def has_tpu_simulator() -> bool:
    from pallas_compat import FEATURES_BY_KEY, Resolution, resolve

    return resolve(FEATURES_BY_KEY["tpu_simulator"]).status is not Resolution.UNAVAILABLE


@pytest.mark.release
@pytest.mark.skipif(not hasattr(os, "sched_getaffinity"), reason="no CPU affinity here")
def test_the_tpu_simulator_finishes_on_one_cpu() -> None:
    if not has_tpu_simulator():
        pytest.skip("this JAX has no TPU simulator (before 0.5.1)")
    env = {k: v for k, v in os.environ.items() if k not in THREAD_COUNT_ENV}
    try:
        done = subprocess.run(
            [sys.executable, "-c", ONE_CPU_SIMULATION],
            cwd=REPO,
            env=env,
            capture_output=True,
            text=True,
            timeout=180,
        )
    except subprocess.TimeoutExpired:
        pytest.fail("the TPU simulator hung in a process limited to one CPU")
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split()[-1] == "2"
