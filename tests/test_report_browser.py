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

from pallas_compat._anchors import form_anchor, name_anchor
from pallas_compat._facts import DICT_PARAMS
from report._cli import main

REPO = Path(__file__).resolve().parent.parent
CHROMIUM = os.environ.get("PALLAS_COMPAT_CHROMIUM") or shutil.which("chromium")
WIDTH, HEIGHT = 1400, 900

if CHROMIUM is None:
    if os.environ.get("CI"):
        pytest.fail("CI needs Chromium for the report's browser test (apt install chromium)")
    pytest.skip("no Chromium here (apt install chromium)", allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api")


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("report")
    tree = out / "reports"
    shutil.copytree(REPO / "reports", tree, ignore=shutil.ignore_patterns("*.md", "*.html"))
    assert main([str(tree / "snapshots"), "--out", str(out)]) == 0
    return out / "api-diff.html"


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
    visible = page.evaluate(
        """() => [...document.querySelectorAll('table.searchable tr.row')]
        .filter(r => r.offsetParent !== null).map(r => r.cells[0].textContent)"""
    )
    assert "pl.dot" in visible and all("dot" in name for name in visible)
    page, _ = open_page(browser, report, js=False)
    assert page.query_selector("#filter") is None  # no dead box without JS
    rows = page.evaluate("document.querySelectorAll('table.searchable tr.row').length")
    assert rows > 50
