from __future__ import annotations

import os
import subprocess
import sys

from pallas_compat.shim._libtpu_env import LIBTPU_OFFLINE_ENV, keep_libtpu_offline


def test_importing_the_package_keeps_libtpu_on_loopback() -> None:
    code = "import os, pallas_compat; print(os.environ['TPU_SKIP_MDS_QUERY'], os.environ['TPU_WORKER_HOSTNAMES'])"
    env = {k: v for k, v in os.environ.items() if not k.startswith("TPU_")}
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout.split() == ["1", "localhost"]


def test_keep_libtpu_offline_sets_only_what_is_unset(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    for name in LIBTPU_OFFLINE_ENV:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TPU_WORKER_HOSTNAMES", "10.0.0.7,10.0.0.8")
    assert keep_libtpu_offline() == {"TPU_SKIP_MDS_QUERY": "1", "TPU_WORKER_ID": "0"}
    assert os.environ["TPU_WORKER_HOSTNAMES"] == "10.0.0.7,10.0.0.8"
    assert keep_libtpu_offline() == {}
