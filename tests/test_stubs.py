"""pallas_compat/shim/_stubs.py: the committed ``.pyi`` files are what the fills make them
(``python scripts/write_stubs.py`` after a new fill or rename), so a type checker sees every
name the shim serves. mypy reads them in ``nox -s lint`` (``tests/typing/``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pallas_compat.shim._fills import NAMESPACES
from pallas_compat.shim._namespaces import SPELLINGS
from pallas_compat.shim._stubs import STUB_ALIASES, stub_text

PACKAGE = Path(__file__).resolve().parents[1] / "pallas_compat"


@pytest.mark.parametrize("spelling", STUB_ALIASES)
def test_the_committed_stub_is_the_generated_one(spelling: str) -> None:
    committed = (PACKAGE / f"{spelling}.pyi").read_text()
    assert committed == stub_text(spelling), "stale: run python scripts/write_stubs.py"


def test_every_spelling_of_the_package_has_a_stub() -> None:
    assert set(STUB_ALIASES) == set(SPELLINGS)
    assert {p.stem for p in PACKAGE.glob("*.pyi")} == set(SPELLINGS)


def test_each_fill_is_declared_before_the_native_names() -> None:
    text = stub_text("pltpu")
    names = NAMESPACES["pltpu"][1]()
    assert "TPUCompilerParams" in names and "TPUCompilerParams: Any\n" in text
    assert text.index("TPUCompilerParams: Any") < text.index("from jax.experimental.pallas.tpu")


@pytest.mark.parametrize("spelling", STUB_ALIASES)
def test_a_stub_takes_its_names_from_the_first_module_its_namespace_wraps(spelling: str) -> None:
    native = NAMESPACES[SPELLINGS[spelling]][0][0]
    text = stub_text(spelling)
    if native.startswith("jax.experimental.pallas"):
        assert f"\nfrom {native} import *  # noqa" in text
    else:  # a private JAX module: other names pass through, untyped
        assert "def __getattr__(name: str) -> Any: ..." in text
