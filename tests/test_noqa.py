"""``# noqa`` as flake8 and ruff read it."""

from __future__ import annotations

from pallas_compat._noqa import noqa_lines, silenced

SOURCE = b"""\
a = 1  # noqa
b = 2  # noqa: PAL101, E501
c = 3  # NOQA:PAL2
d = "# noqa"  # a string is no comment
e = 5  # noqa: E501
"""


def test_each_comment_silences_what_it_names() -> None:
    lines = noqa_lines(SOURCE)
    assert lines[1] is None and lines[2] == {"PAL101", "E501"} and lines[3] == {"PAL2"}
    assert 4 not in lines and lines[5] == {"E501"}
    assert silenced(lines, 1, "PAL301") and silenced(lines, 2, "PAL101")
    assert not silenced(lines, 2, "PAL102") and silenced(lines, 3, "PAL204")
    assert not silenced(lines, 4, "PAL101") and not silenced(lines, 5, "PAL101")


def test_a_file_without_noqa_is_not_tokenized() -> None:
    assert noqa_lines(b"x = (\n") == {}  # would not tokenize; never tried
    assert noqa_lines(b"x = (  # noqa\n") == {}  # a tokenizer error: the parser reports it
