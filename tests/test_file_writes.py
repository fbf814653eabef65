"""pallas_compat._file_writes: whole files, pairs that agree, and write checks made by trying."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from pallas_compat import _file_writes
from pallas_compat._file_writes import (
    save_elsewhere,
    unwritable,
    write_all,
    write_atomic,
    write_or_keep,
)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_write_atomic_replaces_whole_files(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    write_atomic(path, "one\n")
    write_atomic(path, b"two\n")
    assert path.read_text() == "two\n"
    assert oct(path.stat().st_mode & 0o777) == oct(0o666 & ~_umask())
    assert [p.name for p in tmp_path.iterdir()] == ["s.json"]


def test_a_replaced_file_keeps_its_mode(tmp_path: Path) -> None:
    path = tmp_path / "tool.py"
    path.write_text("old")
    path.chmod(0o751)
    write_atomic(path, "new")
    assert path.stat().st_mode & 0o777 == 0o751


def test_a_failed_write_keeps_the_old_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "s.json"
    path.write_text(json.dumps({"old": True}))

    def broken_replace(src: str, dst: str) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(OSError):
        write_atomic(path, "new")
    assert json.loads(path.read_text()) == {"old": True}
    assert [p.name for p in tmp_path.iterdir()] == ["s.json"]


def test_write_all_replaces_every_file(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("old a")
    write_all({tmp_path / "a.md": "new a", tmp_path / "a.html": "new html"})
    assert (tmp_path / "a.md").read_text() == "new a"
    assert (tmp_path / "a.html").read_text() == "new html"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.html", "a.md"]


@pytest.mark.parametrize("html_existed", [True, False])
def test_write_all_replaces_none_when_the_second_rename_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, html_existed: bool
) -> None:
    md, html = tmp_path / "api-diff.md", tmp_path / "api-diff.html"
    md.write_text("old md")
    if html_existed:
        html.write_text("old html")
    real_replace = os.replace

    def replace(src: str | Path, dst: str | Path) -> None:
        if Path(dst) == html and str(src).endswith(".tmp"):
            raise OSError(28, "No space left on device")
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    with pytest.raises(OSError):
        write_all({md: "new md", html: "new html"})
    assert md.read_text() == "old md"
    assert html.exists() == html_existed
    if html_existed:
        assert html.read_text() == "old html"
    assert {p.name for p in tmp_path.iterdir()} == {md.name} | (
        {html.name} if html_existed else set()
    )


def test_write_all_takes_back_a_new_first_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, second = tmp_path / "one.md", tmp_path / "two.html"
    real_replace = os.replace

    def replace(src: str | Path, dst: str | Path) -> None:
        if Path(dst) == second:
            raise OSError(5, "I/O error")
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    with pytest.raises(OSError):
        write_all({first: "1", second: "2"})
    assert list(tmp_path.iterdir()) == []


def test_unwritable_says_why(tmp_path: Path) -> None:
    assert unwritable(tmp_path / "fine.json") is None
    assert unwritable(tmp_path) == "is a folder; give a file name"
    assert (
        unwritable(tmp_path / "missing" / "x.json")
        == f"folder {tmp_path / 'missing'} does not exist"
    )
    # /proc refuses new files even to root, whose permission bits mean nothing
    assert (unwritable(Path("/proc/x.json")) or "").startswith("cannot write in folder /proc")
    assert list(tmp_path.iterdir()) == []


def test_save_elsewhere_keeps_the_data(tmp_path: Path) -> None:
    kept = save_elsewhere(tmp_path / "results.json", '{"a": 1}')
    try:
        assert kept.suffix == ".json" and kept.name.startswith("results-")
        assert json.loads(kept.read_text()) == {"a": 1}
    finally:
        kept.unlink()


def test_write_or_keep_says_where_the_results_went(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "results.json"
    assert write_or_keep(out, "{}", "tool") and out.read_text() == "{}"

    def full(path: Path, data: str | bytes) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(_file_writes, "write_atomic", full)
    assert not write_or_keep(out, '{"new": 1}', "tool")
    line = capsys.readouterr().err.strip()
    assert line.startswith(f"tool: error: cannot write {out} (No space left on device)")
    kept = Path(line.rsplit(" ", 1)[1])
    try:
        assert json.loads(kept.read_text()) == {"new": 1} and out.read_text() == "{}"
    finally:
        kept.unlink()
