"""``# noqa`` as flake8 and ruff read it."""

from __future__ import annotations

from pallas_compat.lint._noqa import noqa_lines, silenced, silenced_in

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


def test_a_node_over_several_lines_is_silenced_by_any_of_them() -> None:
    lines = noqa_lines(SOURCE)
    assert silenced_in(lines, 5, 7, "PAL301") and not silenced_in(lines, 5, 7, "PAL101")


def test_a_file_without_noqa_is_not_tokenized() -> None:
    assert noqa_lines(b"x = (\n") == {}  # would not tokenize; never tried
    assert noqa_lines(b"x = (  # noqa: PAL101\n") == {}  # a tokenizer error: the parser says
