"""pallas_compat.rules._expansions: what a plain import scan misses, for doctor and migrate."""

from __future__ import annotations

from pathlib import Path

import pytest

from pallas_compat._cli import main
from pallas_compat.lint._finder import UseState, uses_in
from pallas_compat.lint._migrate import migrate_source

STAR = """\
from jax.experimental.pallas import *
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu

P = pl
T = tpu
twice = pl
twice = None


def kernel(x_ref, o_ref):
    x = load(x_ref, (0,))
    P.store(o_ref, (0,), x)
    o_ref[1] = dot(x, x)
    twice.load(x_ref, (1,))


params = T.TPUCompilerParams()
"""


def apis(source: str) -> list[tuple[int, str]]:
    return [(u.line, str(u.api)) for u in uses_in("f.py", source)]


def test_star_imports_and_single_aliases_are_followed() -> None:
    assert apis(STAR) == [
        (12, "pl.load"),
        (13, "pl.store"),
        (14, "pl.dot"),
        (18, "pltpu.TPUCompilerParams"),
    ]  # ``twice`` is bound twice: not an alias


def test_migrate_rewrites_through_an_alias() -> None:
    code = migrate_source(STAR, "0.12.0.1")
    rewritten = STAR.replace("load(x_ref, (0,))", "x_ref[0]").replace(
        "P.store(o_ref, (0,), x)", "o_ref[0] = x"
    )
    assert code == rewritten.replace("T.TPUCompilerParams", "T.CompilerParams")


def test_a_module_imported_by_name_at_run_time_is_named_per_file() -> None:
    source = (
        "import importlib\n"
        "tpu = importlib.import_module('jax.experimental.pallas.tpu')\n"
        "pl = __import__('jax.experimental.pallas')\n"
        "np = importlib.import_module('numpy')\n"
    )
    uses = uses_in("f.py", source)
    assert [u.line for u in uses] == [2, 3]
    assert all(u.state_on("0.12.0.1") is UseState.UNKNOWN for u in uses)
    assert all("cannot follow" in u.hint for u in uses)


LOCAL = """\
from jax.experimental import pallas as pl
from jax.experimental import pallas as pl2

load = pl2.load


def kernel(x_ref, o_ref):
    P = pl
    o_ref[...] = P.load(x_ref, (0,))
    getattr(pl, "store")(o_ref, (0,), x_ref[...])
    getattr(pl, "program_id")(0)
"""


def test_an_alias_in_a_function_and_getattr_with_a_literal_are_followed() -> None:
    """No reading of the source follows either; doctor must not pass them over in silence."""
    assert [(u.line, u.api) for u in uses_in("f.py", LOCAL)] == [
        (4, "pl.load"),
        (9, "pl.load"),
        (10, "pl.store"),
    ]


def test_migrate_names_each_use_it_cannot_rewrite_and_exits_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``P.load`` through the local alias is rewritten (the finder that found it decides for
    migrate too); a module bound to a name at the top level and ``getattr`` are not."""
    path = tmp_path / "k.py"
    path.write_text(LOCAL)
    assert main(["migrate", str(path), "--check", "--target", "0.12.0.1"]) == 1
    err = capsys.readouterr().err
    assert [line.split(": ")[0] for line in err.splitlines() if "still breaks on" in line] == [
        f"{path}:4:8",
        f"{path}:10:5",
    ]
    assert "2 uses still break there, left for a person" in err
