"""pallas_compat/matrix/_command.py: ``pallas-compat matrix`` on a small example project (two
kernels, one written for JAX 0.4.30), over three releases by every route, as a user runs it;
and its bad input, each one line and exit status 2 with nothing left behind."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from pallas_compat.facts._table import release_ranges, works_in
from tests.conftest import REPO
from tests.test_hostile_input import sigint_as_from_a_terminal

EXAMPLE = REPO / "tests" / "fixtures" / "matrix_project"
RELEASES = ("0.4.30", "0.6.2", "0.12.0.1")


def tree_digest(root: Path) -> str:
    h = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        h.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes())
    return h.hexdigest()


def matrix(*args: str, cache: Path, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pallas_compat", "matrix", *args],
        cwd=cwd,
        env={**os.environ, "PALLAS_COMPAT_CACHE": str(cache)},
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=1200,
        check=False,
    )


def add_runs_natively(release: str) -> bool:
    """By the scanned releases, not by the code under test: add.py's pl.load, pl.store and
    BlockSpec(index_map, block_shape) all exist on the release."""
    ranges = release_ranges()
    spans = [
        ranges["locations"]["jax.experimental.pallas:load"],
        ranges["locations"]["jax.experimental.pallas:store"],
        ranges["call_forms"]["BlockSpec(index_map, block_shape)"],
    ]
    return all(works_in(span, release) for span in spans)


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("cache")


@pytest.fixture(scope="module")
def result(
    cache: Path, tmp_path_factory: pytest.TempPathFactory
) -> tuple[dict, subprocess.CompletedProcess[str]]:  # type: ignore[type-arg]
    before = tree_digest(EXAMPLE)
    out = tmp_path_factory.mktemp("out") / "matrix.json"
    done = matrix(
        "--project",
        str(EXAMPLE),
        "--jax",
        ",".join(RELEASES),
        "--format",
        "json",
        "--output",
        str(out),
        "--",
        "pytest",
        "tests",
        cache=cache,
    )
    assert out.is_file(), done.stderr
    assert tree_digest(EXAMPLE) == before, "the user's tree was written"
    return json.loads(out.read_text()), done


def test_every_release_and_route_as_jax_really_behaves(
    result: tuple[dict, subprocess.CompletedProcess[str]],
) -> None:  # type: ignore[type-arg]
    data, done = result
    cells = {(r["release"], r["route"]): r for r in data["runs"]}
    assert sorted(cells) == sorted(
        (r, route) for r in RELEASES for route in ("native", "patch", "migrate")
    )
    assert any(not add_runs_natively(r) for r in RELEASES), "the example must break somewhere"
    for (release, route), run in cells.items():
        add_passes = route != "native" or add_runs_natively(release)
        assert (run["passed"], run["failed"]) == (1 + add_passes, 1 - add_passes), (
            release,
            route,
            run,
        )
        assert run["status"] == ("passed" if add_passes else "failed")
        if not add_passes:
            [failure] = run["failures"]
            assert failure["test"] == "tests/test_kernels.py::test_add"
            assert "example_kernels/add.py:17" in failure["where"]
    every_passes = all(r["status"] == "passed" for r in data["runs"])
    assert done.returncode == (0 if every_passes else 1)
    assert f"[{len(cells)}/{len(cells)}] JAX" in done.stderr


def test_the_table_and_page_point_each_native_failure_at_doctors_fix(
    result: tuple[dict, subprocess.CompletedProcess[str]],
    tmp_path: Path,
    cache: Path,  # type: ignore[type-arg]
) -> None:
    data, _ = result
    shard = tmp_path / "shard.json"
    shard.write_text(json.dumps(data))
    table = matrix("--merge", str(shard), cache=cache)
    broken = [r for r in RELEASES if not add_runs_natively(r)]
    lines = table.stdout.splitlines()
    assert lines[0].split() == ["JAX", "native", "patch", "migrate"]
    for release in broken:
        assert f"  JAX {release} native: tests/test_kernels.py::test_add: " in table.stdout
        assert (
            f"doctor: example_kernels/add.py:16: PAL201 BlockSpec(index_map, block_shape) "
            f"(breaks on {release}); write: pl.BlockSpec(block_shape, index_map)" in table.stdout
        )
    page = matrix(
        "--merge", str(shard), "--format", "html", "--report", "api-diff.html", cache=cache
    )
    assert 'href="api-diff.html#form-blockspec-index-map-block-shape"' in page.stdout
    for release in RELEASES:
        cell = f'<a href="#run-{release.replace(".", "-")}-native">'
        assert (f'<td class="bad">{cell}' in page.stdout) is (release in broken)


def test_a_second_run_reuses_the_environments(
    cache: Path, result: tuple[dict, subprocess.CompletedProcess[str]]
) -> None:  # type: ignore[type-arg]
    stamps = sorted(cache.rglob("pallas-compat-matrix.json"))
    assert len(stamps) == 3 * len(RELEASES)
    mtimes = [p.stat().st_mtime_ns for p in stamps]
    done = matrix(
        "--project",
        str(EXAMPLE),
        "--jax",
        "0.6.2",
        "--routes",
        "patch",
        "--",
        "pytest",
        "tests",
        cache=cache,
    )
    assert done.returncode == 0, done.stderr
    assert [p.stat().st_mtime_ns for p in stamps] == mtimes
    assert "uv pip install" not in (cache.rglob("0.6.2/patch/log.txt").__next__()).read_text()


def assert_refused(done: subprocess.CompletedProcess[str], says: str) -> None:
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines()[-1].startswith("pallas-compat: error: ")
    assert says in done.stderr and "Traceback" not in done.stderr
    assert done.stdout == ""


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--jax", "0.6.3", "--", "pytest"], "unknown JAX release '0.6.3'"),
        (["--jax", "0.6.3..0.6.9", "--", "pytest"], "no JAX release in that range"),
        (["--routes", "shim", "--", "pytest"], "unknown route 'shim'"),
        (["--project", "/no/such/folder", "--", "pytest"], "no such folder"),
        (["--jax", "0.6.2"], "give the command to run after --"),
        (["-j", "0", "--", "pytest"], "is not a positive whole number"),
        (["--output", "/no/such/dir/m.json", "--", "pytest"], "its folder does not exist"),
        (["--merge", "/no/such/m.json"], "cannot read"),
    ],
)
def test_bad_input_before_any_work(tmp_path: Path, args: list[str], says: str) -> None:
    cache = tmp_path / "cache"
    done = matrix("--project", str(EXAMPLE), *args, cache=cache)
    assert_refused(done, says)
    assert not cache.exists()


def test_a_cache_inside_the_project_is_refused(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    done = matrix("--project", str(project), "--", "pytest", cache=project / "cache")
    assert_refused(done, "is inside the project: set PALLAS_COMPAT_CACHE elsewhere")
    assert list(project.iterdir()) == []


def test_a_command_that_does_not_exist_leaves_nothing(tmp_path: Path, cache: Path) -> None:
    fresh = tmp_path / "cache"
    done = matrix(
        "--project",
        str(EXAMPLE),
        "--jax",
        "0.12.0.1",
        "--routes",
        "native",
        "--",
        "no-such-command-here",
        cache=fresh,
    )
    assert_refused(done, "command not found: no-such-command-here")
    assert not fresh.exists()


def test_a_project_that_does_not_install_leaves_nothing(tmp_path: Path) -> None:
    project = tmp_path / "broken"
    project.mkdir()
    (project / "pyproject.toml").write_text(
        '[build-system]\nrequires = []\nbuild-backend = "no_such_build_backend"\n'
        '[project]\nname = "broken"\nversion = "0"\n'
    )
    fresh = tmp_path / "cache"
    done = matrix("--project", str(project), "--jax", "0.12.0.1", "--", "pytest", cache=fresh)
    assert_refused(done, f"{project} does not install: ")
    assert not fresh.exists()


def running(script: str) -> list[str]:
    """The processes that run ``python script`` (not the matrix that names it)."""
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            if cmdline.read_bytes().split(b"\0")[:2] == [b"python", script.encode()]:
                found.append(cmdline.parent.name)
        except OSError:  # gone meanwhile
            continue
    return found


def test_ctrl_c_stops_every_run_and_writes_nothing(tmp_path: Path) -> None:
    project = tmp_path / "slow"
    project.mkdir()
    script = f"sleeper_{os.getpid()}.py"
    (project / script).write_text("import time\ntime.sleep(300)\n")
    out = tmp_path / "out.json"
    cache = tmp_path / "cache"
    with sigint_as_from_a_terminal():
        run = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "pallas_compat",
                "matrix",
                "--project",
                str(project),
                "--jax",
                "0.12.0.1",
                "--routes",
                "native",
                "--output",
                str(out),
                "--",
                "python",
                script,
            ],
            env={**os.environ, "PALLAS_COMPAT_CACHE": str(cache)},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
    deadline = time.monotonic() + 300
    while not running(script):
        assert run.poll() is None and time.monotonic() < deadline, run.communicate()
        time.sleep(0.2)
    run.send_signal(signal.SIGINT)
    _, err = run.communicate(timeout=60)
    assert run.returncode == 130, err
    assert err.strip().splitlines()[-1] == "pallas-compat: interrupted"
    assert "Traceback" not in err
    assert not out.exists()
    assert running(script) == []


def test_emit_github_is_a_workflow_that_runs_the_same_matrix(tmp_path: Path) -> None:
    done = matrix(
        "--project",
        ".",
        "--jax",
        "0.6.2,0.12.0.1",
        "--emit",
        "github",
        "--",
        "pytest",
        "-k",
        "not slow",
        cache=tmp_path / "c",
        cwd=EXAMPLE,
    )
    assert done.returncode == 0, done.stderr
    flow = yaml.safe_load(done.stdout)
    assert flow["jobs"]["release"]["strategy"]["matrix"]["jax"] == ["0.6.2", "0.12.0.1"]
    step = next(
        s["run"] for s in flow["jobs"]["release"]["steps"] if "matrix --project" in s.get("run", "")
    )
    assert step.strip().endswith("-- pytest -k 'not slow'")
    assert "--routes native,patch,migrate" in step and "--project ." in step
    assert flow["jobs"]["merge"]["needs"] == "release"
    assert not (tmp_path / "c").exists()


def test_a_release_without_an_interpreter_says_so_in_its_cell(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pallas_compat.matrix import _command
    from pallas_compat.matrix._command import Plan, run_one
    from pallas_compat.matrix._routes import Route

    monkeypatch.setattr(_command, "first_interpreter", lambda minors: None)
    plan = Plan(EXAMPLE, ["pytest"], ("0.12.0.1",), (Route.NATIVE,), (), (), tmp_path / "base")
    run = run_one(plan, "0.12.0.1", Route.NATIVE)
    assert run.status == "no python" and run.summary() == "no python"
    assert run.reason == (
        "JAX 0.12.0.1 needs Python >=3.12: none of 3.12, 3.13 found "
        "(install one with pyenv or `uv python install 3.12`)"
    )


def test_any_command_is_a_cell_by_its_exit_status_patch_through_sitecustomize(
    cache: Path,
    result: tuple[dict, subprocess.CompletedProcess[str]],  # type: ignore[type-arg]
) -> None:
    script = (
        "import numpy as np; from example_kernels import add; "
        "x = np.ones(8, np.float32); print(float(add(x, x).sum()))"
    )
    newest = RELEASES[-1]
    assert not add_runs_natively(newest)
    done = matrix(
        "--project",
        str(EXAMPLE),
        "--jax",
        newest,
        "--routes",
        "native,patch",
        "--format",
        "json",
        "--",
        "python",
        "-c",
        script,
        cache=cache,
    )
    runs = {r["route"]: r for r in json.loads(done.stdout)["runs"]}
    assert runs["native"]["status"] == "error" and runs["native"]["exit_status"] == 1
    assert runs["native"]["reason"].startswith("TypeError: "), runs["native"]
    assert runs["patch"]["status"] == "passed" and runs["patch"]["outcomes"] == {}
    assert done.returncode == 1


def test_two_pytest_runs_in_one_command_both_count_and_a_swallowed_status_still_fails(
    cache: Path,
) -> None:
    """``pytest -k add; pytest -k scale; exit 0``: each run writes its own JUnit file (one
    shared file kept only the last run), and the failure the XML records fails the cell
    although the command exits 0."""
    script = (
        "import subprocess, sys\n"
        "for k in ('add', 'scale'):\n"
        "    subprocess.run([sys.executable, '-m', 'pytest', '-q', 'tests', '-k', k])\n"
    )
    newest = RELEASES[-1]
    assert not add_runs_natively(newest)
    done = matrix(
        "--project",
        str(EXAMPLE),
        "--jax",
        newest,
        "--routes",
        "native",
        "--format",
        "json",
        "--",
        "python",
        "-c",
        script,
        cache=cache,
    )
    (run,) = json.loads(done.stdout)["runs"]
    assert run["exit_status"] == 0
    assert (run["passed"], run["failed"]) == (1, 1), run
    assert run["status"] == "failed"
    assert done.returncode == 1
