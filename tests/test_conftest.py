"""tests/conftest.py: the release-dependent modules are real modules, and a misspelt one is caught."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import RELEASE_DEPENDENT, unknown_modules

TESTS = Path(__file__).parent


def test_every_release_dependent_name_is_a_test_module() -> None:
    assert unknown_modules(RELEASE_DEPENDENT, TESTS) == []


def test_a_misspelt_module_is_named(tmp_path: Path) -> None:
    (tmp_path / "test_atomic_ops.py").write_text("")
    names = frozenset({"test_atomic_ops", "test_atomics"})
    assert unknown_modules(names, tmp_path) == ["test_atomics"]
