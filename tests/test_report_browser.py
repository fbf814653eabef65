"""The HTML report in a real headless browser at 1400 px: nothing overflows, anchors land below
the sticky header, no request leaves the page, the filter works and the page reads without JS.

Needs Chromium (Debian: ``apt install chromium``) and playwright (the test extra); CI installs
both. Without Chromium the module is skipped locally and fails under ``CI=true``.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pallas_compat.facts._anchors import form_anchor, name_anchor
from pallas_compat.facts._table import DICT_PARAMS

REPO = Path(__file__).resolve().parent.parent
CHROMIUM = os.environ.get("PALLAS_COMPAT_CHROMIUM") or shutil.which("chromium")
WIDTH, HEIGHT = 1400, 900

if CHROMIUM is None:
    if os.environ.get("CI"):
        pytest.fail("CI needs Chromium for the report's browser test (apt install chromium)")
    pytest.skip("no Chromium here (apt install chromium)", allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api")


@pytest.fixture(scope="module")
def report(built_report: Path) -> Path:
    return built_report / "api-diff.html"


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield launched
        launched.close()


def open_page(
    browser: Any, report: Path, anchor: str = "", js: bool = True
) -> tuple[Any, list[str]]:
    context = browser.new_context(
        viewport={"width": WIDTH, "height": HEIGHT}, java_script_enabled=js
    )
    page = context.new_page()
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    page.goto(report.as_uri() + (f"#{anchor}" if anchor else ""))
    return page, requests


def test_no_table_is_wider_than_the_page(browser: Any, report: Path) -> None:
    page, requests = open_page(browser, report)
    page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
    overflowing = page.evaluate(
        """() => [...document.querySelectorAll('table, svg, pre')]
        .filter(e => e.getBoundingClientRect().right > document.documentElement.clientWidth + 1)
        .map(e => e.outerHTML.slice(0, 80))"""
    )
    assert overflowing == []
    assert page.evaluate("document.documentElement.scrollWidth") <= WIDTH
    assert requests == [report.as_uri()]  # the page itself, and nothing else


def test_the_page_is_short_with_its_folds_closed(browser: Any, report: Path) -> None:
    page, _ = open_page(browser, report)
    screens = page.evaluate("document.documentElement.scrollHeight") / HEIGHT
    print(f"page height: {screens:.1f} screens of {HEIGHT} px at {WIDTH} px")
    assert screens < 20


@pytest.mark.parametrize(
    "anchor",
    [
        name_anchor("pl.dot"),
        form_anchor(DICT_PARAMS),
        "upgrade-0-11-2-0-12-0-1",
        "corpus",
        "kernels",
    ],
)
def test_an_anchor_lands_below_the_sticky_header(browser: Any, report: Path, anchor: str) -> None:
    page, _ = open_page(browser, report, anchor)
    header = page.evaluate("document.querySelector('header.top').getBoundingClientRect().bottom")
    top = page.evaluate(f"document.getElementById('{anchor}').getBoundingClientRect().top")
    assert header <= top < HEIGHT / 2


def test_the_filter_box_hides_rows_and_the_page_reads_without_js(
    browser: Any, report: Path
) -> None:
    page, _ = open_page(browser, report)
    page.fill("#filter", "pl.dot")
    page.wait_for_function("document.getElementById('filter-count').textContent !== ''")
    visible = page.evaluate(
        """() => [...document.querySelectorAll('table.searchable tr.row')]
        .filter(r => r.offsetParent !== null).map(r => r.cells[0].textContent)"""
    )
    assert "pl.dot" in visible
    page, _ = open_page(browser, report, js=False)
    assert page.query_selector("#filter") is None  # no dead box without JS
    rows = page.evaluate("document.querySelectorAll('table.searchable tr.row').length")
    assert rows > 50


def test_every_internal_link_lands_and_no_id_repeats(browser: Any, report: Path) -> None:
    page, _ = open_page(browser, report)
    dead = page.evaluate(
        """() => [...document.querySelectorAll('a[href^="#"]')]
        .map(a => a.getAttribute('href').slice(1)).filter(id => !document.getElementById(id))"""
    )
    repeated = page.evaluate(
        """() => { const seen = {}; document.querySelectorAll('[id]').forEach(
        e => seen[e.id] = (seen[e.id] || 0) + 1);
        return Object.keys(seen).filter(k => seen[k] > 1); }"""
    )
    assert dead == [] and repeated == []


def visible_rows(page: Any) -> list[str]:
    return page.evaluate(
        """() => [...document.querySelectorAll('tr.row')]
        .filter(r => r.style.display !== 'none' && r.offsetParent !== null)
        .map(r => r.textContent)"""
    )


def test_the_filter_counts_scrolls_covers_every_table_and_clears(
    browser: Any, report: Path
) -> None:
    page, _ = open_page(browser, report)
    folds_open = page.evaluate("[...document.querySelectorAll('details')].map(d => d.open)")
    page.fill("#filter", "pl.dot")
    page.wait_for_function("document.getElementById('filter-count').textContent !== ''")
    rows = visible_rows(page)
    assert rows and all("pl.dot" in text.lower() for text in rows)
    count = page.evaluate("document.getElementById('filter-count').textContent")
    assert count == f"{len(rows)} rows match"
    in_guides = page.evaluate(
        """() => [...document.querySelectorAll('details[id^="upgrade-"] tr.row')]
        .filter(r => r.style.display !== 'none').length"""
    )
    assert in_guides > 0  # the guides' tables filter too, their folds open to show the hits
    bars = page.evaluate(
        """() => [...document.querySelectorAll('svg g.bar')]
        .filter(g => g.style.display !== 'none').map(g => g.dataset.name)"""
    )
    assert bars == ["pl.dot"]
    first = page.evaluate(
        """() => { const r = [...document.querySelectorAll('tr.row')]
        .find(r => r.style.display !== 'none'); const b = r.getBoundingClientRect();
        return [b.top, b.bottom]; }"""
    )
    assert first[0] >= 0 and first[1] <= HEIGHT  # scrolled to the first match
    page.fill("#filter", "")
    page.wait_for_function("document.getElementById('filter-count').textContent === ''")
    assert page.evaluate("[...document.querySelectorAll('details')].map(d => d.open)") == folds_open
    assert page.evaluate(
        "[...document.querySelectorAll('tr.row')].every(r => r.style.display === '')"
    )


def test_release_headers_stand_upright_and_stay_in_view(browser: Any, report: Path) -> None:
    page, _ = open_page(browser, report, name_anchor("pl.dot"))
    lines = page.evaluate(
        """() => [...document.querySelectorAll('#timeline ~ div table th.r')].slice(0, 40)
        .map(th => { const r = document.createRange(); r.selectNodeContents(th);
        return r.getClientRects().length; })"""
    )
    assert lines and set(lines) == {1}  # "0.12.0.1" is one line, never "0.4.3/0"
    page.evaluate("window.scrollBy(0, 600)")
    header = page.evaluate("document.querySelector('header.top').getBoundingClientRect().bottom")
    head = page.evaluate(
        """() => { const t = document.getElementById('name-pl-dot').closest('table');
        return t.querySelector('th').getBoundingClientRect().top; }"""
    )
    assert abs(head - header) <= 2  # the release row sticks under the bar while rows scroll


def test_removed_and_refused_cells_are_red_as_the_legend_says(browser: Any, report: Path) -> None:
    page, _ = open_page(browser, report)
    red = page.evaluate("getComputedStyle(document.querySelector('.legend .bad')).backgroundColor")
    last = page.evaluate(
        """id => { const cells = document.getElementById(id).parentElement.querySelectorAll('td.m');
        return getComputedStyle(cells[cells.length - 1]).backgroundColor; }""",
        name_anchor("pl.dot"),
    )
    refused = page.evaluate(
        """id => { const cells = document.getElementById(id).parentElement.querySelectorAll('td.m');
        return getComputedStyle(cells[cells.length - 1]).backgroundColor; }""",
        form_anchor(DICT_PARAMS),
    )
    assert last == red and refused == red


def test_a_phone_can_read_it(browser: Any, report: Path) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    page = context.new_page()
    page.goto(report.as_uri() + f"#{name_anchor('pl.dot')}")
    assert page.evaluate("document.documentElement.scrollWidth") <= 391  # tables scroll inside
    name_width = page.evaluate(
        "document.getElementById('name-pl-dot').getBoundingClientRect().width"
    )
    assert name_width >= 80  # not one letter wide
    label = page.evaluate("document.querySelector('svg g.bar text').getBoundingClientRect().height")
    assert label >= 10  # the chart keeps its size and scrolls, it does not shrink to 3 px
    context.close()
