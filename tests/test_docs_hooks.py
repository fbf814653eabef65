"""scripts/docs_hooks.py: the docs site's generated parts, made from the package and the
committed report (the site's build, link check and browser check are ``nox -s docs``)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from pallas_compat.rules import RULES

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "scripts"))
import docs_hooks  # noqa: E402


def test_every_marker_of_the_docs_has_its_generator() -> None:
    markers = {
        m
        for page in (REPO / "docs").rglob("*.md")
        for m in docs_hooks.MARKER.findall(page.read_text())
    }
    assert markers == set(docs_hooks.GENERATORS)


def test_an_unknown_marker_fails_the_build() -> None:
    class Page:
        class file:
            src_uri = "x.md"

    with pytest.raises(ValueError, match="no generator for marker 'nope'"):
        docs_hooks.on_page_markdown("a\n<!-- generated: nope -->\n", Page(), {}, None)  # type: ignore[arg-type]


def test_the_rules_table_links_every_rule_s_page() -> None:
    table = docs_hooks.rules_table()
    assert re.findall(r"\[(PAL\d+)\]\((PAL\d+)\.md\)", table) == [(r.code, r.code) for r in RULES]


def test_the_served_names_come_from_the_facts() -> None:
    table = docs_hooks.served_names()
    # pl.load left JAX in 0.9.0 (the chapter's release has no pl.load); the shim serves it
    # everywhere. pltpu.TPUCompilerParams: 0.4.33 to 0.7.1 in JAX, a rename the shim serves.
    assert "| `pl.load` | 0.4.30 on | 0.4.30-0.8.3 |" in table
    assert "| `pltpu.TPUCompilerParams` | 0.4.30 on | 0.4.33-0.7.1 |" in table
    assert "### `pallas_compat.for_loop`" in table


def test_a_section_of_the_report_comes_one_level_down_with_its_folds_rendered() -> None:
    section = docs_hooks.GENERATORS["jax-ops"]()
    assert section.startswith("### Real kernels: JAX's own ops on other releases\n")
    assert "\n## " not in section and '<details markdown="1"' in section
