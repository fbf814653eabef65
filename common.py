"""What ``probes``, ``kernels`` and ``report`` share, kept in one place (not shipped).

Status words, command lines that fail the same way, error messages made comparable across
machines, the TPU simulator put back to a clean state after a kernel raised in it, the schema
ids of the three kinds of results, and the release matrix (``jax-matrix.json``) that nox, the
scripts and the report read. Atomic writing is the shim's own (``migrate`` needs it too); it
is re-exported here so that the harness has one place to import it from.
"""

from __future__ import annotations

import argparse
import contextlib
import enum
import json
import logging
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from pallas_compat._file_writes import (
    save_elsewhere,
    unwritable,
    write_all,
    write_atomic,
    write_or_keep,
)

__all__ = [
    "CORPUS_SCHEMA",
    "KERNELS_SCHEMA",
    "SNAPSHOT_SCHEMA",
    "THIRDPARTY_SCHEMA",
    "TRACEBACK",
    "CallOutcome",
    "CorpusStatus",
    "KernelStatus",
    "LoweringStatus",
    "Matrix",
    "MatrixError",
    "Parser",
    "ProbeStatus",
    "UsageError",
    "Word",
    "cache_lock",
    "clip",
    "load_matrix",
    "normalize",
    "one_line_error",
    "python_minor",
    "quiet_callback_logs",
    "reset_simulator",
    "run_cli",
    "save_elsewhere",
    "strip_tracebacks",
    "unwritable",
    "write_all",
    "write_atomic",
    "write_or_keep",
    "write_side_file",
]

SNAPSHOT_SCHEMA = "pallas-compat/snapshot/1"
KERNELS_SCHEMA = "pallas-compat/kernels/1"
#: /2: each record carries ``lowered``, the kernel lowered with ``interpret`` off for its backend.
CORPUS_SCHEMA = "pallas-compat/corpus/2"
THIRDPARTY_SCHEMA = "pallas-compat/thirdparty/2"


# -- status words -----------------------------------------------------------------------------


class Word(str, enum.Enum):
    """A status word: its value is what the results files and the report say."""

    def __str__(self) -> str:
        return str(self.value)


class KernelStatus(Word):
    """How one chapter kernel ended under one mode (``reports/kernels``)."""

    PASS = "pass"
    FAIL = "fail"
    ERROR = "error"
    UNAVAILABLE = "unavailable"
    NOT_APPLICABLE = "n/a"
    #: A wrong kernel whose bug the mode shows (a wrong result or an error) ...
    CAUGHT = "caught"
    #: ... or hides (it passes).
    MISSED = "missed"


class CorpusStatus(Word):
    """How one of JAX's own kernels ran on a release by one route (``reports/corpus``)."""

    WORKS = "works"
    WRONG = "wrong"
    ERROR = "error"
    #: The old kernel needs a non-Pallas JAX module the release lacks: not counted.
    DEPENDENCY = "dependency"
    #: No interpreter of the release runs the kernel (Mosaic GPU before JAX 0.11.1, or a
    #: feature its interpreter lacks): the verdict is the lowering's alone.
    LOWERED_ONLY = "lowered only"


class LoweringStatus(Word):
    """Whether a real kernel lowered for the hardware it was written for, ``interpret`` off:
    Triton or Mosaic GPU for a GPU kernel, Mosaic for a TPU one (``record["lowered"]``)."""

    LOWERS = "lowers"
    FAILS = "fails"


class DoctorVerdict(Word):
    """Whether ``doctor``'s verdict on a kernel's files matched a plain run on a release."""

    AGREES = "agrees"
    #: The plain run failed, and no use doctor says breaks there ran.
    MISSED = "missed"
    #: The plain run worked, yet a use doctor says breaks there ran.
    FALSE_ALARM = "false alarm"
    #: The plain run failed for a change of JAX outside Pallas, and doctor flagged nothing
    #: that ran: not doctor's to find (a jax.numpy change).
    NOT_PALLAS = "not Pallas's"


class CallOutcome(Word):
    """What one observed call did (the probes' records)."""

    RETURNED = "returned"
    RAISED = "raised"


class ProbeStatus(Word):
    """How one probe ended (the snapshot's summary)."""

    OK = "ok"
    ERROR = "error"
    CRASHED = "crashed"
    TIMEOUT = "timeout"


# -- command lines ---------------------------------------------------------------------------


class UsageError(Exception):
    """Bad input from the person at the keyboard: one line, exit status 2."""


class Parser(argparse.ArgumentParser):
    """argparse that raises UsageError (one line) instead of printing usage and exiting."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(message)


def run_cli(prog: str, main: Callable[[Sequence[str]], int], argv: Sequence[str] | None) -> int:
    """``main(argv)`` with the harness's contract: a usage error is one line on stderr and exit
    status 2, Ctrl-C is one line and 130 (nothing half-written: every writer is atomic)."""
    try:
        return main(sys.argv[1:] if argv is None else argv)
    except UsageError as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{prog}: interrupted; nothing was written", file=sys.stderr)
        return 130


# -- messages --------------------------------------------------------------------------------

MAX_MESSAGE = 2000
TRACEBACK = "Traceback (most recent call last):"

_ADDRESS = re.compile(r"0x[0-9a-fA-F]{4,}")
#: ``<jax._src.pallas.core.NoBlockSpec object at 0x7f...>`` -> ``<NoBlockSpec object>``, and
#: ``<function f at 0x...>`` -> ``<function f>``: the address says nothing, the name does.
_DEFAULT_REPR = re.compile(r"<(?:[\w.]+\.)?(\w+( object)?|function [\w.<>]+) at 0x[0-9a-fA-F]{4,}>")
_SITE_PACKAGES = re.compile(r"(?:/[^\s'\"]+)?/(?:site|dist)-packages/")
#: XLA's CPU client names the buffer event an asynchronous error reached it through, or not,
#: as the threads' timing falls: the same callback error with and without this prefix.
_ASYNC_EVENT = re.compile(r"\bBuffer Definition Event: ")
_REPO = re.compile(re.escape(str(Path(__file__).resolve().parent)) + r"/([\w/.]+\.py)(?::\d+)?")
_TRACEBACK_FRAME = re.compile(r'^\s+File "')


def normalize(text: str) -> str:
    """Drop what changes from run to run or machine to machine: addresses, install paths,
    the asynchronous path an error took."""
    text = _ASYNC_EVENT.sub("", _DEFAULT_REPR.sub(r"<\1>", text))
    text = _ADDRESS.sub("0x…", text)
    text = _REPO.sub(r"<repo>/\1", text)
    return _SITE_PACKAGES.sub("<site-packages>/", text)


def clip(text: str, limit: int = MAX_MESSAGE) -> str:
    return text if len(text) <= limit else text[:limit] + f"… [{len(text) - limit} more chars]"


def strip_tracebacks(text: str) -> str:
    """Drop Python traceback frames that some errors embed (io_callback): they name our own code."""
    if TRACEBACK not in text:
        return text
    kept, in_frame = [], False
    for line in text.replace(TRACEBACK, "").splitlines():
        if _TRACEBACK_FRAME.match(line):
            in_frame = True
            continue
        if in_frame and line.startswith("    "):
            continue
        in_frame = False
        kept.append(line.rstrip())
    return "\n".join(kept)


def one_line_error(exc: BaseException) -> str:
    """``Type: first line``; for an error raised inside a callback (the simulator's), whose
    message embeds a traceback, the callback's own error joined onto one line."""
    message = str(exc)
    lines = normalize(strip_tracebacks(message)).strip().splitlines()
    if TRACEBACK in message:
        lines = [" ".join(line.strip() for line in lines if line.strip())]
    return f"{type(exc).__name__}: {lines[0][:300] if lines else ''}"


# -- the TPU simulator -----------------------------------------------------------------------


@contextlib.contextmanager
def quiet_callback_logs() -> Iterator[None]:
    """The TPU simulator reports a caught bug by raising inside an io_callback, and JAX logs
    that traceback before re-raising it; the record keeps the error, the log is noise."""
    logger = logging.getLogger("jax._src.callback")
    level = logger.level
    logger.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        logger.setLevel(level)


def reset_simulator() -> None:
    """After a kernel raised in the simulator: clear its global state and the error it leaves
    in JAX's ordered-effects token. Without the token reset, a raise on 0.6.2 can fail every
    later kernel of the process with ``Buffer Definition Event: <the old error>`` (timing
    decides whether it does: seen in CI, not on a quiet machine)."""
    import pallas_compat

    with contextlib.suppress(Exception):
        pallas_compat.reset_interpret_state()


# -- the release matrix ------------------------------------------------------------------------

#: Interpreters nox may use, in order of preference (one 3.12 covers 0.4.30 to 0.12).
PYTHONS = ("3.12", "3.13", "3.11", "3.10")


class MatrixError(Exception):
    """A bad matrix file: one line naming the file."""


@dataclass(frozen=True)
class Matrix:
    path: Path
    default: tuple[str, ...]
    requires_python: dict[str, str | None]

    @property
    def every(self) -> tuple[str, ...]:
        return tuple(self.requires_python)

    def python_for(self, release: str) -> str:
        """The first preferred interpreter that the release's Requires-Python allows."""
        spec = SpecifierSet(self.requires_python.get(release) or "")
        return next((p for p in PYTHONS if Version(p) in spec), PYTHONS[0])


def load_matrix(path: Path) -> Matrix:
    try:
        data = json.loads(path.read_text())
    except OSError as exc:
        raise MatrixError(f"{path}: cannot read ({exc.strerror})") from None
    except json.JSONDecodeError as exc:
        raise MatrixError(f"{path}: not valid JSON (line {exc.lineno}: {exc.msg})") from None
    try:
        every = {entry["jax"]: entry.get("requires_python") for entry in data["every"]}
        default = tuple(data["default"])
    except (KeyError, TypeError):
        raise MatrixError(f"{path}: needs 'default' and 'every' lists") from None
    for release in (*every, *default):
        try:
            Version(release)
        except InvalidVersion:
            raise MatrixError(f"{path}: {release!r} is not a release number") from None
    for release, spec in every.items():
        try:
            SpecifierSet(spec or "")
        except InvalidSpecifier:
            raise MatrixError(f"{path}: JAX {release} has a bad requires_python {spec!r}") from None
    unknown = [r for r in default if r not in every]
    if unknown:
        raise MatrixError(
            f"{path}: unknown JAX release {unknown[0]} in 'default' (not in 'every'); "
            "refresh with `nox -s refresh_matrix`"
        )
    return Matrix(path, default, every)


def python_minor() -> str:
    """``3.12``: what a result depends on. The patch release differs from machine to machine
    and changes nothing a result records, so it stays out of the committed files."""
    return ".".join(map(str, sys.version_info[:2]))


def write_side_file(
    path: Path,
    prog: str,
    seconds: dict[str, float],
    measured: dict[str, float],
    compiles: dict[str, int] | None = None,
    lowerings: dict[str, int] | None = None,
) -> bool:
    """The timings and measured error magnitudes of one run, beside (never inside) its
    committed result: they move with the CPU, XLA's thread count and the machine's load.
    ``compiles``, ``lowerings``: how many the run asked for, and how many it shared."""
    import datetime

    created = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    counted = {"compiles": compiles, "lowerings": lowerings}
    more = {name: count for name, count in counted.items() if count is not None}
    text = json.dumps(
        {"created": created, "seconds": seconds, "max_abs_error": measured, **more},
        indent=1,
        sort_keys=True,
        allow_nan=True,
    )
    return write_or_keep(path, text + "\n", prog)


@contextlib.contextmanager
def cache_lock(cache: Path) -> Iterator[None]:
    """One fetcher at a time per cache: ``nox -j`` runs sessions that fetch the same wheels
    at once, and two unpackings of one release must not race for its folder."""
    cache.mkdir(parents=True, exist_ok=True)
    try:
        import fcntl
    except ImportError:  # Windows: no advisory locks; run the fetchers one at a time there
        yield
        return
    with open(cache / ".lock", "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
