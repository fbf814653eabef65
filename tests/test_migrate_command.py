"""``pallas-compat migrate``: ``--check`` for CI, rule selection and ``# noqa``."""

from __future__ import annotations

from pathlib import Path

import pytest

from pallas_compat._cli import main

OLD = """\
from jax.experimental import pallas as pl

def kernel(x_ref, o_ref):
    o_ref[...] = pl.load(x_ref, (0,))
spec = pl.BlockSpec(lambda i: (i, 0), (8, 128))
"""


@pytest.fixture
def old(tmp_path: Path) -> Path:
    path = tmp_path / "k.py"
    path.write_text(OLD)
    return path


def test_check_exits_1_when_a_file_would_change_and_writes_nothing(
    capsys: pytest.CaptureFixture[str], old: Path, tmp_path: Path
) -> None:
    assert main(["migrate", str(old), "--target", "0.12.0.1", "--check"]) == 1
    out, err = capsys.readouterr()
    assert out == "" and f"would rewrite {old}" in err and old.read_text() == OLD
    assert "1 files would be rewritten (--check) for JAX 0.12.0.1" in err
    assert main(["migrate", str(old), "--target", "0.4.30", "--check"]) == 0  # nothing breaks
    assert main(["migrate", str(old), "--target", "0.12.0.1", "--write"]) == 0
    assert main(["migrate", str(old), "--target", "0.12.0.1", "--check"]) == 0  # done now


def test_check_and_write_exclude_each_other(capsys: pytest.CaptureFixture[str], old: Path) -> None:
    assert main(["migrate", str(old), "--check", "--write"]) == 2
    assert "not allowed with argument" in capsys.readouterr().err


def test_only_the_selected_rules_rewrite(capsys: pytest.CaptureFixture[str], old: Path) -> None:
    assert main(["migrate", str(old), "--target", "0.12.0.1", "--write", "--select", "PAL201"]) == 0
    text = old.read_text()
    assert "pl.BlockSpec((8, 128), lambda i: (i, 0))" in text and "pl.load(x_ref" in text


def test_noqa_keeps_a_line_as_it_is(capsys: pytest.CaptureFixture[str], old: Path) -> None:
    old.write_text(OLD.replace("(0,))\n", "(0,))  # noqa: PAL301\n"))
    assert main(["migrate", str(old), "--target", "0.12.0.1", "--write"]) == 0
    text = old.read_text()
    assert "pl.load(x_ref, (0,))  # noqa: PAL301" in text
    assert "pl.BlockSpec((8, 128), lambda i: (i, 0))" in text


def test_a_support_window_in_pyproject_needs_a_target(
    capsys: pytest.CaptureFixture[str], old: Path, tmp_path: Path
) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.pallas-compat]\nsupport = ["0.6.2", "0.12.0.1"]\n'
    )
    assert main(["migrate", str(old)]) == 2
    assert "pass --target" in capsys.readouterr().err
    assert main(["migrate", str(old), "--target", "0.12.0.1", "--check"]) == 1


CALL = """\
from jax.experimental import pallas as pl

f = pl.pallas_call(  # noqa{codes}
    kernel,
    compiler_params={{"mosaic": {{"dimension_semantics": ("parallel",)}}}},
    out_shape=shape,
)
"""


@pytest.mark.parametrize(
    ("codes", "rewritten"), [("", True), (": E501", True), (": PAL204", False)]
)
def test_a_noqa_on_any_line_of_a_call_is_read_and_a_bare_one_is_not_ours(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, codes: str, rewritten: bool
) -> None:
    """easydel writes ``pl.pallas_call(  # noqa`` for flake8: that must not keep its dict
    params from being rewritten; ``# noqa: PAL204`` on the call's first line does."""
    path = tmp_path / "k.py"
    path.write_text(CALL.format(codes=codes))
    assert main(["migrate", str(path), "--target", "0.12.0.1", "--write"]) == 0
    assert ("pltpu.CompilerParams(dimension_semantics=" in path.read_text()) is rewritten
