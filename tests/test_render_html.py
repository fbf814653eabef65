"""pallas_compat/lint/_render_html.py: doctor's uses as a page that links into the report."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from pallas_compat._cli import main
from pallas_compat.lint import _docs_site, _render_html
from pallas_compat.lint._render_html import page
from pallas_compat.lint._report import Finding, Report, RunsOn, Summary
from pallas_compat.rules._use import Use, UseState


def test_every_string_is_escaped_and_each_api_links_to_its_row() -> None:
    use = Use(
        "src/<x>.py", 3, 5, "pl.load", (("0.4.30", "0.7.2"),), "x_ref[idx] <no mask>", code="PAL301"
    )
    unknown = "cannot tell from the source whether it breaks on 0.12.0.1"
    findings = (
        Finding(
            use, "masked-load-store", "0.12.0.1", UseState.BREAKS, "breaks on 0.12.0.1", use.hint
        ),
        Finding(
            replace(use, api='compiler_params={"mosaic": {...}}', certain=False),
            "masked-load-store",
            "0.12.0.1",
            UseState.UNKNOWN,
            unknown,
            use.hint,
        ),
    )
    report = Report(
        target="0.12.0.1",
        releases=("0.12.0.1",),
        checked="JAX 0.12.0.1",
        findings=findings,
        files=(),
        tree=RunsOn("", ""),
        left_untouched=("a&b.py",),
        skipped=(),
        summary=Summary(files=1, uses=2, breaking=1, warning=0, unknown=1, silenced=0),
    )
    html = page(report, "api-diff.html")
    assert "src/&lt;x&gt;.py:3:5" in html and "<x>" not in html
    assert "x_ref[idx] &lt;no mask&gt;" in html and "a&amp;b.py" in html
    assert 'href="api-diff.html#name-pl-load"' in html
    assert 'href="api-diff.html#form-compiler-params-mosaic"' in html
    assert '<td class="bad">breaks on 0.12.0.1</td>' in html
    assert f'<td class="info">{unknown}</td>' in html and "PAL301 masked-load-store" in html
    assert "1 of 2 uses break on JAX 0.12.0.1" in html


def kernel(tmp_path: Path) -> Path:
    path = tmp_path / "k.py"
    path.write_text("from jax.experimental import pallas as pl\nx = pl.load(r, (0,))\n")
    return path


def test_a_report_page_that_is_not_there_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["doctor", str(kernel(tmp_path)), "--format", "html", "--report", "missing.html"]
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and "--report missing.html: no such file" in err and err.count("\n") == 1


def test_links_use_the_page_s_absolute_address_or_the_url_given(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    saved = tmp_path / "pages" / "api-diff.html"
    saved.parent.mkdir()
    saved.write_text("<html></html>")
    main(["doctor", str(kernel(tmp_path)), "--format", "html", "--report", str(saved)])
    assert f'href="{saved.as_uri()}#name-pl-load"' in capsys.readouterr().out
    url = "https://example.invalid/api-diff.html"
    main(["doctor", str(kernel(tmp_path)), "--format", "html", "--report", url])
    assert f'href="{url}#name-pl-load"' in capsys.readouterr().out


def test_without_a_page_the_uses_are_listed_unlinked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Installed from a wheel there is no checkout page: no dead link, and how to link."""
    monkeypatch.setattr(_render_html, "CHECKOUT_PAGE", tmp_path / "none.html")
    monkeypatch.setattr(_docs_site, "CHECKOUT_SITE", tmp_path / "no-site")
    main(["doctor", str(kernel(tmp_path)), "--format", "html"])
    out = capsys.readouterr().out
    assert "href=" not in out and "pass --report PAGE" in out
    assert "Where each file runs" in out


def test_each_rule_links_to_its_page_in_the_docs_site(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    site = tmp_path / "site"
    (site / "rules").mkdir(parents=True)
    main(["doctor", str(kernel(tmp_path)), "--format", "html", "--docs", str(site)])
    link = f'<a href="{site.as_uri()}/rules/PAL301.html">PAL301 masked-load-store</a>'
    assert link in capsys.readouterr().out
    monkeypatch.setattr(_docs_site, "CHECKOUT_SITE", site)  # a checkout with its site built
    main(["doctor", str(kernel(tmp_path)), "--format", "html"])
    assert link in capsys.readouterr().out


def test_a_docs_site_that_is_not_there_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["doctor", str(kernel(tmp_path)), "--format", "html", "--docs", str(tmp_path)]
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and "not a built pallas-compat docs site" in err and err.count("\n") == 1
