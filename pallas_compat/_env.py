"""Keep libtpu on loopback: set before anything can load it."""

from __future__ import annotations

import os

#: libtpu otherwise asks a cloud metadata server about the TPU it runs on.
LIBTPU_OFFLINE_ENV: dict[str, str] = {
    "TPU_SKIP_MDS_QUERY": "1",
    "TPU_WORKER_HOSTNAMES": "localhost",
    "TPU_WORKER_ID": "0",
}


def keep_libtpu_offline() -> None:
    """Set the libtpu variables so that it never leaves this machine; idempotent."""
    os.environ.update(LIBTPU_OFFLINE_ENV)
