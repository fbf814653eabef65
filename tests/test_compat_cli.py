"""The ``pallas-compat`` command: exit codes, one-line errors, safe writes."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pallas_compat._cli import main

FIXTURE = Path(__file__).parent / "fixtures" / "migrate" / "old_kernels.py"
CLEAN = "import jax.experimental.pallas as pl\n\ni = pl.program_id\n"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_doctor_exit_status_follows_the_target(capsys, tmp_path: Path) -> None:
    status, out, _ = run(capsys, "doctor", str(FIXTURE), "--target", "0.12.0.1")
    assert status == 1 and "14 break on JAX 0.12.0.1" in out
    clean = tmp_path / "clean.py"
    clean.write_text(CLEAN)
    assert run(capsys, "doctor", str(clean), "--target", "0.12.0.1")[0] == 0


def test_doctor_json(capsys) -> None:
    status, out, _ = run(capsys, "doctor", str(FIXTURE), "--target", "0.6.2", "--format", "json")
    report = json.loads(out)
    assert status == 1 and report["target"] == "0.6.2"
    load = next(u for u in report["uses"] if u["api"] == "pl.load")
    assert load["works_in"] == "0.4.30-0.8.3" and load["breaks_on_target"] is False
    assert load["deprecated_in"] == "0.7.1-0.8.3" and load["state_on_target"] == "works"


def test_deprecated_is_not_broken(capsys, tmp_path: Path) -> None:
    """On 0.7.1 ``pl.load`` and ``pltpu.TPUCompilerParams`` are in the releases' deprecation
    tables: they work, with a warning, and doctor says which release removes them."""
    status, out, _ = run(capsys, "doctor", str(FIXTURE), "--target", "0.7.1", "--format", "json")
    states = {u["api"]: u["state_on_target"] for u in json.loads(out)["uses"]}
    assert states["pl.load"] == states["pltpu.TPUCompilerParams"] == "works with a warning"
    assert states["pallas_call(f=...)"] == "breaks"
    assert status == 1  # f= breaks there: the exit status counts only what breaks
    _, out, _ = run(capsys, "doctor", str(FIXTURE), "--target", "0.7.1")
    assert (
        "pl.load (works in JAX 0.4.30-0.8.3; works with a warning on 0.7.1: deprecated, "
        "gone in JAX 0.9.0)" in out
    )
    only = tmp_path / "only_load.py"
    only.write_text("from jax.experimental import pallas as pl\n\nx = pl.load(r, (0,))\n")
    status, out, _ = run(capsys, "doctor", str(only), "--target", "0.7.1")
    assert status == 0 and "1 work there with a deprecation warning" in out


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["doctor", "no/such/dir"], "no/such/dir: no such file or directory"),
        (["doctor", ".", "--target", "0.10"], "unknown JAX release '0.10'"),
        (["migrate"], "the following arguments are required"),
        (["frobnicate"], "invalid choice"),
    ],
)
def test_bad_input_is_one_line_and_status_2(capsys, argv: list[str], says: str) -> None:
    status, _, err = run(capsys, *argv)
    assert status == 2
    assert err.count("\n") == 1 and says in err


def test_migrate_dry_run_then_write_then_nothing(capsys, tmp_path: Path) -> None:
    path = tmp_path / "kernels.py"
    shutil.copy(FIXTURE, path)
    os.chmod(path, 0o640)
    before = path.read_bytes()
    status, out, _ = run(capsys, "migrate", str(path), "--target", "0.12.0.1")
    header = f"--- a/{str(path).lstrip('/')}"  # no "a//tmp/..." for an absolute path
    assert status == 0 and out.startswith(header) and path.read_bytes() == before
    status, _, err = run(capsys, "migrate", str(path), "--target", "0.12.0.1", "--write")
    assert status == 0 and f"rewrote {path}" in err
    assert path.read_bytes() != before and (path.stat().st_mode & 0o777) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kernels.py"]
    after = path.read_bytes()
    status, out, err = run(capsys, "migrate", str(path), "--target", "0.12.0.1", "--write")
    assert status == 0 and path.read_bytes() == after and "0 files rewritten" in err


def test_unparsable_file_is_left_untouched(capsys, tmp_path: Path) -> None:
    broken = tmp_path / "broken.py"
    source = b"from jax.experimental import pallas as pl\ndef f(:\n    pl.load(x, y)\n"
    broken.write_bytes(source)
    status, _, err = run(capsys, "migrate", str(tmp_path), "--target", "0.12.0.1", "--write")
    assert status == 1 and "cannot parse, left untouched" in err
    assert broken.read_bytes() == source


def test_doctor_says_a_file_it_could_not_read_and_fails(capsys, tmp_path: Path) -> None:
    """A clean tree with one unparsable file is not a clean result: exit 1, and the summary
    says how many files went unread."""
    (tmp_path / "clean.py").write_text(CLEAN)
    (tmp_path / "broken.py").write_text("from jax.experimental import pallas as pl\ndef f(:\n")
    status, out, err = run(capsys, "doctor", str(tmp_path), "--target", "0.12.0.1")
    assert status == 1 and "0 break on JAX 0.12.0.1" in out
    assert "1 files could not be read" in out and "broken.py: cannot parse" in err


def test_migrate_carries_on_past_a_folder_it_cannot_write(
    capsys, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The OS refuses one folder (run as root, permission bits would not: the refusal is
    simulated where the write happens): every other file is rewritten, the refused one is named
    and left as it was, the summary counts both, and the exit status is 1."""
    from pallas_compat.lint import _migrate_command

    for folder in ("locked", "open"):
        (tmp_path / folder).mkdir()
        shutil.copy(FIXTURE, tmp_path / folder / "kernels.py")
    before = FIXTURE.read_bytes()
    real_write = _migrate_command.write_atomic

    def refuse_locked(path: Path, data: bytes) -> None:
        if path.parent.name == "locked":
            raise PermissionError(13, "Permission denied", str(path))
        real_write(path, data)

    monkeypatch.setattr(_migrate_command, "write_atomic", refuse_locked)
    status, _, err = run(capsys, "migrate", str(tmp_path), "--target", "0.12.0.1", "--write")
    assert status == 1 and "Traceback" not in err
    locked = tmp_path / "locked" / "kernels.py"
    assert f"{locked}: cannot write, left untouched (Permission denied)" in err
    assert locked.read_bytes() == before
    assert (tmp_path / "open" / "kernels.py").read_bytes() != before
    assert "1 files rewritten for JAX 0.12.0.1; 1 files could not be written" in err


def test_links_out_of_the_given_paths_are_refused(capsys, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    inside = tmp_path / "inside"
    outside.mkdir()
    inside.mkdir()
    shutil.copy(FIXTURE, outside / "old.py")
    (inside / "link.py").symlink_to(outside / "old.py")
    status, _, err = run(capsys, "migrate", str(inside), "--target", "0.12.0.1", "--write")
    assert status == 0 and "a link to outside the given paths" in err
    assert (outside / "old.py").read_bytes() == FIXTURE.read_bytes()


def test_console_script_entry_point() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "pallas_compat", "doctor", str(FIXTURE), "--target", "0.4.30"],
        capture_output=True,
        text=True,
    )
    assert (
        out.returncode == 1 and "pltpu.TPUCompilerParams (works in JAX 0.4.33-0.7.1" in out.stdout
    )
