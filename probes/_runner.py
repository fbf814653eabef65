"""Run probe groups in child processes so that a crash or a hang costs only the probe that caused it.

A worker announces its plan, then a ``start`` and a ``done`` line per probe. When it dies or goes
silent past a probe's timeout, the runner records that probe as ``crashed`` or ``timeout`` and
starts a fresh worker for the rest of the group.

Workers are forked from this process once it has imported JAX (but before any backend exists),
which saves a multi-second import per worker; where that import fails, or on request, workers are
spawned as fresh interpreters instead. The scheduler is single-threaded, so forking is safe.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from common import ProbeStatus, clip, normalize
from pallas_compat.facts import PL, TPU

#: How long a worker may take to import JAX and plan, or to move between two probes.
STARTUP_TIMEOUT_S = 180.0
#: How long a worker that has reported everything may take to exit.
EXIT_TIMEOUT_S = 30.0
REPO_ROOT = Path(__file__).resolve().parent.parent

#: Imported once by the parent so that forked workers start warm. Failures are ignored here:
#: the inventory records them.
PRELOAD = ("jax", "jax.numpy", PL, TPU)

#: Probes compile many tiny interpreter programs; XLA's LLVM optimizations double the run time
#: and change no fact the probes record (numbers are recorded as verdicts at a tolerance).
FAST_COMPILE_FLAG = "--xla_backend_optimization_level=0"
#: prctl(2) option: the signal this process gets when its parent dies (Linux).
PR_SET_PDEATHSIG = 1


def use_fast_compile() -> None:
    """Add FAST_COMPILE_FLAG to XLA_FLAGS unless the caller chose an optimization level."""
    flags = os.environ.get("XLA_FLAGS", "")
    if "xla_backend_optimization_level" not in flags:
        os.environ["XLA_FLAGS"] = f"{flags} {FAST_COMPILE_FLAG}".strip()


def use_compilation_cache(folder: Path) -> None:
    """Point JAX's persistent compilation cache at ``folder`` and cache every executable.

    Set through the environment, before JAX is imported, so that forked and spawned workers
    share it. A warm cache halves the probes' compile time; executables that call back into
    Python (the TPU simulator's) are never cached, and the facts recorded do not change (the
    cache key holds the JAX and jaxlib versions, the XLA flags and the program)."""
    os.environ["JAX_COMPILATION_CACHE_DIR"] = str(folder)
    os.environ["JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS"] = "0"
    os.environ["JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES"] = "0"


def die_with_parent(parent: int) -> None:
    """End this worker when the runner ends, however it ends (kill -9 included).

    On Linux the kernel sends SIGKILL when the parent dies (``PR_SET_PDEATHSIG``); elsewhere a
    daemon thread notices that the parent is gone. A runner that died before this call is
    noticed at once."""
    import ctypes
    import threading

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        armed = libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0
    except (OSError, AttributeError):
        armed = False
    if os.getppid() != parent:
        os._exit(70)
    if armed:
        return

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(70)

    threading.Thread(target=watch, name="die-with-parent", daemon=True).start()


def fork() -> int:
    """os.fork() without Python's warning that this process has threads: JAX starts some, and
    the child only imports and runs Python, never touching a lock those threads could hold."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # "process is multi-threaded"
        return os.fork()


@dataclass(frozen=True)
class Group:
    """A set of probe modules that share one worker process."""

    name: str
    modules: tuple[str, ...]


@dataclass
class Outcome:
    """What became of one probe: ``ok``, ``error`` (it raised), ``timeout`` or ``crashed``."""

    key: str
    status: ProbeStatus
    value: Any = None
    error: dict[str, str] | None = None
    seconds: float = 0.0


@dataclass
class GroupResult:
    name: str
    outcomes: dict[str, Outcome] = field(default_factory=dict)
    failure: dict[str, str] | None = None
    seconds: float = 0.0
    workers: int = 0
    #: probe key -> what it tries, in words (from the worker's plan).
    titles: dict[str, str] = field(default_factory=dict)


class Worker:
    """One worker process: its pid, the read end of its result pipe, and its captured output."""

    def __init__(
        self, pid: int, fd: int, output: Any, popen: subprocess.Popen[bytes] | None = None
    ):
        self.pid, self.fd, self.output, self.popen = pid, fd, output, popen
        self.buffer = b""

    def feed(self) -> list[dict[str, Any]] | None:
        """Read what is available: the complete messages, or None at end of stream."""
        chunk = os.read(self.fd, 65536)
        if not chunk:
            return None
        self.buffer += chunk
        *lines, self.buffer = self.buffer.split(b"\n")
        return [json.loads(line) for line in lines if line.strip()]

    def kill(self) -> None:
        for kill in (os.killpg, os.kill):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                kill(self.pid, signal.SIGKILL)

    def finish(self) -> str:
        """Reap the process; describe how it ended, with the tail of what it printed."""
        if self.popen is not None:
            try:
                code = self.popen.wait(timeout=EXIT_TIMEOUT_S)
            except subprocess.TimeoutExpired:  # it said "end" but hangs on the way out
                self.kill()
                code = self.popen.wait()
        else:
            _, status = os.waitpid(self.pid, 0)
            code = os.waitstatus_to_exitcode(status)
        os.close(self.fd)
        self.output.seek(0)
        tail = self.output.read().decode(errors="replace").strip().splitlines()[-12:]
        self.output.close()
        how = f"killed by {signal.Signals(-code).name}" if code < 0 else f"exit status {code}"
        return clip(normalize(how + ("\n" + "\n".join(tail) if tail else "")))


class Launcher:
    """Starts workers by forking a warm parent, or by spawning ``python -m probes._worker``."""

    def __init__(
        self,
        mode: str = "auto",
        python: str = sys.executable,
        fast_compile: bool = True,
        compilation_cache: Path | None = None,
    ) -> None:
        self.python = python
        if fast_compile:
            use_fast_compile()
        if compilation_cache is not None:
            use_compilation_cache(compilation_cache)
        self.fork = mode == "fork" or (
            mode == "auto" and python == sys.executable and self._preload()
        )

    @staticmethod
    def _preload() -> bool:
        from pallas_compat.shim._libtpu_env import keep_libtpu_offline

        keep_libtpu_offline()
        try:
            importlib.import_module("jax")
        except Exception:
            return False
        for name in PRELOAD[1:]:
            with contextlib.suppress(Exception):
                importlib.import_module(name)
        return True

    def start(self, group: Group, skip: set[str]) -> Worker:
        read_fd, write_fd = os.pipe()
        output = tempfile.TemporaryFile()  # noqa: SIM115 -- owned and closed by the Worker
        worker = (
            self._fork(group, skip, write_fd, output)
            if self.fork
            else self._spawn(group, skip, write_fd, output)
        )
        os.close(write_fd)
        worker.fd = read_fd
        return worker

    def _fork(self, group: Group, skip: set[str], write_fd: int, output: Any) -> Worker:
        parent = os.getpid()
        pid = fork()
        if pid == 0:  # the child: never return into the runner
            code = 70
            try:
                die_with_parent(parent)
                os.setsid()
                os.dup2(output.fileno(), 1)
                os.dup2(output.fileno(), 2)
                # The parent's sys.stdout may not write to fd 1 (pytest replaces it); rebind both.
                sys.stdout = open(1, "w", buffering=1, closefd=False)  # noqa: SIM115
                sys.stderr = open(2, "w", buffering=1, closefd=False)  # noqa: SIM115
                import faulthandler

                if faulthandler.is_enabled():  # point crash dumps at this worker's own output
                    faulthandler.enable(file=sys.stderr)
                from probes._worker import run

                run(write_fd, list(group.modules), skip)
                code = 0
            except BaseException:
                import traceback

                traceback.print_exc()
            finally:
                for stream in (sys.stdout, sys.stderr):
                    stream.flush()
                os._exit(code)
        return Worker(pid, -1, output)

    def _spawn(self, group: Group, skip: set[str], write_fd: int, output: Any) -> Worker:
        cmd = [self.python, "-m", "probes._worker", "--fd", str(write_fd)]
        cmd += ["--parent", str(os.getpid())]
        cmd += [arg for key in sorted(skip) for arg in ("--skip", key)]
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), env.get("PYTHONPATH")]))
        popen = subprocess.Popen(
            [*cmd, *group.modules],
            pass_fds=(write_fd,),
            stdin=subprocess.DEVNULL,
            stdout=output,
            stderr=output,
            env=env,
            cwd=REPO_ROOT,
            start_new_session=True,
        )
        return Worker(popen.pid, -1, output, popen)


class GroupRun:
    """The state of one group: its planned probes, its outcomes, its current worker."""

    def __init__(self, group: Group, launcher: Launcher) -> None:
        self.group, self.launcher = group, launcher
        self.result = GroupResult(group.name)
        self.planned: list[str] | None = None
        self.timeouts: dict[str, float] = {}
        self.current: str | None = None
        self.progressed = False
        self.started = time.perf_counter()
        self.deadline = 0.0
        self.done = False
        self.worker = self._start()

    def _start(self) -> Worker:
        self.result.workers += 1
        self.current, self.progressed = None, False
        self.deadline = time.monotonic() + STARTUP_TIMEOUT_S
        return self.launcher.start(self.group, set(self.result.outcomes))

    def on_readable(self) -> None:
        messages = self.worker.feed()
        if messages is None:
            self._on_exit()
            return
        for message in messages:
            self._on_message(message)

    def _on_message(self, message: dict[str, Any]) -> None:
        if "plan" in message:
            if self.planned is None:
                self.planned = [key for key, *_ in message["plan"]]
            self.timeouts.update({key: float(t) for key, t, *_ in message["plan"]})
            self.result.titles.update({key: title for key, _, title in message["plan"]})
        elif "start" in message:
            self.current = message["start"]
            self.deadline = time.monotonic() + self.timeouts.get(self.current, STARTUP_TIMEOUT_S)
            return
        elif "done" in message:
            key = message["done"]
            self.result.outcomes[key] = Outcome(
                key,
                ProbeStatus(message["status"]),
                message.get("value"),
                message.get("error"),
                message["seconds"],
            )
            self.current, self.progressed = None, True
        elif "end" in message:
            self.worker.finish()
            self._finish()
            return
        self.deadline = time.monotonic() + STARTUP_TIMEOUT_S

    def on_deadline(self) -> None:
        self.worker.kill()
        how = self.worker.finish()
        if self.current is None:
            self.result.failure = {"type": "timeout", "message": f"worker silent too long; {how}"}
        else:
            limit = self.timeouts.get(self.current, STARTUP_TIMEOUT_S)
            self.result.outcomes[self.current] = Outcome(
                self.current,
                ProbeStatus.TIMEOUT,
                error={"type": "timeout", "message": f"no result within {limit:.0f} s"},
            )
        self._restart_or_finish()

    def _on_exit(self) -> None:
        how = self.worker.finish()
        if self.current is not None:
            self.result.outcomes[self.current] = Outcome(
                self.current, ProbeStatus.CRASHED, error={"type": "crashed", "message": how}
            )
        elif self.planned is None or not self.progressed:
            self.result.failure = {"type": "crashed", "message": how}
        self._restart_or_finish()

    def _restart_or_finish(self) -> None:
        left = self.planned is None or len(self.result.outcomes) < len(self.planned)
        if self.result.failure is None and left:
            self.worker = self._start()
        else:
            self._finish()

    def _finish(self) -> None:
        for key in self.planned or ():
            if key not in self.result.outcomes:
                lost = self.result.failure or {
                    "type": "crashed",
                    "message": "the restarted worker did not plan it",
                }
                self.result.outcomes[key] = Outcome(key, ProbeStatus.CRASHED, error=lost)
        self.result.seconds = round(time.perf_counter() - self.started, 3)
        self.done = True


def run_groups(
    groups: Sequence[Group],
    jobs: int,
    launcher: Launcher | None = None,
    on_done: Callable[[GroupResult], None] | None = None,
) -> list[GroupResult]:
    """Run groups ``jobs`` at a time, in the given order (put the slowest first)."""
    launcher = launcher or Launcher()
    waiting = list(groups)
    active: list[GroupRun] = []
    finished: dict[str, GroupResult] = {}
    try:
        _schedule(waiting, active, finished, jobs, launcher, on_done)
    except BaseException:  # Ctrl-C or a bug here: no worker outlives the run
        for run in active:
            run.worker.kill()
            with contextlib.suppress(Exception):
                run.worker.finish()
        raise
    return [finished[group.name] for group in groups]


def _schedule(
    waiting: list[Group],
    active: list[GroupRun],
    finished: dict[str, GroupResult],
    jobs: int,
    launcher: Launcher,
    on_done: Callable[[GroupResult], None] | None,
) -> None:
    while waiting or active:
        while waiting and len(active) < max(1, jobs):
            active.append(GroupRun(waiting.pop(0), launcher))
        wait = max(0.0, min(run.deadline for run in active) - time.monotonic())
        ready, _, _ = select.select([run.worker.fd for run in active], [], [], wait)
        now = time.monotonic()
        for run in list(active):
            if run.worker.fd in ready:
                run.on_readable()
            elif run.deadline <= now:
                run.on_deadline()
            if run.done:
                active.remove(run)
                finished[run.group.name] = run.result
                if on_done is not None:
                    on_done(run.result)
