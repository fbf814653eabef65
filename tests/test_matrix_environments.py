"""pallas_compat/matrix/_environments.py: what each environment installs, where it lives, and uv's
errors as one line."""

from __future__ import annotations

from pathlib import Path

import pytest

from pallas_compat.matrix._environments import (
    Environment,
    cache_root,
    installable,
    own_requirement,
    requirements,
    uv_error_line,
    wanted_stamp,
)
from tests.conftest import REPO

#: uv's own words, as uv 0.9 prints them (inputs to the parser, not its outputs).
CONFLICT = """Using Python 3.12.1 environment at: vt
error: No solution found when resolving dependencies
  cause: Because only p1==0 is available and p1==0 depends on jax>=0.7, we can conclude that all versions of p1 depend on jax>=0.7.
         And because you require jax==0.6.2 and p1, we can conclude that your requirements are unsatisfiable.
"""
BUILD = """Resolved 1 package in 1ms
   Building p3 @ file:///tmp/p3
error: Failed to build `p3 @ file:///tmp/p3`
  cause: The build backend returned an error
  cause: Call to `setuptools.build_meta.get_requires_for_build_editable` failed (exit status: 1)
hint: Build failures usually indicate a problem with the package or the build environment
"""


def test_uv_errors_are_one_line_with_their_first_cause() -> None:
    assert uv_error_line(CONFLICT).startswith(
        "No solution found when resolving dependencies: Because only p1==0 is available"
    )
    assert uv_error_line(BUILD) == (
        "Failed to build `p3 @ file:///tmp/p3`: The build backend returned an error"
    )
    assert uv_error_line("something else\nlast words\n") == "last words"


def test_the_cache_follows_the_users_variables(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("PALLAS_COMPAT_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_root() == tmp_path / "xdg" / "pallas-compat"
    monkeypatch.setenv("PALLAS_COMPAT_CACHE", str(tmp_path / "mine"))
    assert cache_root() == tmp_path / "mine"


def test_each_environment_gets_the_project_one_jax_and_this_pallas_compat(tmp_path: Path) -> None:
    assert own_requirement() == ("-e", str(REPO), "editables")  # run from this checkout
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    assert installable(tmp_path)
    assert requirements(tmp_path, "0.6.2", ("test",), ("pytest",)) == [
        "-e",
        f"{tmp_path}[test]",
        "-e",
        str(REPO),
        "editables",
        "jax==0.6.2",
        "jaxlib==0.6.2",
        "pytest",
    ]
    plain = tmp_path / "plain"
    plain.mkdir()
    assert not installable(plain)
    assert requirements(plain, "0.6.2", (), ())[:3] == ["-e", str(REPO), "editables"]


def test_a_changed_build_recipe_means_a_reinstall(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    first = wanted_stamp(tmp_path, "/py", ["jax==0.6.2"])
    assert wanted_stamp(tmp_path, "/py", ["jax==0.6.2"]) == first
    assert wanted_stamp(tmp_path, "/py", ["jax==0.9.2"]) != first
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'p'\ndependencies = ['numpy']\n")
    assert wanted_stamp(tmp_path, "/py", ["jax==0.6.2"]) != first


def test_an_environments_processes_keep_their_bytecode_in_it(tmp_path: Path) -> None:
    venv = Environment(tmp_path / "venv")
    machine = {"PATH": "/usr/bin", "PYTHONDONTWRITEBYTECODE": "1", "PYTHONPATH": "/elsewhere"}
    env = venv.variables(machine)
    assert "PYTHONDONTWRITEBYTECODE" not in env and "PYTHONPATH" not in env
    assert env["PYTHONPYCACHEPREFIX"] == str(tmp_path / "venv" / "pycache")
    assert env["PATH"] == f"{venv.bin}:/usr/bin"
    mine = venv.variables({**machine, "PYTHONPYCACHEPREFIX": str(tmp_path / "mine")})
    assert mine["PYTHONPYCACHEPREFIX"] == str(tmp_path / "mine")


@pytest.mark.parametrize("left", ['{"digest": "ab', "", "[1, 2]", '{"digest": 3}', "\udcff"])
def test_a_stamp_that_is_not_one_means_a_reinstall_not_a_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, left: str
) -> None:
    """A stamp cut short (a full disk, a killed run) or edited by hand: the environment is
    installed again and stamped whole, where the matrix used to end in a traceback."""
    from pallas_compat.matrix import _environments

    installs: list[list[str]] = []
    monkeypatch.setattr(_environments, "uv", lambda: "uv")
    monkeypatch.setattr(
        _environments._processes, "run", lambda command, **_: installs.append(command) or 0
    )
    root = tmp_path / "venv"
    root.mkdir()
    stamp = root / _environments.STAMP
    stamp.write_bytes(left.encode("utf-8", "surrogateescape"))
    source = tmp_path / "project"
    source.mkdir()
    log = tmp_path / "log.txt"
    _environments.prepare(root, source, "0.6.2", ("3.12", "/py"), (), (), log)
    assert len(installs) == 2  # uv venv, uv pip install
    wanted = requirements(source, "0.6.2", (), ())
    assert _environments.stamped(stamp) == wanted_stamp(source, "/py", wanted)
    _environments.prepare(root, source, "0.6.2", ("3.12", "/py"), (), (), log)
    assert len(installs) == 2  # stamped whole: reused
