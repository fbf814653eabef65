"""pallas_compat/lint/_docs_site.py: where the rule pages that doctor's output links to are."""

from __future__ import annotations

from pathlib import Path

import pytest

from pallas_compat._usage import UsageError
from pallas_compat.lint import _docs_site
from pallas_compat.lint._docs_site import docs_url, rule_url


def test_a_built_folder_is_linked_by_its_absolute_address(tmp_path: Path) -> None:
    (tmp_path / "site" / "rules").mkdir(parents=True)
    assert docs_url(str(tmp_path / "site")) == (tmp_path / "site").as_uri()
    assert rule_url((tmp_path / "site").as_uri(), "PAL301").endswith("/site/rules/PAL301.html")


def test_a_url_is_taken_as_given_less_its_trailing_slash() -> None:
    assert docs_url("https://docs.example.org/pc/") == "https://docs.example.org/pc"
    assert rule_url("https://docs.example.org/pc", "PAL204") == (
        "https://docs.example.org/pc/rules/PAL204.html"
    )


def test_a_folder_without_rule_pages_is_refused(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="not a built pallas-compat docs site"):
        docs_url(str(tmp_path))


def test_by_default_the_checkout_s_site_where_it_was_built(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_docs_site, "CHECKOUT_SITE", tmp_path / "site")
    assert docs_url(None) is None  # not built (or installed from a wheel): nothing to link to
    (tmp_path / "site" / "rules").mkdir(parents=True)
    assert docs_url(None) == (tmp_path / "site").as_uri()
