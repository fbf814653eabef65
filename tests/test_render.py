"""report/_render.py: Markdown and HTML from the report model."""

from __future__ import annotations

from report._model import Cell, Fold, Section, Table
from report._render import MD_MAX_COLUMNS, markdown, md_text, page


def wide(columns: int) -> Table:
    headers = ["name", *(f"r{i}" for i in range(columns - 1))]
    return Table(headers, [[Cell("x"), *(Cell(str(i)) for i in range(columns - 1))]], keys=1)


def test_wide_markdown_tables_are_split_and_keep_their_key_column() -> None:
    text = markdown("t", [], [Section("s", "s", tables=[wide(13)])], [])
    headers = [line for line in text.splitlines() if line.startswith("| name |")]
    assert len(headers) == 2
    assert all(h.count("|") - 1 <= MD_MAX_COLUMNS for h in headers)
    assert "r0" in headers[0] and "r11" in headers[1]


def test_why_becomes_a_numbered_note_in_markdown_and_a_tooltip_in_html() -> None:
    table = Table(["k", "v"], [[Cell("a"), Cell("unavailable", "info", why="no <simulator>")]])
    section = Section("s", "s", tables=[table])
    assert "| a | unavailable [1] |" in markdown("t", [], [section], [])
    assert "1. no &lt;simulator&gt;" in markdown("t", [], [section], [])
    assert 'title="no &lt;simulator&gt;"' in page("t", [], [section], [])


def test_markdown_markup_in_recorded_text_is_inert() -> None:
    assert md_text("a|b *c* `d` [e](f) <g>") == "a\\|b \\*c\\* \\`d\\` \\[e\\](f) &lt;g&gt;"


def test_a_fence_longer_than_any_backtick_run_in_the_text() -> None:
    fold = Fold("f", code=[("c", "```\nnot the end\n")])
    text = markdown("t", [], [Section("s", "s", folds=[fold])], [])
    assert "````diff\n```\nnot the end\n````" in text


def test_the_page_asks_for_nothing_outside_itself() -> None:
    html = page("t", ["1.0"], [Section("s", "s", tables=[wide(3)])], [])
    assert "http" not in html and "<link" not in html and " src=" not in html
