"""``doctor --format github``: one workflow command per use that needs attention."""

from __future__ import annotations

from pathlib import Path

import pytest

from pallas_compat._cli import main
from pallas_compat.lint._render_github import escape_data, escape_property

SOURCE = """\
from jax.experimental import pallas as pl
x = pl.load(r, (0,))
spec = pl.BlockSpec(a, b)
i = pl.program_id(0)
"""


def test_annotations_carry_file_line_column_and_rule(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "k,1.py"  # a comma in a property must be escaped
    path.write_text(SOURCE)
    assert main(["doctor", str(path), "--target", "0.12.0.1", "--format", "github"]) == 1
    out, err = capsys.readouterr()
    lines = out.splitlines()
    assert len(lines) == 2  # pl.load breaks; the unknown BlockSpec order warns
    assert lines[0].startswith(f"::error file={str(path).replace(',', '%2C')},line=2,col=5,")
    assert "title=PAL301 masked-load-store::pl.load: breaks on 0.12.0.1; write: " in lines[0]
    assert lines[1].startswith("::warning ") and "title=PAL202 block-spec-order-unknown" in lines[1]
    assert "2 uses of drifted Pallas APIs" in err  # the summary goes to the log, not annotations


def test_escaping_follows_the_workflow_command_rules() -> None:
    assert escape_data("a%b\nc\r") == "a%25b%0Ac%0D"
    assert escape_property("a:b,c%") == "a%3Ab%2Cc%25"
