"""Probes that misbehave on purpose, for the isolation tests (not part of the suite)."""

from __future__ import annotations

import os
import signal
import time

from probes._registry import probe


@probe("behaviours.a_fine_before")
def fine_before() -> int:
    return 1


@probe("behaviours.b_raises")
def raises() -> None:
    raise RuntimeError("boom")


@probe("behaviours.c_hangs", timeout_s=2)
def hangs() -> None:
    time.sleep(60)


@probe("behaviours.d_segfaults")
def segfaults() -> None:
    os.kill(os.getpid(), signal.SIGSEGV)


@probe("behaviours.e_exits")
def exits() -> None:
    os._exit(3)


@probe("behaviours.f_fine_after")
def fine_after() -> dict[str, str]:
    return {"still": "here"}
