"""doctor's analysis of a tree: files in worker processes (``-j``) and a cache by file content
give what one process without a cache gives; an unchanged file is not parsed again."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pallas_compat._cli import main
from pallas_compat.lint import _analysis, _cache

FIXTURE = Path(__file__).parent / "fixtures" / "migrate" / "old_kernels.py"
TARGET = ["--target", "0.12.0.1", "--format", "json"]


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    for index in range(6):
        (root / f"pkg{index}").mkdir(parents=True)
        (root / f"pkg{index}" / "kernel.py").write_text(f"# {index}\n" + FIXTURE.read_text())
    (root / "plain.py").write_text("import numpy as np\n")
    (root / "broken.py").write_text("from jax.experimental import pallas as pl\nx = (\n")
    return root


def report(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[dict[str, object], str]:
    status = main(["doctor", *argv, *TARGET])
    out, err = capsys.readouterr()
    assert status == 1  # the fixture breaks on 0.12.0.1, and broken.py cannot be parsed
    return json.loads(out), err


def test_worker_processes_find_what_one_process_finds(
    tree: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(_analysis, "PARALLEL_FROM", 0)  # the tree is small: make it parallel
    alone, alone_err = report(capsys, str(tree), "-j", "1", "--no-cache")
    parallel, parallel_err = report(capsys, str(tree), "-j", "2", "--no-cache")
    assert alone == parallel and alone["uses"]
    assert alone_err == parallel_err and "broken.py: cannot parse" in alone_err


def test_an_unchanged_file_is_read_from_the_cache(
    tree: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    cache = tmp_path / "cache"
    first, _ = report(capsys, str(tree), "--cache-dir", str(cache))
    assert (cache / "CACHEDIR.TAG").is_file() and (cache / ".gitignore").read_text() == "*\n"
    parsed: list[str] = []
    real = _analysis.examine

    def examine(path: str, data: bytes, command: str) -> object:
        parsed.append(Path(path).name)
        return real(path, data, command)

    monkeypatch.setattr(_analysis, "examine", examine)
    again, err = report(capsys, str(tree), "--cache-dir", str(cache))
    assert again == first and parsed == ["broken.py"]  # a file that failed is tried again
    assert "broken.py: cannot parse" in err
    changed = tree / "pkg3" / "kernel.py"
    changed.write_text(changed.read_text().replace("pl.load(", "pl.load( "))
    parsed.clear()
    report(capsys, str(tree), "--cache-dir", str(cache))
    assert sorted(parsed) == ["broken.py", "kernel.py"]


def test_a_damaged_cache_is_ignored_and_no_cache_writes_none(
    tree: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / f"doctor-{_cache.tool_key()}.json").write_text("{not json")
    clean, _ = report(capsys, str(tree), "--no-cache")
    assert report(capsys, str(tree), "--cache-dir", str(cache))[0] == clean
    assert json.loads((cache / f"doctor-{_cache.tool_key()}.json").read_text())
    elsewhere = tmp_path / "never"
    report(capsys, str(tree), "--no-cache", "--cache-dir", str(elsewhere))
    assert not elsewhere.exists()


@pytest.mark.parametrize("jobs", ["0", "-1", "two"])
def test_jobs_must_be_a_count(jobs: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["doctor", ".", "-j", jobs]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "-j" in err
