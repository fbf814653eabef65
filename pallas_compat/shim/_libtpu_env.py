"""Keep libtpu on loopback: set before anything can load it, never over the user's values."""

from __future__ import annotations

import os

#: libtpu otherwise asks a cloud metadata server which TPU it runs on, and who its peers are.
LIBTPU_OFFLINE_ENV: dict[str, str] = {
    "TPU_SKIP_MDS_QUERY": "1",
    "TPU_WORKER_HOSTNAMES": "localhost",
    "TPU_WORKER_ID": "0",
}


def keep_libtpu_offline() -> dict[str, str]:
    """Set each libtpu variable the user has not set (a multi-host TPU job sets its own
    worker id and host list, which must win); idempotent. Returns what it set."""
    missing = {name: value for name, value in LIBTPU_OFFLINE_ENV.items() if name not in os.environ}
    os.environ.update(missing)
    return missing
