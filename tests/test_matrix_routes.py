"""pallas_compat/matrix/_routes.py: each route's copy of the project and its variables."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from pallas_compat._usage import UsageError
from pallas_compat.matrix._routes import (
    PLUGIN,
    SITECUSTOMIZE,
    Route,
    columns,
    copy_project,
    is_pytest,
    route_variables,
    routes_of,
)


def test_routes_keep_their_order_and_refuse_unknown_ones() -> None:
    assert routes_of("migrate, native,migrate") == (Route.NATIVE, Route.MIGRATE)
    assert columns({"migrate", "patch", "native"}) == ["native", "patch", "migrate"]
    with pytest.raises(UsageError, match="unknown route 'shim'"):
        routes_of("native,shim")


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        (["pytest", "tests"], True),
        (["/venv/bin/py.test"], True),
        (["python3.12", "-m", "pytest", "-x"], True),
        (["python", "-m", "unittest"], False),
        (["make", "test"], False),
    ],
)
def test_is_pytest(command: list[str], expected: bool) -> None:
    assert is_pytest(command) is expected


def test_the_copy_leaves_version_control_environments_and_caches_behind(tmp_path: Path) -> None:
    project = tmp_path / "project"
    for name in (
        "pkg/mod.py",
        ".git/HEAD",
        ".venv/bin/python",
        "pkg/__pycache__/m.pyc",
        "a.egg-info/PKG-INFO",
        "build/lib/pkg/mod.py",  # build output at the top
        "dist/pkg.whl",
        "pkg/build/graph.py",  # a package's own module folder named build: its code
        "pkg/dist/sampling.py",
    ):
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_text("x")
    dest = tmp_path / "copy"
    (dest / "stale.py").parent.mkdir()
    (dest / "stale.py").write_text("left from the last run")
    copy_project(project, dest)
    copied = sorted(p.relative_to(dest).as_posix() for p in dest.rglob("*") if p.is_file())
    assert copied == ["pkg/build/graph.py", "pkg/dist/sampling.py", "pkg/mod.py"]


def test_patch_route_loads_the_plugin_for_pytest_and_keeps_the_users_options(
    tmp_path: Path,
) -> None:
    junit = tmp_path / "a b" / "junit"
    env = route_variables(Route.PATCH, ["pytest"], {"PYTEST_ADDOPTS": "-k 'not slow'"}, junit)
    assert shlex.split(env["PYTEST_ADDOPTS"]) == [
        "-k",
        "not slow",
        "-p",
        PLUGIN,
        "-p",
        "pallas_compat.matrix._junit",
        "-o",
        "junit_family=xunit1",
    ]
    assert env["PALLAS_COMPAT_JUNIT_DIR"] == str(junit)  # each pytest run writes a file there
    assert "PYTHONPATH" not in env


def test_patch_route_uses_sitecustomize_for_other_commands_native_neither(tmp_path: Path) -> None:
    patched = route_variables(Route.PATCH, ["python", "run.py"], {}, tmp_path / "j.xml")
    assert patched["PYTHONPATH"] == str(SITECUSTOMIZE)
    assert (SITECUSTOMIZE / "sitecustomize.py").is_file()
    native = route_variables(Route.NATIVE, ["pytest"], {}, tmp_path / "j.xml")
    assert PLUGIN not in native["PYTEST_ADDOPTS"] and "PYTHONPATH" not in native


def test_the_matrix_command_imports_no_pytest() -> None:
    """pytest is the user's (a cell's environment has it); ``matrix`` itself runs without it."""
    import subprocess
    import sys

    code = "import sys, pallas_compat.matrix._command; print('pytest' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout.strip() == "False", done.stderr
