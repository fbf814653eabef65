"""The noxfile, and the script it runs with nox's own Python, load where nox runs them: nox's
own environment, which has neither NumPy nor JAX."""

from __future__ import annotations

import json
import os
import runpy
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any
from unittest import mock

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: Runs the noxfile with NumPy and JAX unimportable and nox itself stood in by a mock (the
#: sessions' bodies never run; only what the file does on load).
LOAD_WITHOUT_ARRAYS = """
import importlib.abc, runpy, sys
from unittest import mock

class Refuse(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in ("numpy", "jax", "jaxlib"):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, Refuse())
sys.modules["nox"] = mock.MagicMock()
namespace = runpy.run_path(sys.argv[1])
print(len(namespace["LIBRARIES"]), ",".join(namespace["LIBRARIES_FROM"]))
sys.argv = [sys.argv[2], "--help"]
try:
    runpy.run_path(sys.argv[0], run_name="__main__")
except SystemExit as done:
    sys.exit(done.code)
"""


def test_the_noxfile_and_fetch_libraries_load_without_numpy_or_jax() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            LOAD_WITHOUT_ARRAYS,
            str(ROOT / "noxfile.py"),
            str(ROOT / "scripts" / "fetch_libraries.py"),
        ],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        cwd=ROOT,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    count, releases = done.stdout.split()[:2]
    assert "usage: fetch_libraries" in done.stdout
    assert int(count) >= 6
    assert releases.split(",")[0] == "0.4.30"


def test_the_editable_install_nox_makes_exposes_pallas_compat_only(tmp_path: Path) -> None:
    """hatch's exact dev mode: the checkout's top-level common, kernels, probes and report
    are not importable names in the session's (or a user's) environment."""
    from pallas_compat.matrix._environments import uv

    venv = tmp_path / "venv"
    for command in (
        [uv(), "venv", "--quiet", "--python", sys.executable, str(venv)],
        [
            uv(),
            "pip",
            "install",
            "--quiet",
            "--python",
            str(venv / "bin" / "python"),
            "--no-deps",
            "-e",
            str(ROOT),
            "editables",
        ],
    ):
        subprocess.run(command, check=True, capture_output=True, stdin=subprocess.DEVNULL)
    probe = (
        "import importlib.util as u; "
        "print([m for m in ('pallas_compat', 'common', 'kernels', 'probes', 'report') "
        "if u.find_spec(m)])"
    )
    found = subprocess.run(
        [str(venv / "bin" / "python"), "-c", probe],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
        stdin=subprocess.DEVNULL,
    )
    assert found.stdout.split() == ["['pallas_compat']"], found.stderr


def noxfile_functions(kept: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """The noxfile's functions (nox stood in by a mock), with what they learn of XLA's flags
    kept under ``kept``."""
    monkeypatch.setitem(sys.modules, "nox", mock.MagicMock())
    monkeypatch.setattr(sys, "path", list(sys.path))
    namespace = runpy.run_path(str(ROOT / "noxfile.py"))
    namespace["fast_compile_env"].__globals__["XLA_FLAGS_KNOWN"] = kept
    return namespace


def python_that_knows(folder: Path, known: str) -> SimpleNamespace:
    """A session whose ``python`` exits as XLA does: 0 when every flag in ``XLA_FLAGS`` is
    ``known``, else 134 (a shell's status for SIGABRT, how ``Unknown flags in XLA_FLAGS``
    ends; the real abort is ``test_the_trial_asks_the_real_xla``'s). Each run is logged, to
    count the trials."""
    script = folder / "python"
    script.write_text(
        "#!/bin/sh\n"
        f'echo "$XLA_FLAGS" >> "{folder}/trials"\n'
        f'[ "$XLA_FLAGS" = "{known}" ] && exit 0\n'
        "exit 134\n"
    )
    script.chmod(0o755)
    return SimpleNamespace(bin=str(folder), env={})


def test_a_faster_flag_is_added_where_xla_knows_it_tried_once_per_release(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("XLA_FLAGS", raising=False)
    nox_ns = noxfile_functions(tmp_path / "known", monkeypatch)
    faster = nox_ns["FASTER_WHERE_KNOWN"][0]
    knows = python_that_knows(tmp_path, faster)
    for _ in range(2):
        env = nox_ns["fast_compile_env"](knows, "0.9.2")
        assert env == {"XLA_FLAGS": f"{nox_ns['FAST_COMPILE']} {faster}"}
    assert (tmp_path / "trials").read_text().splitlines() == [faster]
    kept = json.loads((tmp_path / "known" / "jax-0.9.2.json").read_text())
    assert kept == {faster: True}


def test_a_flag_xla_does_not_know_is_left_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XLA_FLAGS", "--xla_force_host_platform_device_count=2")
    nox_ns = noxfile_functions(tmp_path / "known", monkeypatch)
    refuses = python_that_knows(tmp_path, "--xla_nothing")
    env = nox_ns["fast_compile_env"](refuses, "0.12.0.1")
    assert env == {
        "XLA_FLAGS": f"--xla_force_host_platform_device_count=2 {nox_ns['FAST_COMPILE']}"
    }
    assert len((tmp_path / "trials").read_text().splitlines()) == 1


def test_an_optimization_level_the_user_gives_wins_and_nothing_is_tried(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XLA_FLAGS", "--xla_backend_optimization_level=2")
    nox_ns = noxfile_functions(tmp_path / "known", monkeypatch)
    assert nox_ns["fast_compile_env"](python_that_knows(tmp_path, ""), "0.9.2") == {}
    assert not (tmp_path / "trials").exists()


def test_the_trial_asks_the_real_xla(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """This environment's JAX: every XLA knows the optimization level; none knows a made-up
    flag, and aborting on it is a plain False."""
    pytest.importorskip("jax")
    monkeypatch.delenv("XLA_FLAGS", raising=False)
    nox_ns = noxfile_functions(tmp_path / "known", monkeypatch)
    this = SimpleNamespace(bin=str(Path(sys.executable).parent), env={})
    known = nox_ns["known_xla_flag"]
    assert known(this, "here", "--xla_backend_optimization_level=0")
    assert not known(this, "here", "--xla_pallas_compat_no_such_flag=true")


def session_in(venv: Path) -> SimpleNamespace:
    return SimpleNamespace(env={}, virtualenv=SimpleNamespace(location=str(venv)))


def test_a_session_keeps_its_bytecode_in_its_venv_where_the_machine_says_write_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As nox runs a command: the outer env, then the session's, a None leaving a name out."""
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    monkeypatch.delenv("PYTHONPYCACHEPREFIX", raising=False)
    session = session_in(tmp_path / "venv")
    noxfile_functions(tmp_path / "known", monkeypatch)["keep_bytecode"](session)
    kept = tmp_path / "venv" / "pycache"
    assert session.env == {"PYTHONDONTWRITEBYTECODE": None, "PYTHONPYCACHEPREFIX": str(kept)}
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "kernel_module.py").write_text("X = 1\n")
    env = {k: v for k, v in {**os.environ, **session.env}.items() if v is not None}
    env["PYTHONPATH"] = str(tmp_path / "src")
    run = [sys.executable, "-c", "import kernel_module"]
    subprocess.run(run, env=env, check=True, stdin=subprocess.DEVNULL)
    assert list(kept.rglob("kernel_module*.pyc"))
    assert not (tmp_path / "src" / "__pycache__").exists()


def test_a_bytecode_folder_the_user_chose_wins(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTHONPYCACHEPREFIX", str(tmp_path / "mine"))
    session = session_in(tmp_path / "venv")
    noxfile_functions(tmp_path / "known", monkeypatch)["keep_bytecode"](session)
    assert session.env == {"PYTHONDONTWRITEBYTECODE": None}


def test_the_xla_flag_trial_runs_in_the_session_env(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    nox_ns = noxfile_functions(tmp_path / "known", monkeypatch)
    script = tmp_path / "python"
    script.write_text(f'#!/bin/sh\necho "[$PYTHONDONTWRITEBYTECODE]" > "{tmp_path}/seen"\n')
    script.chmod(0o755)
    session = SimpleNamespace(bin=str(tmp_path), env={"PYTHONDONTWRITEBYTECODE": None})
    assert nox_ns["known_xla_flag"](session, "0.9.2", "--xla_anything=1")
    assert (tmp_path / "seen").read_text() == "[]\n"


def test_an_imports_finding_is_made_once_per_release_and_a_venvs_own_stands(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    nox_ns = noxfile_functions(tmp_path / "known", monkeypatch)
    nox_ns["imports_marker"].__globals__["IMPORTS_FOUND"] = tmp_path / "imports"
    marker_of, share = nox_ns["imports_marker"], nox_ns["share_imports"]
    first, second = session_in(tmp_path / "corpus"), session_in(tmp_path / "kernels")
    for venv in (first, second):
        Path(venv.virtualenv.location).mkdir()
    found = '{"errors": {}, "install": ["absl-py"], "undeclared": ["absl"]}'
    marker = marker_of(first, "0.9.2")
    assert not marker.exists()  # nothing found yet: this session looks
    marker.write_text(found)
    share(marker, "0.9.2")
    assert marker_of(second, "0.9.2").read_text() == found  # the next does not
    assert not marker_of(session_in(tmp_path / "other"), "0.10.2").exists()
    own = '{"errors": {}, "install": [], "undeclared": []}'
    (tmp_path / "probe").mkdir()
    (tmp_path / "probe" / "pallas-compat-clean-imports.json").write_text(own)
    assert marker_of(session_in(tmp_path / "probe"), "0.9.2").read_text() == own


#: Loads the noxfile with a matrix file that no longer lists ``sys.argv[2]`` (as after
#: ``nox -s refresh_matrix`` dropped it), nox stood in by a mock.
LOAD_WITHOUT_A_RELEASE = """
import dataclasses, runpy, sys
from unittest import mock
sys.path.insert(0, sys.argv[3])
import common
real, gone = common.load_matrix, sys.argv[2]

def without(path):
    matrix = real(path)
    kept = {r: p for r, p in matrix.requires_python.items() if r != gone}
    return dataclasses.replace(matrix, requires_python=kept, default=tuple(r for r in matrix.default if r != gone))

common.load_matrix = without
sys.modules["nox"] = mock.MagicMock()
runpy.run_path(sys.argv[1])
"""


@pytest.mark.parametrize(
    ("gone", "named"),
    [
        ("0.4.31", "WINDOW_ENDS' 0.4.31"),
        ("0.6.2", "TESTS' 0.6.2"),
        ("0.4.35", "CORPUS_FROM' 0.4.35"),
    ],
)
def test_a_release_the_noxfile_names_that_the_matrix_dropped_stops_nox(
    gone: str, named: str
) -> None:
    done = subprocess.run(
        [sys.executable, "-c", LOAD_WITHOUT_A_RELEASE, str(ROOT / "noxfile.py"), gone, str(ROOT)],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        cwd=ROOT,
        timeout=120,
    )
    assert done.returncode == 1
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("nox: error: noxfile.py names releases jax-matrix.json does not list: ")
    assert named in line
