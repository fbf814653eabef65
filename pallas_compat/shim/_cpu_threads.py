"""Enough XLA CPU client threads for the TPU simulator on a one-CPU process.

XLA's CPU client runs host callbacks on a thread pool sized from the CPUs the process may use.
The TPU simulator (``pltpu.InterpretParams``) is built on ``io_callback``, and with one thread
a callback can wait for a buffer copy queued behind it on that same thread: the program never
finishes (JAX 0.5.3 to 0.10.2 under ``taskset -c 0``, a 4 MiB input; 0.11 and 0.12 finish). A
second thread ends the deadlock. The size comes from ``PJRT_NPROC`` (then ``NPROC``) when set,
read once, when the CPU client is made: so this is set on import, before any computation, and
never over the user's value.
"""

from __future__ import annotations

import os

from pallas_compat import _cpus

#: What XLA's CPU client reads for its thread pool's size, the first set one winning.
THREAD_COUNT_ENV = ("PJRT_NPROC", "NPROC")
#: The fewest threads with which a callback never waits on its own thread.
CALLBACK_SAFE_THREADS = 2


def keep_callbacks_unblocked() -> dict[str, str]:
    """On a process that may use fewer than two CPUs, size the CPU client's pool to two, unless
    the user sized it; idempotent. Returns what it set."""
    if any(name in os.environ for name in THREAD_COUNT_ENV):
        return {}
    if _cpus.usable_cpus() >= CALLBACK_SAFE_THREADS:
        return {}
    added = {THREAD_COUNT_ENV[0]: str(CALLBACK_SAFE_THREADS)}
    os.environ.update(added)
    return added
