"""Bad input, faults and foreign environments: one clear line, nothing lost, nothing clobbered.

Each test is a case a careful user met (issue 14): run the commands as they would, with what
they would hand them, and check that the answer is one line and a non-zero exit, that no file
is half-written or replaced by something else, and that the run goes on where it can.
Runnable alone: ``pytest tests/test_hostile_input.py``.
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import kernels._cli
import pallas_compat._file_writes
from common import CORPUS_SCHEMA
from kernels._cli import split_modes
from pallas_compat._cli import main as compat_main
from probes import SCHEMA

REPO = Path(__file__).resolve().parent.parent
SNAPSHOTS = REPO / "reports" / "snapshots"
TARGET = ["--target", "0.12.0.1"]  # pl.load breaks there, whatever JAX runs the tests
KERNEL_SOURCE = (
    "from jax.experimental import pallas as pl\n\n\n"
    "def kernel(x_ref, o_ref):\n"
    "    o_ref[...] = pl.load(x_ref, (0,))  # keep me\n"
)
MIGRATED = "o_ref[...] = x_ref[0]  # keep me"


def command(
    *argv: str, module: str = "pallas_compat", **kwargs: object
) -> subprocess.CompletedProcess[str]:
    """``python -m <module> argv...`` from the repository root, as a user runs it."""
    return subprocess.run(
        [sys.executable, "-m", module, *argv],
        cwd=kwargs.pop("cwd", REPO),
        capture_output=True,
        text=True,
        timeout=300,
        **kwargs,  # type: ignore[call-overload]
    )


def assert_one_line_error(done: subprocess.CompletedProcess[str], *words: str) -> None:
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "error:" in lines[0], done.stderr
    for word in words:
        assert word in lines[0]


# 1. Foreign environments: a multi-host TPU job sets its own libtpu variables.


def test_import_keeps_the_libtpu_variables_the_user_set() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TPU_")}
    env |= {"TPU_WORKER_ID": "3", "TPU_WORKER_HOSTNAMES": "host-a,host-b,host-c,host-d"}
    code = "import os, pallas_compat; print([os.environ[k] for k in sorted(os.environ) if k.startswith('TPU_')])"
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    # sorted: TPU_SKIP_MDS_QUERY, TPU_WORKER_HOSTNAMES, TPU_WORKER_ID
    assert done.stdout.strip() == str(["1", "host-a,host-b,host-c,host-d", "3"]), done.stderr


# 2. A tree with files that are not UTF-8 and say nothing of their encoding.

UNDECODABLE = {
    "b_latin1_comment.py": b"# caf\xe9 kernels\nfrom jax.experimental import pallas as pl\n",
    "b_latin1_string.py": b"from jax.experimental import pallas as pl\nx = '\xe9t\xe9'\n",
    "b_unknown_codec.py": b"# -*- coding: no-such-codec -*-\nimport jax.experimental.pallas\n",
}


@pytest.fixture
def mixed_tree(tmp_path: Path) -> Path:
    tree = tmp_path / "src"
    tree.mkdir()
    (tree / "a_first.py").write_text(KERNEL_SOURCE)
    for name, data in UNDECODABLE.items():
        (tree / name).write_bytes(data)
    (tree / "c_last.py").write_text(KERNEL_SOURCE)
    return tree


def test_doctor_names_undecodable_files_and_carries_on(mixed_tree: Path) -> None:
    done = command("doctor", str(mixed_tree), *TARGET)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "a_first.py:5:" in done.stdout and "c_last.py:5:" in done.stdout
    for name in UNDECODABLE:
        assert f"{name}: cannot decode, left untouched" in done.stderr


def test_doctor_json_stays_json_with_undecodable_files(mixed_tree: Path) -> None:
    done = command("doctor", str(mixed_tree), *TARGET, "--format", "json")
    report = json.loads(done.stdout)
    assert {Path(u["path"]).name for u in report["uses"]} == {"a_first.py", "c_last.py"}
    assert sorted(Path(p).name for p in report["left_untouched"]) == sorted(UNDECODABLE)


def test_migrate_rewrites_the_rest_and_leaves_undecodable_files_alone(mixed_tree: Path) -> None:
    done = command("migrate", str(mixed_tree), *TARGET, "--write")
    assert done.returncode == 1 and "Traceback" not in done.stderr
    for name in ("a_first.py", "c_last.py"):
        assert MIGRATED in (mixed_tree / name).read_text()
    for name, data in UNDECODABLE.items():
        assert (mixed_tree / name).read_bytes() == data


# 3. and 4. Links: loops, and links that migrate must keep.


def test_a_symlink_loop_is_named_and_passed_over(tmp_path: Path) -> None:
    tree = tmp_path / "src"
    (tree / "pkg").mkdir(parents=True)
    (tree / "pkg" / "kernel.py").write_text(KERNEL_SOURCE)
    (tree / "loop_a.py").symlink_to("loop_b.py")
    (tree / "loop_b.py").symlink_to("loop_a.py")
    (tree / "pkg" / "up").symlink_to("..")  # a folder loop: not followed
    for verb in ("doctor", "migrate"):
        done = command(verb, str(tree), *TARGET)
        assert "Traceback" not in done.stderr
        assert "loop_a.py: skipped, a symlink loop" in done.stderr
        assert done.returncode == (1 if verb == "doctor" else 0)
    doctor = command("doctor", str(tree), *TARGET).stdout
    assert doctor.count("kernel.py:5:") == 1


def test_migrate_write_keeps_a_link_and_rewrites_its_target_once(tmp_path: Path) -> None:
    tree = tmp_path / "src"
    tree.mkdir()
    (tree / "real.py").write_text(KERNEL_SOURCE)
    (tree / "alias.py").symlink_to("real.py")
    done = command("migrate", str(tree), *TARGET, "--write")
    assert done.returncode == 0, done.stderr
    assert (tree / "alias.py").is_symlink() and os.readlink(tree / "alias.py") == "real.py"
    assert MIGRATED in (tree / "real.py").read_text()
    assert done.stderr.count("rewrote") == 1
    given_alone = tmp_path / "alone"
    given_alone.mkdir()
    (given_alone / "real.py").write_text(KERNEL_SOURCE)
    (given_alone / "alias.py").symlink_to("real.py")
    command("migrate", str(given_alone / "alias.py"), *TARGET, "--write")
    assert (given_alone / "alias.py").is_symlink()
    assert MIGRATED in (given_alone / "real.py").read_text()


# 5. The report's two pages are replaced together or not at all.


def two_snapshots(folder: Path) -> Path:
    folder.mkdir()
    for release in ("0.6.2", "0.7.2"):
        shutil.copy(SNAPSHOTS / f"jax-{release}.json", folder)
    return folder


def test_report_pair_is_both_or_neither(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from report._cli import main as report_main

    snapshots, out, no_kernels = two_snapshots(tmp_path / "snaps"), tmp_path / "out", tmp_path / "k"
    out.mkdir()
    no_kernels.mkdir()
    (out / "api-diff.md").write_text("previous markdown")
    (out / "api-diff.html").write_text("previous html")
    real_replace = os.replace

    def replace(src: str | Path, dst: str | Path) -> None:
        if Path(dst).name == "api-diff.html" and str(src).endswith(".tmp"):
            raise OSError(28, "No space left on device")
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    argv = [str(snapshots), "--out", str(out), "--kernels", str(no_kernels), "--matrix", "none"]
    assert report_main(argv) == 2
    assert (out / "api-diff.md").read_text() == "previous markdown"
    assert (out / "api-diff.html").read_text() == "previous html"
    assert sorted(p.name for p in out.iterdir()) == ["api-diff.html", "api-diff.md"]


# 6. Malformed snapshots and kernel results: one line naming the file.


def snapshot_text(release: str = "0.6.2") -> str:
    return (SNAPSHOTS / f"jax-{release}.json").read_text()


def broken_structure(change: str) -> str:
    data = json.loads(snapshot_text())
    if change == "module is a list":
        data["modules"]["jax.experimental.pallas"] = ["BlockSpec"]
    elif change == "names entry is a string":
        data["modules"]["jax.experimental.pallas"]["names"]["BlockSpec"] = "present"
    elif change == "feature is a number":
        data["features"][next(iter(data["features"]))] = 3
    elif change == "no environment.versions":
        del data["environment"]["versions"]
    return json.dumps(data)


@pytest.mark.parametrize(
    ("case", "content", "says"),
    [
        (
            "latin-1 bytes",
            snapshot_text().replace('"', '"\xe9', 1).encode("latin-1", errors="replace"),
            "not UTF-8",
        ),
        (
            "module is a list",
            broken_structure("module is a list"),
            "modules['jax.experimental.pallas']",
        ),
        ("names entry", broken_structure("names entry is a string"), "names['BlockSpec']"),
        ("feature", broken_structure("feature is a number"), "features["),
        ("environment", broken_structure("no environment.versions"), "names no JAX release"),
        ("a list", b"[1, 2, 3]", "not a snapshot of schema"),
    ],
)
def test_report_refuses_a_malformed_snapshot(
    tmp_path: Path, case: str, content: str | bytes, says: str
) -> None:
    folder = two_snapshots(tmp_path / "snaps")
    bad = folder / "jax-0.6.2.json"
    bad.write_bytes(content if isinstance(content, bytes) else content.encode())
    out = tmp_path / "out"
    out.mkdir()
    done = command(str(folder), "--out", str(out), module="report")
    assert_one_line_error(done, str(bad), says)
    assert list(out.iterdir()) == []
    diff = command("diff", str(bad), str(folder / "jax-0.7.2.json"), module="report")
    assert_one_line_error(diff, str(bad), says)


@pytest.mark.parametrize(
    ("case", "results", "says"),
    [
        ("no jax key", {"schema": "pallas-compat/kernels/1", "results": []}, "has no 'jax'"),
        (
            "results not a list",
            {"schema": "pallas-compat/kernels/1", "jax": "0.6.2", "results": {}},
            "results is not a list",
        ),
        (
            "record without mode",
            {
                "schema": "pallas-compat/kernels/1",
                "jax": "0.6.2",
                "results": [{"kernel": "add", "status": "pass"}],
            },
            "results[0] has no 'mode'",
        ),
        (
            "jax not a release",
            {"schema": "pallas-compat/kernels/1", "jax": "latest", "results": []},
            "names no JAX release",
        ),
    ],
)
def test_report_refuses_malformed_kernel_results(
    tmp_path: Path, case: str, results: dict[str, object], says: str
) -> None:
    folder = two_snapshots(tmp_path / "snaps")
    kernels = tmp_path / "kernels"
    kernels.mkdir()
    bad = kernels / "jax-0.6.2.json"
    bad.write_text(json.dumps(results))
    out = tmp_path / "out"
    out.mkdir()
    done = command(str(folder), "--out", str(out), "--kernels", str(kernels), module="report")
    assert_one_line_error(done, str(bad), says)


@pytest.mark.parametrize(
    ("out", "says"),
    [("/proc", "cannot write in folder /proc"), ("{tmp}/file", "no such folder")],
)
def test_report_refuses_an_unwritable_out_before_reading(
    tmp_path: Path, out: str, says: str
) -> None:
    folder = two_snapshots(tmp_path / "snaps")
    (tmp_path / "file").write_text("not a folder")
    done = command(str(folder), "--out", out.format(tmp=tmp_path), module="report")
    assert_one_line_error(done, "--out", says)


# 7. --out is checked before the work, and results are never lost after it.


@pytest.mark.parametrize("module", ["probes", "kernels"])
@pytest.mark.parametrize(
    ("out", "says"),
    [
        ("{tmp}", "is a folder; give a file name"),
        ("/proc/results.json", "cannot write in folder /proc"),
        ("{tmp}/missing/results.json", "does not exist"),
    ],
)
def test_out_is_checked_before_the_work(tmp_path: Path, module: str, out: str, says: str) -> None:
    started = time.perf_counter()
    done = command("--out", out.format(tmp=tmp_path), module=module)
    assert_one_line_error(done, "--out", says)
    # refused at once, not after a run: the full probe or kernel run takes minutes here
    assert time.perf_counter() - started < 60


def failing_write(path: Path, data: str | bytes) -> None:
    raise OSError(28, "No space left on device")


def kept_file(stderr: str) -> Path:
    match = re.search(r"are in (\S+)$|is in (\S+)$", stderr.strip())
    assert match, stderr
    return Path(match.group(1) or match.group(2))


def test_kernels_results_survive_a_failed_final_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(pallas_compat._file_writes, "write_atomic", failing_write)
    out = tmp_path / "results.json"
    assert kernels._cli.main(["--only", "add", "--modes", "interpret", "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert f"cannot write {out} (No space left on device)" in err
    kept = kept_file(err)
    try:
        assert json.loads(kept.read_text())["results"][0]["kernel"] == "add"
    finally:
        kept.unlink()
    assert not out.exists()


def test_probe_snapshot_survives_a_failed_final_write(tmp_path: Path) -> None:
    # A fresh process: forking probe workers from one whose JAX backend already runs is unsafe.
    out = tmp_path / "snapshot.json"
    code = (
        "import sys, pallas_compat._file_writes as atomic, probes._cli as cli\n"
        "def failing_write(path, data): raise OSError(28, 'No space left on device')\n"
        "atomic.write_atomic = failing_write\n"
        f"sys.exit(cli.main(['--groups', 'surface', '--quiet', '--out', {str(out)!r}]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 1, done.stderr
    assert f"cannot write {out} (No space left on device)" in done.stderr
    kept = kept_file(done.stderr)
    try:
        assert json.loads(kept.read_text())["schema"] == SCHEMA
    finally:
        kept.unlink()
    assert not out.exists()


# 8. Probe workers die with their parent; Ctrl-C is one line and exit status 130.


def children(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry))
    return found


def alive(pid: int) -> bool:
    """Running (a zombie waiting for a reaper has ended)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


@contextlib.contextmanager
def sigint_as_from_a_terminal() -> Iterator[None]:
    """A shell without job control starts a background job (``cmd &``, a CI step) with SIGINT
    ignored, Python keeps it ignored, and so would the child these tests send Ctrl-C to. A
    handled signal is reset to its default across ``exec`` (an ignored one stays ignored), so
    while the child starts this process handles SIGINT, as under a terminal."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def start_probes(tmp_path: Path, isolation: str) -> tuple[subprocess.Popen[str], list[int]]:
    with sigint_as_from_a_terminal():
        run = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "probes",
                "--isolation",
                isolation,
                "--out",
                str(tmp_path / "s.json"),
            ],
            cwd=REPO,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
    deadline = time.monotonic() + 120
    while not children(run.pid):
        assert run.poll() is None and time.monotonic() < deadline, "no worker started"
        time.sleep(0.1)
    return run, children(run.pid)


def wait_dead(pids: list[int], seconds: float = 5.0) -> list[int]:
    deadline = time.monotonic() + seconds
    while any(alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    return [p for p in pids if alive(p)]


@pytest.mark.parametrize("isolation", ["fork", "spawn"])
def test_workers_die_with_a_killed_parent(tmp_path: Path, isolation: str) -> None:
    run, workers = start_probes(tmp_path, isolation)
    run.kill()
    run.wait()
    assert wait_dead(workers, seconds=1.0) == []


@pytest.mark.parametrize("isolation", ["fork", "spawn"])
def test_ctrl_c_is_one_line_and_exit_130(tmp_path: Path, isolation: str) -> None:
    run, workers = start_probes(tmp_path, isolation)
    run.send_signal(signal.SIGINT)
    _, err = run.communicate(timeout=60)
    assert run.returncode == 130
    assert err.strip().splitlines()[-1] == "python -m probes: interrupted; nothing was written"
    assert "Traceback" not in err
    assert wait_dead(workers) == []
    assert not (tmp_path / "s.json").exists()


# 9. Smaller cases.


def test_groups_that_name_no_group_are_refused(tmp_path: Path) -> None:
    done = command("--groups", ",", "--out", str(tmp_path / "s.json"), module="probes")
    assert_one_line_error(done, "--groups ',' names no group")
    assert not (tmp_path / "s.json").exists()


def test_a_stub_given_by_name_is_read(tmp_path: Path) -> None:
    stub = tmp_path / "kernels.pyi"
    stub.write_text("from jax.experimental import pallas as pl\nload = pl.load\n")
    done = command("doctor", str(stub), *TARGET)
    assert done.returncode == 1 and f"{stub}:2:8: PAL301 pl.load" in done.stdout


def test_notebooks_and_other_files_are_named_not_ignored(tmp_path: Path) -> None:
    notebook = tmp_path / "explore.ipynb"
    notebook.write_text(json.dumps({"cells": [], "nbformat": 4}))
    text = tmp_path / "notes.txt"
    text.write_text("pl.load")
    done = command("doctor", str(notebook), str(text), *TARGET)
    assert done.returncode == 0
    assert f"{notebook}: skipped, 1 notebook(s) (.ipynb): not read" in done.stderr
    assert f"{text}: skipped, not a Python source" in done.stderr
    tree = command("doctor", str(tmp_path), *TARGET)
    assert f"{tmp_path}: skipped, 1 notebook(s)" in tree.stderr


def test_diff_headers_of_absolute_paths(tmp_path: Path) -> None:
    source = tmp_path / "kernel.py"
    source.write_text(KERNEL_SOURCE)
    done = command("migrate", str(source), *TARGET)
    headers = [line for line in done.stdout.splitlines() if line.startswith(("---", "+++"))]
    relative = str(source).lstrip("/")
    assert headers == [f"--- a/{relative}", f"+++ b/{relative}"]


def test_doctor_parses_only_files_that_can_use_pallas(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The cost of a large tree: files that never name Pallas are not parsed, and doctor
    reads without the cyclic collector (which made a 20,000-line file superlinear;
    benchmarks/doctor_speed.py measures it)."""
    import pallas_compat.lint._finder

    (tmp_path / "plain.py").write_text("import numpy as np\n" * 2000)
    (tmp_path / "kernel.py").write_text(KERNEL_SOURCE)
    parsed, collector = [], []
    finder = pallas_compat.lint._finder
    real_parse, real_find = finder.parse_source, finder.find_uses
    monkeypatch.setattr(
        finder, "parse_source", lambda data: parsed.append(data) or real_parse(data)
    )

    def find_uses(path: str, module: object, source: bytes) -> list[object]:
        collector.append(gc.isenabled())
        return real_find(path, module, source)  # type: ignore[arg-type]

    monkeypatch.setattr(finder, "find_uses", find_uses)
    assert compat_main(["doctor", str(tmp_path), "--no-cache", *TARGET]) == 1
    assert "1 uses of drifted Pallas APIs in 2 files" in capsys.readouterr().out
    assert parsed == [KERNEL_SOURCE.encode()]
    assert collector == [False] and gc.isenabled()


# 10. --modes in the comma form people type.


def test_modes_accept_commas_and_spaces(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert split_modes(["interpret,tpu_sim", "tpu_lower"]) == ["interpret", "tpu_sim", "tpu_lower"]
    out = tmp_path / "r.json"
    assert (
        kernels._cli.main(["--only", "add", "--modes", "interpret,tpu_lower", "--out", str(out)])
        == 0
    )
    assert [r["mode"] for r in json.loads(out.read_text())["results"]] == ["interpret", "tpu_lower"]
    assert kernels._cli.main(["--modes", "interpret,fast"]) == 2
    assert (
        capsys.readouterr()
        .err.strip()
        .endswith("unknown mode(s) fast; known: " + ", ".join(m.value for m in kernels._cli.Mode))
    )


# 11. Committed files name no package host.


def test_no_committed_file_spells_out_a_package_host() -> None:
    tracked = subprocess.run(
        ["git", "ls-files", "-z"], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout.split("\0")
    host = re.compile(r"[a-z]+://[^\s\"'/]*(pypi|pythonhosted)", re.IGNORECASE)
    offenders = [
        name
        for name in tracked
        if name
        and (REPO / name).is_file()
        and host.search((REPO / name).read_text(errors="replace"))
    ]
    assert offenders == []


def test_report_refuses_malformed_corpus_results(tmp_path: Path) -> None:
    folder = two_snapshots(tmp_path / "snaps")
    corpus = tmp_path / "corpus"  # beside the snapshots folder, where the report looks
    corpus.mkdir()
    bad = corpus / "jax-0.6.2.json"
    bad.write_text(
        json.dumps({"schema": CORPUS_SCHEMA, "jax": "0.6.2", "results": [{"from": "0.4.30"}]})
    )
    out = tmp_path / "out"
    out.mkdir()
    done = command(str(folder), "--out", str(out), module="report")
    assert_one_line_error(done, str(bad), "results[0] has no 'kernel'")


def test_report_without_its_dependencies_says_what_to_install() -> None:
    """The README's promise: one line and exit 2, not a traceback, where the checkout's
    dependencies are not installed (packaging hidden here, as if it were not)."""
    code = (
        "import builtins, runpy, sys\n"
        "real = builtins.__import__\n"
        "def hide(name, *args, **kwargs):\n"
        "    if name.partition('.')[0] == 'packaging':\n"
        "        raise ModuleNotFoundError(f'No module named {name!r}', name=name)\n"
        "    return real(name, *args, **kwargs)\n"
        "builtins.__import__ = hide\n"
        "sys.argv = ['report', '--help']\n"
        "runpy.run_module('report', run_name='__main__')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=REPO,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
    )
    assert_one_line_error(done, "needs packaging", "pip install -e .")
