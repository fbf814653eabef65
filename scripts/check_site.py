"""The built docs site, opened as a reader would: every rule has its page, and Chromium shows the
home page and a rule page at desktop and phone widths with nothing wider than the screen, the
rule's example before and after migrate on its page, and no request leaving the site.

    python scripts/check_site.py site/

``nox -s docs`` runs it after the strict build and the link check. Needs Chromium (Debian:
``apt install chromium``; ``PALLAS_COMPAT_CHROMIUM`` names another) and playwright. Exit status
0 when every check holds, 1 naming each that does not, 2 when the site or Chromium is missing.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from pathlib import Path
from typing import Any

from pallas_compat import rules
from pallas_compat.lint._migrate import migrate_source

#: (name, width, height): a desktop and a phone (390 px, as the report's own test reads it).
VIEWPORTS = (("desktop", 1280, 800), ("phone", 390, 844))
#: The rule page the browser opens, and the lines of its example it must show.
RULE = rules.RULES_BY_CODE["PAL301"]


def missing_rule_pages(site: Path) -> list[str]:
    return [
        rule.code for rule in rules.RULES if not (site / "rules" / f"{rule.code}.html").is_file()
    ]


def example_lines() -> tuple[str, str]:
    """A line of the rule's example as written, and the line migrate makes of it."""
    before = next(line.strip() for line in RULE.example.before.splitlines() if "pl.load" in line)
    after = migrate_source(RULE.example.before, RULE.example.target, frozenset({RULE.code}))
    changed = next(line.strip() for line in after.splitlines() if "x_ref[" in line)
    return before, changed


def check_page(browser: Any, url: str, width: int, height: int, wanted: list[str]) -> list[str]:
    """What is wrong with the page at this size: text not shown, a sideways scroll of the
    page itself, a request outside the site."""
    problems = []
    page = browser.new_page(viewport={"width": width, "height": height})
    outside: list[str] = []
    page.on("request", lambda r: outside.append(r.url) if not r.url.startswith("file:") else None)
    page.goto(url)
    page.wait_for_load_state("load")
    text = page.inner_text("article")
    problems += [f"does not show {w!r}" for w in wanted if w not in text]
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    if overflow > 0:
        problems.append(f"is {overflow} px wider than the window")
    problems += [f"asked for {u}" for u in outside]
    page.close()
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", type=Path)
    args = parser.parse_args()
    site: Path = args.site.resolve()
    chromium = os.environ.get("PALLAS_COMPAT_CHROMIUM") or shutil.which("chromium")
    if not (site / "index.html").is_file():
        print(f"check_site: {site}: no built site (nox -s docs builds one)", file=sys.stderr)
        return 2
    if chromium is None:
        print("check_site: no Chromium (apt install chromium)", file=sys.stderr)
        return 2
    from playwright.sync_api import sync_playwright  # lazy: only once the inputs are there

    problems = [f"rules/{code}.html: missing" for code in missing_rule_pages(site)]
    before, after = example_lines()
    pages = {
        "index.html": ["Getting started", "pallas-compat doctor"],
        f"rules/{RULE.code}.html": [f"{RULE.code} {RULE.name}", before, after],
    }
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        for name, width, height in VIEWPORTS:
            for path, wanted in pages.items():
                url = (site / path).as_uri()
                found = check_page(browser, url, width, height, wanted)
                problems += [f"{path} at {width} px ({name}) {p}" for p in found]
                print(f"check_site: {path} at {width}x{height}: {'ok' if not found else 'FAILED'}")
        browser.close()
    for problem in problems:
        print(f"check_site: {problem}", file=sys.stderr)
    print(f"check_site: {len(rules.RULES)} rule pages, {2 * len(VIEWPORTS)} page views")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
