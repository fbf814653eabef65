"""``# noqa`` as flake8 and ruff read it; one reading for doctor and migrate: a comment
silences its statement."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from pallas_compat._cli import main
from pallas_compat.lint._noqa import by_statement, noqa_lines, silenced

SOURCE = b"""\
a = 1  # noqa
b = 2  # noqa: PAL101, E501
c = 3  # NOQA:PAL2
d = "# noqa: PAL101"  # a string is no comment
e = f(  # noqa: E501
    x,  # noqa: PAL301
)
"""


def test_each_comment_silences_what_it_names() -> None:
    lines = noqa_lines(SOURCE)
    assert lines == {2: {"PAL101", "E501"}, 3: {"PAL2"}, 5: {"E501"}, 6: {"PAL301"}}
    assert silenced(lines, 2, "PAL101") and not silenced(lines, 2, "PAL102")
    assert silenced(lines, 3, "PAL204") and not silenced(lines, 5, "PAL101")


def test_a_bare_noqa_is_another_linter_s() -> None:
    """Kernel files carry bare ``# noqa`` for flake8 (easydel's ``pl.pallas_call(  # noqa``):
    it must not hide a breakage it never named."""
    assert not silenced(noqa_lines(SOURCE), 1, "PAL301")


def test_a_comment_silences_every_line_of_its_statement() -> None:
    lines = by_statement(noqa_lines(SOURCE), ast.parse(SOURCE))
    assert all(silenced(lines, line, "PAL301") for line in (5, 6, 7))
    assert not silenced(lines, 4, "PAL301") and not silenced(lines, 5, "PAL101")


def test_a_header_is_a_statement_of_its_own() -> None:
    """A ``# noqa`` on a ``def`` line covers its decorators and signature, not its body."""
    source = b"@dec(\n  1)\ndef f(  # noqa: PAL304\n  x):\n    return x\n"
    lines = by_statement(noqa_lines(source), ast.parse(source))
    assert sorted(lines) == [1, 2, 3, 4]


KERNEL = """\
from jax.experimental import pallas as pl


def f(kernel, x):
    return pl.pallas_call({first}
        kernel, out_shape=x, backend="triton"{second}
    )(x)
"""


@pytest.mark.parametrize(
    ("first", "second"),
    [("  # noqa: PAL205", ""), ("", "  # noqa: PAL205")],
    ids=["first", "second"],
)
def test_doctor_and_migrate_read_a_comment_alike(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], first: str, second: str
) -> None:
    """The use is the keyword on the call's second line; the comment on either line silences
    it for doctor, and migrate then leaves the call alone (exit 0 with --check)."""
    path = tmp_path / "k.py"
    path.write_text(KERNEL.format(first=first, second=second))
    target = ["--target", "0.12.0.1"]
    assert main(["doctor", str(path), *target]) == 0
    assert "1 silenced by # noqa" in capsys.readouterr().out
    assert main(["migrate", str(path), "--check", *target]) == 0
    path.write_text(KERNEL.format(first="", second=""))
    assert main(["doctor", str(path), *target]) == 1
    assert main(["migrate", str(path), "--check", *target]) == 1


def test_a_file_without_noqa_is_not_tokenized() -> None:
    assert noqa_lines(b"x = (\n") == {}  # would not tokenize; never tried
    assert noqa_lines(b"x = (  # noqa: PAL101\n") == {}  # a tokenizer error: the parser says
