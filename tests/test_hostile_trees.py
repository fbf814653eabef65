"""Trees the OS will not fully show, and bad values: named, exit non-zero, no traceback.

The tests run as root here (and in CI), and root ignores permission bits, so the OS's refusals
are made by hand where they happen (``os.scandir`` for a folder that cannot be listed, ``stat``
for one that cannot be searched): the code paths are those a user without the right meets.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

import pytest

from pallas_compat._cli import main

BREAKING = "from jax.experimental import pallas as pl\nx = pl.load(r, (0,))\n"


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "src" / "locked").mkdir(parents=True)
    (tmp_path / "src" / "locked" / "kernel.py").write_text(BREAKING)
    (tmp_path / "src" / "fine.py").write_text("x = 1\n")
    return tmp_path / "src"


def refuse(monkeypatch: pytest.MonkeyPatch, name: str, folder: Path) -> None:
    """``Path.<name>`` (or ``os.scandir``) raises EACCES for ``folder`` and what is in it."""

    def denied(path: object) -> bool:
        return str(path) == str(folder) or str(path).startswith(f"{folder}{os.sep}")

    if name == "scandir":
        real_scandir = os.scandir

        def scandir(path: str = ".") -> object:
            if denied(path):
                raise PermissionError(errno.EACCES, "Permission denied", str(path))
            return real_scandir(path)

        monkeypatch.setattr(os, "scandir", scandir)
        return
    original = getattr(Path, name)

    def method(self: Path, *args: object, **kwargs: object) -> object:
        if denied(self) and self != folder:
            raise PermissionError(errno.EACCES, "Permission denied", str(self))
        return original(self, *args, **kwargs)

    monkeypatch.setattr(Path, name, method)


def test_a_folder_that_cannot_be_listed_is_named_and_doctor_exits_1(
    tree: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    refuse(monkeypatch, "scandir", tree / "locked")
    assert main(["doctor", str(tree), "--target", "0.12.0.1"]) == 1
    out, err = capsys.readouterr()
    assert f"{tree / 'locked'}: skipped, cannot read this folder (Permission denied)" in err
    assert "1 files could not be read" in out


def test_migrate_check_does_not_pass_a_folder_it_could_not_list(
    tree: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    refuse(monkeypatch, "scandir", tree / "locked")
    assert main(["migrate", str(tree), "--target", "0.12.0.1", "--check"]) == 1
    assert "cannot read this folder" in capsys.readouterr().err


def test_files_that_cannot_be_looked_at_are_named_not_a_traceback(
    tree: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A folder with read but no search permission: its names list, but nothing in it can
    be stat'ed (``resolve``, ``is_symlink``)."""
    refuse(monkeypatch, "resolve", tree / "locked")
    refuse(monkeypatch, "is_symlink", tree / "locked")
    assert main(["doctor", str(tree), "--target", "0.12.0.1"]) == 1
    err = capsys.readouterr().err
    assert "kernel.py: skipped, cannot read it (Permission denied)" in err


def test_an_unsearchable_folder_given_as_the_path_is_no_traceback(
    tree: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    locked = tree / "locked"
    for name in ("is_dir", "is_file", "exists"):
        original = getattr(Path, name)

        def method(self: Path, *, _original: object = original) -> bool:
            if self == locked or locked in self.parents:
                raise PermissionError(errno.EACCES, "Permission denied", str(self))
            return _original(self)  # type: ignore[operator, no-any-return]

        monkeypatch.setattr(Path, name, method)
    refuse(monkeypatch, "scandir", locked)
    assert main(["doctor", str(locked), "--target", "0.12.0.1"]) == 1
    assert "Traceback" not in capsys.readouterr().err


def test_an_empty_target_is_refused(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["doctor", str(tree), "--target", ""]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--target ''" in err


def test_merge_of_a_file_that_is_not_utf8_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shard = tmp_path / "shard.json"
    shard.write_bytes(b'{"format": "\xff\xfe"}')
    assert main(["matrix", "--merge", str(shard)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not UTF-8" in err


def test_migrate_write_leaves_a_read_only_file_as_it_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kernel = tmp_path / "kernel.py"
    kernel.write_text(BREAKING)
    kernel.chmod(0o444)
    assert main(["migrate", str(kernel), "--target", "0.12.0.1", "--write"]) == 1
    assert kernel.read_text() == BREAKING and stat.S_IMODE(kernel.stat().st_mode) == 0o444
    assert "read-only, left untouched" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("expression", "says"),
    [
        ("(" * 1000 + "pl.load(r, (0,))" + ")" * 1000, "too many nested parentheses"),
        ("-" * 20000 + "pl.load(r, (0,))", "nested too deeply for Python to compile"),
    ],
    ids=["1000 parentheses", "20000 unary minus"],
)
def test_code_python_cannot_compile_for_its_nesting_is_named_not_analysed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], expression: str, says: str
) -> None:
    """Code CPython refuses for its nesting (a more lenient parser takes it): doctor must not
    report uses in code that cannot run, nor fail with "internal error"."""
    kernel = tmp_path / "deep.py"
    kernel.write_text(f"from jax.experimental import pallas as pl\nx = {expression}\n")
    assert main(["doctor", str(kernel), "--target", "0.12.0.1"]) == 1
    out, err = capsys.readouterr()
    assert f"deep.py: cannot parse, left untouched ({says})" in err and "internal" not in err
    assert out.startswith("0 uses") and "1 files could not be read" in out
    assert main(["migrate", str(kernel), "--target", "0.12.0.1", "--check"]) == 1


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A small project as people have them: its code, its own .venv (JAX's sources in it), a
    .git, a build folder, and a .gitignore that ignores generated code."""
    root = tmp_path / "myproj"
    (root / ".git").mkdir(parents=True)
    (root / ".gitignore").write_text("generated/\n*_pb2.py\n!keep_pb2.py\n")
    for folder in ("src/build", "generated", ".venv/lib/site-packages/jax", ".nox/x", "build/lib"):
        (root / folder).mkdir(parents=True)
    for path in (
        "src/kernel.py",
        "src/api_pb2.py",
        "src/keep_pb2.py",
        "generated/k.py",
        ".venv/lib/site-packages/jax/k.py",
        ".nox/x/k.py",
        "build/lib/k.py",
        "src/build/graph.py",  # the package's own folder named build: its code, read
    ):
        (root / path).write_text(BREAKING)
    return root


def read_files(capsys: pytest.CaptureFixture[str]) -> str:
    out = capsys.readouterr().out
    return out.strip().splitlines()[-1]


def test_doctor_reads_the_projects_code_only(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["doctor", str(project), "--target", "0.12.0.1"]) == 1
    out, err = capsys.readouterr()
    assert out.strip().splitlines()[-1].startswith("3 uses of drifted Pallas APIs in 3 files")
    assert "kernel.py" in out and "keep_pb2.py" in out and "api_pb2.py" not in out
    assert "graph.py" in out
    for left_out in (".venv", ".git", ".nox", "build"):
        assert f"{project / left_out}: skipped, not project code" in err
    assert f"{project / 'generated'}: skipped, ignored by .gitignore" in err


def test_the_user_can_read_ignored_code_and_leave_out_more(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["doctor", str(project), "--target", "0.12.0.1", "--no-respect-gitignore"]) == 1
    assert read_files(capsys).startswith("5 uses of drifted Pallas APIs in 5 files")
    arguments = ["doctor", str(project), "--target", "0.12.0.1", "--extend-exclude", "*_pb2.py,src"]
    assert main(arguments) == 0
    assert read_files(capsys).startswith("0 uses of drifted Pallas APIs in 0 files")


def test_a_file_named_on_the_command_line_is_read_whatever_excludes_it(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["doctor", str(project / "generated" / "k.py"), "--target", "0.12.0.1"]) == 1
    assert read_files(capsys).startswith("1 uses of drifted Pallas APIs in 1 files")


def test_migrate_leaves_the_same_out(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["migrate", str(project), "--target", "0.12.0.1", "--check"]) == 1
    err = capsys.readouterr().err
    assert "would rewrite" in err and ".venv" not in err.replace(
        f"{project / '.venv'}: skipped", ""
    )
    assert "3 files would be rewritten" in err  # kernel.py, keep_pb2.py, src/build/graph.py


def test_a_folder_that_cannot_be_searched_is_walked_past_not_a_traceback(
    tree: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Mode 000 given as the path: the folder itself can be stat'ed (its parent is searchable),
    but nothing in it can (``locked/.git``, ``locked/pyproject.toml``), nor listed."""
    locked = tree / "locked"
    for name in ("exists", "is_file", "is_dir"):
        original = getattr(Path, name)

        def method(self: Path, *, _original: object = original) -> bool:
            if locked in self.parents:
                raise PermissionError(errno.EACCES, "Permission denied", str(self))
            return _original(self)  # type: ignore[operator, no-any-return]

        monkeypatch.setattr(Path, name, method)
    refuse(monkeypatch, "scandir", locked)
    assert main(["doctor", str(locked), "--target", "0.12.0.1"]) == 1
    err = capsys.readouterr().err
    assert "cannot read this folder (Permission denied)" in err and "Traceback" not in err
    assert main(["migrate", str(locked), "--target", "0.12.0.1", "--check"]) == 1


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ("x = 1\n" * 400_000, "2.3 MB, over the 2 MB limit"),
        ("y = [" + "1, " * 40_000 + "]\n", "a line of 120,006 bytes, over the 100,000 limit"),
    ],
)
def test_a_file_too_large_to_check_is_named_and_doctor_exits_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], body: str, says: str
) -> None:
    """Generated code: a 2.3 MB file, or one 120,000-byte line (issue 44: libcst took 169 s
    and 1.27 GB on a 1.3 MB line). Named, not parsed; migrate leaves it as it is."""
    big = tmp_path / "generated.py"
    big.write_text(BREAKING + body)
    before = big.read_bytes()
    assert main(["doctor", str(tmp_path)]) == 1
    assert f"generated.py: too large to check, left untouched ({says})" in capsys.readouterr().err
    assert main(["migrate", "--write", str(tmp_path)]) == 1
    assert big.read_bytes() == before
