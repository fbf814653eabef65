"""The virtual environments of ``pallas-compat matrix``: one per project, release and route,
made with uv, kept in the cache and reused while what was installed into it is unchanged.

Each holds the user's project (editable, from the copy the route runs in, so that the copy's
code is what runs), exactly one JAX and jaxlib, and this pallas-compat, so that code written
against the shim, and the ``patch`` route, find it.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from urllib.parse import unquote, urlparse

from pallas_compat._file_writes import write_atomic
from pallas_compat._usage import UsageError
from pallas_compat._version import __version__
from pallas_compat.matrix import _processes as _processes

#: What a project may hold that tells how it installs; a change to any means a reinstall.
PROJECT_FILES = ("pyproject.toml", "setup.py", "setup.cfg")
STAMP = "pallas-compat-matrix.json"


def cache_root() -> Path:
    """``$PALLAS_COMPAT_CACHE``, else ``pallas-compat`` under ``$XDG_CACHE_HOME`` (``~/.cache``),
    as the project's fetch scripts use."""
    explicit = os.environ.get("PALLAS_COMPAT_CACHE")
    if explicit:
        return Path(explicit)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "pallas-compat"


@functools.cache
def uv() -> str:
    """The uv binary: on PATH, else the one the ``uv`` package ships."""
    found = shutil.which("uv")
    if found:
        return found
    try:
        from uv import find_uv_bin  # type: ignore[import-not-found, unused-ignore]

        return str(find_uv_bin())
    except (ImportError, FileNotFoundError):
        raise UsageError(
            "matrix makes its environments with uv, which is not installed: "
            "pip install uv (or pallas-compat[matrix])"
        ) from None


@functools.cache
def interpreter(minor: str) -> str | None:
    """An installed Python ``minor`` (``3.12``), as uv finds it (pyenv, the system, uv's own);
    None where there is none."""
    found = subprocess.run(
        [uv(), "python", "find", "--no-project", minor],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    path = found.stdout.strip()
    return path if found.returncode == 0 and path else None


def first_interpreter(minors: tuple[str, ...]) -> tuple[str, str] | None:
    """(minor, path) of the first of ``minors`` installed here."""
    for minor in minors:
        path = interpreter(minor)
        if path:
            return minor, path
    return None


@functools.cache
def own_requirement() -> tuple[str, ...]:
    """How to install the pallas-compat that runs now: its checkout (editable), the file or
    folder it was installed from, else its release by name."""
    here = Path(__file__).resolve().parents[2]
    project = here / "pyproject.toml"
    if project.is_file() and 'name = "pallas-compat"' in project.read_text():
        # editables: the runtime of hatch's exact editable mode, which uv leaves out
        return ("-e", str(here), "editables")
    try:
        dist = metadata.distribution("pallas-compat")
    except metadata.PackageNotFoundError:
        return (f"pallas-compat=={__version__}",)
    direct = dist.read_text("direct_url.json")
    if direct:
        url = json.loads(direct).get("url", "")
        parsed = urlparse(url)
        if parsed.scheme == "file" and Path(unquote(parsed.path)).exists():
            return (unquote(parsed.path),)
    return (f"pallas-compat=={dist.version}",)


def installable(project: Path) -> bool:
    """A project with a build recipe is installed; a plain folder of kernels and tests is not."""
    return any((project / name).is_file() for name in PROJECT_FILES)


@dataclass(frozen=True)
class Environment:
    root: Path

    @property
    def bin(self) -> Path:
        return self.root / ("Scripts" if sys.platform == "win32" else "bin")

    def variables(self, base: dict[str, str]) -> dict[str, str]:
        """``base`` with this environment first on PATH, as ``activate`` would, and its
        processes keeping their bytecode in it.

        uv installs without bytecode, and where ``PYTHONDONTWRITEBYTECODE`` is set (many
        container images set it) every process that imports JAX compiled its source again,
        about 2.6 s of CPU each (``benchmarks/bytecode.py``). The environment is ours, so
        the bytecode goes there, in one folder; a ``PYTHONPYCACHEPREFIX`` the user set wins."""
        dropped = ("PYTHONHOME", "PYTHONPATH", "PYTHONDONTWRITEBYTECODE")
        env = {k: v for k, v in base.items() if k not in dropped}
        env["VIRTUAL_ENV"] = str(self.root)
        env["PATH"] = os.pathsep.join([str(self.bin), base.get("PATH", "")])
        env.setdefault("PYTHONPYCACHEPREFIX", str(self.root / "pycache"))
        return env


def requirements(
    source: Path, release: str, extras: tuple[str, ...], also: tuple[str, ...]
) -> list[str]:
    project = []
    if installable(source):
        project = ["-e", f"{source}[{','.join(extras)}]" if extras else str(source)]
    return [*project, *own_requirement(), f"jax=={release}", f"jaxlib=={release}", *also]


def wanted_stamp(source: Path, python: str, wanted: list[str]) -> str:
    h = hashlib.sha256(json.dumps([python, wanted]).encode())
    for name in PROJECT_FILES:
        path = source / name
        if path.is_file():
            h.update(name.encode() + b"\0" + path.read_bytes())
    return h.hexdigest()


class InstallError(Exception):
    """uv could not install: ``conflict`` where the project's requirements exclude the
    release (that release's cell says so), else the project itself does not build."""

    def __init__(self, line: str, *, conflict: bool) -> None:
        super().__init__(line)
        self.conflict = conflict


def uv_error_line(output: str) -> str:
    """uv's error as one line: its ``error:`` line and the first cause under it."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    first = next(
        (
            i
            for i, line in enumerate(lines)
            if line.startswith(("error:", "\N{MULTIPLICATION SIGN}"))
        ),
        None,
    )
    if first is None:
        return lines[-1] if lines else "uv failed"
    head = lines[first].removeprefix("error:").strip(" \N{MULTIPLICATION SIGN}")
    cause = next((ln for ln in lines[first + 1 :] if ln.startswith("cause:")), "")
    return f"{head}: {cause.removeprefix('cause:').strip()}" if cause else head


def prepare(
    root: Path,
    source: Path,
    release: str,
    python: tuple[str, str],
    extras: tuple[str, ...],
    also: tuple[str, ...],
    log: Path,
) -> Environment:
    """The environment at ``root`` with ``source`` and JAX ``release`` installed; reused when
    its stamp says the same was installed with the same project files. The stamp is written
    last, so an interrupted install is redone."""
    _, path = python
    env = Environment(root)
    wanted = requirements(source, release, extras, also)
    stamp = root / STAMP
    digest = wanted_stamp(source, path, wanted)
    if stamped(stamp) == digest:
        return env
    stamp.unlink(missing_ok=True)
    for command in (
        [uv(), "venv", "--quiet", "--allow-existing", "--python", path, str(root)],
        [uv(), "pip", "install", "--python", str(env.bin / "python"), *wanted],
    ):
        with log.open("ab") as out:
            out.write(f"$ {' '.join(command)}\n".encode())
            out.flush()
            start = out.tell()
            status = _processes.run(command, out=out)
        if status != 0:
            said = log.read_bytes()[start:].decode(errors="replace")
            raise InstallError(uv_error_line(said), conflict="No solution found" in said)
    write_atomic(stamp, json.dumps({"digest": digest, "requirements": wanted}, indent=1) + "\n")
    return env


def stamped(stamp: Path) -> str | None:
    """The digest an environment's stamp records; None where there is no stamp or it cannot be
    read as one (a disk that filled up, a hand edit): the environment is then installed again."""
    try:
        recorded = json.loads(stamp.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    digest = recorded.get("digest") if isinstance(recorded, dict) else None
    return digest if isinstance(digest, str) else None
