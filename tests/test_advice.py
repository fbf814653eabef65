"""doctor's advice for the releases checked: never a spelling they lack, never the spelling
already written; and migrate writes the form an old target takes."""

from __future__ import annotations

from pathlib import Path

import pytest

from pallas_compat._cli import main
from pallas_compat.facts._table import FEATURES_BY_KEY, works_in
from pallas_compat.lint._migrate import migrate_source

SOURCE = """\
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def f(kernel, x):
    return pl.pallas_call(
        kernel,
        out_shape=x,
        compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel",)),
    )(x)
"""
PARAMS = FEATURES_BY_KEY["tpu_compiler_params"]


def advice(tmp_path: Path, capsys: pytest.CaptureFixture[str], *target: str) -> str:
    path = tmp_path / "k.py"
    path.write_text(SOURCE)
    main(["doctor", str(path), *target])
    (line,) = [line for line in capsys.readouterr().out.splitlines() if ": PAL" in line]
    return line.split("; write: ", 1)[1]


@pytest.mark.parametrize("target", ["0.4.30", "0.4.33", "0.5.3", "0.12.0.1"])
def test_the_advice_names_a_spelling_the_target_has(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], target: str
) -> None:
    said = advice(tmp_path, capsys, "--target", target)
    had = [
        loc.spelling
        for loc in PARAMS.locations
        if works_in(loc.releases, target) and said.startswith(loc.spelling)
    ]
    if target == "0.12.0.1":  # what is written is the target's spelling
        assert said == "nothing: pltpu.CompilerParams is the spelling of JAX 0.12.0.1"
    elif target == "0.4.30":  # before any params class: the dict
        assert not any(works_in(loc.releases, target) for loc in PARAMS.locations)
        assert said.startswith('compiler_params={"mosaic": {...}}')
    else:
        assert had == ["pltpu.TPUCompilerParams"], said


def test_a_window_no_spelling_serves_is_told_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    said = advice(tmp_path, capsys, "--support", "0.4.30:0.12.0.1")
    assert "no one spelling serves the support window 0.4.30-0.12.0.1" in said


@pytest.mark.parametrize(
    ("target", "written"),
    [
        ("0.4.30", 'compiler_params=dict(mosaic=dict(dimension_semantics=("parallel",)))'),
        ("0.4.33", 'compiler_params=pltpu.TPUCompilerParams(dimension_semantics=("parallel",))'),
        ("0.12.0.1", 'compiler_params=pltpu.CompilerParams(dimension_semantics=("parallel",))'),
    ],
)
def test_migrate_writes_the_form_the_target_takes(target: str, written: str) -> None:
    out = migrate_source(SOURCE, target)
    assert written in out and "pallas-compat:" not in out


def test_a_field_the_dict_era_did_not_read_is_noted_not_dropped() -> None:
    source = SOURCE.replace('("parallel",)', '("parallel",), has_side_effects=True')
    out = migrate_source(source, "0.4.30")
    assert "pltpu.CompilerParams(" in out and "pallas-compat: pltpu.CompilerParams is not in" in out
