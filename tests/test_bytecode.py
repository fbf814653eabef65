"""kernels.corpus._bytecode: copies of one text compile once, each still names its own
file, and none leaves bytecode behind."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import sys
import traceback
from pathlib import Path
from types import ModuleType

import pytest

from kernels.corpus import _bytecode

SOURCE = """\
def outer():
    def inner():
        raise ValueError("from the copy")
    return inner
"""


def imported(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"copy_{path.parent.name}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def copy(folder: Path) -> Path:
    folder.mkdir(parents=True)
    (folder / "kernel.py").write_text(SOURCE)
    return folder / "kernel.py"


def raised_in(module: ModuleType) -> str:
    """The file of the innermost frame: the nested function's code."""
    with pytest.raises(ValueError) as raised:
        module.outer()()
    return traceback.extract_tb(raised.value.__traceback__)[-1].filename


def test_a_second_copy_is_not_compiled_again_and_names_its_own_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    compiles: list[str] = []
    real = compile

    def counted(source, filename, *args, **kwargs):  # type: ignore[no-untyped-def]
        compiles.append(str(filename))
        return real(source, filename, *args, **kwargs)

    monkeypatch.setattr("builtins.compile", counted)
    monkeypatch.setattr("sys.dont_write_bytecode", True)
    first, second = copy(tmp_path / "patch"), copy(tmp_path / "shim")
    with _bytecode.compiled_once(tmp_path):
        a, b = imported(first), imported(second)
    assert compiles.count(str(first)) == 1 and str(second) not in compiles
    assert raised_in(a) == str(first) and raised_in(b) == str(second)


def test_a_file_outside_the_folder_compiles_as_usual(tmp_path: Path) -> None:
    outside = copy(tmp_path / "elsewhere")
    with _bytecode.compiled_once(tmp_path / "work"):
        assert raised_in(imported(outside)) == str(outside)


def test_the_loader_is_back_afterwards(tmp_path: Path) -> None:
    loader = importlib.machinery.SourceFileLoader
    before = loader.source_to_code
    before_get = loader.get_code
    with _bytecode.compiled_once(tmp_path):
        assert loader.source_to_code is not before and loader.get_code is not before_get
    assert loader.source_to_code is before and loader.get_code is before_get


def test_a_copy_leaves_no_bytecode_where_other_files_keep_theirs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As the sessions run (the noxfile's ``keep_bytecode``): bytecode kept under a prefix."""
    kept = tmp_path / "pycache"
    monkeypatch.setattr(sys, "pycache_prefix", str(kept))
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    inside, outside = copy(tmp_path / "work" / "patch"), copy(tmp_path / "elsewhere")
    with _bytecode.compiled_once(tmp_path / "work"):
        imported(inside), imported(outside)
        assert sys.dont_write_bytecode is False
    written = [p.name for p in kept.rglob("*.pyc")]
    assert written == [f"kernel.{sys.implementation.cache_tag}.pyc"]
    assert str(tmp_path / "elsewhere") in str(next(kept.rglob("*.pyc")))
