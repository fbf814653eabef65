"""The report's one model: sections of tables, folds and charts, rendered as Markdown and HTML
by ``report/_render.py``. Every string in it is recorded or computed text, never markup."""

from __future__ import annotations

from dataclasses import dataclass, field

#: Cell tones and what their colour means (the legend).
LEGEND = {
    "good": "works / present / pass",
    "warn": "deprecated, legacy or private spelling",
    "bad": "removed, refused, missing, raised or failed",
    "info": "not yet added, not applicable, or unavailable on this release",
}


def tone_of(status: str) -> str:
    if status in ("current", "present", "pass", "returned", "caught", "yes", "works"):
        return "good"
    if status in ("deprecated", "legacy", "private", "missed"):
        return "warn"
    if status in ("unavailable", "n/a", "skipped", "absent"):
        return "info"
    return "bad"


@dataclass(frozen=True)
class Cell:
    text: str
    tone: str = ""
    anchor: str = ""
    link: str = ""
    #: Why the cell says what it says (an ``unavailable``'s reason): a tooltip in HTML, a
    #: numbered note under the table in Markdown.
    why: str = ""


@dataclass
class Table:
    headers: list[str]
    rows: list[list[Cell]]
    caption: str = ""
    #: Leading columns repeated when a renderer splits a wide table.
    keys: int = 1
    #: A search box above the page filters this table's rows.
    searchable: bool = False
    #: (first, count) of columns that are one presence strip (a mark per release): one
    #: coloured cell each in HTML, one cell of marks in Markdown.
    strip: tuple[int, int] | None = None


@dataclass(frozen=True)
class Bar:
    """One row of the timeline chart: a name and its state in each release."""

    label: str
    states: tuple[str, ...]  # tone per release: good, warn, info/""
    link: str = ""


@dataclass
class Chart:
    releases: list[str]
    bars: list[Bar]
    caption: str = ""


@dataclass
class Fold:
    """A part that starts closed (``<details>``): one upgrade guide, the additions."""

    summary: str
    anchor: str = ""
    intro: str = ""
    tables: list[Table] = field(default_factory=list)
    code: list[tuple[str, str]] = field(default_factory=list)
    open: bool = False
    #: Only in the HTML page (Markdown names where the rest is: the page and a command).
    html_only: bool = False
    #: Folds inside this one (HTML): a group of guides, two clicks from the top.
    folds: list[Fold] = field(default_factory=list)


@dataclass
class Section:
    title: str
    anchor: str
    intro: str = ""
    tables: list[Table] = field(default_factory=list)
    code: list[tuple[str, str]] = field(default_factory=list)  # (caption, preformatted text)
    folds: list[Fold] = field(default_factory=list)
    charts: list[Chart] = field(default_factory=list)
    #: Markdown's line in place of the folds it leaves to the HTML page.
    md_elsewhere: str = ""


@dataclass(frozen=True)
class Answer:
    """One of the questions the page answers above the fold: a link and a command."""

    question: str
    link: str
    link_text: str
    command: str = ""
