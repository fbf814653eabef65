"""The child processes of ``pallas-compat matrix`` (uv, migrate, the user's command), each in
its own session so that a test suite's signals stay its own, and all stopped together when
the run is interrupted or aborted."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import IO

_running: set[subprocess.Popen[bytes]] = set()
_lock = threading.Lock()
#: Set when the run stops: no new process starts after it.
stopping = threading.Event()


class Stopped(Exception):
    """The run was interrupted or aborted before this process could start."""


def run(
    command: Sequence[str],
    *,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    out: IO[bytes] | int | None = None,
) -> int:
    """Run ``command`` to its end (stdin closed, output to ``out``); its exit status."""
    with _lock:
        if stopping.is_set():
            raise Stopped
        process = subprocess.Popen(
            list(command),
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        _running.add(process)
    try:
        return process.wait()
    finally:
        with _lock:
            _running.discard(process)


def stop_all(grace: float = 5.0) -> None:
    """Stop every running process group: SIGTERM, then SIGKILL after ``grace`` seconds."""
    with _lock:
        stopping.set()
        running = list(_running)
    for process in running:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGTERM)
    for process in running:
        try:
            process.wait(grace)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()
