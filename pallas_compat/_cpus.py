"""How many CPUs this process may use: the shim sizes XLA's CPU threads by it, the matrix its
parallel runs. A bottom-floor helper, so that both rooms ask one function."""

from __future__ import annotations

import os

__all__ = ["usable_cpus"]


def usable_cpus() -> int:
    """The CPUs this process may run on: under ``taskset`` or in a CPU-limited container,
    fewer than the machine has (``os.cpu_count``)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0)) or 1
    return os.cpu_count() or 1
