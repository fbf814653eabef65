"""kernels.corpus._lines: the lines of one folder's files that ran, and only those."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

from kernels.corpus import _lines

SOURCE = "a = 1\n\n\ndef f(x):\n    y = x + 1\n    return y\n\n\ndef g():\n    return 2\n"


@pytest.fixture
def module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    folder = tmp_path / "lines_pkg"
    folder.mkdir()
    (folder / "m.py").write_text(SOURCE)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield folder, importlib.import_module("lines_pkg.m")
    sys.modules.pop("lines_pkg.m", None)
    sys.modules.pop("lines_pkg", None)


@pytest.mark.parametrize("monitoring", [True, False])
def test_each_run_sees_the_lines_it_ran(module, monitoring: bool, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    folder, m = module
    if not monitoring:  # the sys.settrace path of Pythons before 3.12
        monkeypatch.delattr(sys, "monitoring", raising=False)
    path = str(folder / "m.py")
    with _lines.lines_run(folder) as ran:
        m.f(1)
    assert ran == {path: {5, 6}}
    with _lines.lines_run(folder) as ran:  # the same lines again, in a second run
        m.f(2)
        m.g()
    assert ran == {path: {5, 6, 10}}


def test_files_outside_the_folder_are_not_watched(module, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    _, m = module
    with _lines.lines_run(tmp_path / "lines") as ran:  # a prefix of the folder, not it
        m.f(1)
    assert dict(ran) == {}
