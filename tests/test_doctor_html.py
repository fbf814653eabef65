"""pallas_compat/_doctor_html.py: doctor's uses as a page that links into the report."""

from __future__ import annotations

from pallas_compat._doctor_html import page


def test_every_string_is_escaped_and_each_api_links_to_its_row() -> None:
    use = {
        "path": "src/<x>.py",
        "line": 3,
        "column": 5,
        "api": "pl.load",
        "works_in": "0.4.30-0.7.2",
        "code": "PAL301",
        "rule": "masked-load-store",
        "state": "breaks",
        "verdict": "breaks on 0.12.0.1",
        "write_instead": "x_ref[idx] <no mask>",
    }
    unknown = "cannot tell from the source whether it breaks on 0.12.0.1"
    report = {
        "target": "0.12.0.1",
        "checked": "JAX 0.12.0.1",
        "uses": [
            use,
            {
                **use,
                "api": 'compiler_params={"mosaic": {...}}',
                "state": "cannot tell",
                "verdict": unknown,
            },
        ],
        "left_untouched": ["a&b.py"],
        "summary": {"files": 1, "uses": 2, "breaking": 1},
    }
    html = page(report, "api-diff.html")
    assert "src/&lt;x&gt;.py:3:5" in html and "<x>" not in html
    assert "x_ref[idx] &lt;no mask&gt;" in html and "a&amp;b.py" in html
    assert 'href="api-diff.html#name-pl-load"' in html
    assert 'href="api-diff.html#form-compiler-params-mosaic"' in html
    assert '<td class="bad">breaks on 0.12.0.1</td>' in html
    assert f'<td class="info">{unknown}</td>' in html and "PAL301 masked-load-store" in html
    assert "1 of 2 uses break on JAX 0.12.0.1" in html
