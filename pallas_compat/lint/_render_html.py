"""``pallas-compat doctor --format html``: the uses found, each linked to the row of the API-diff
report that tells when its API came and went. One self-contained page; every string escaped.

The links point at the page by an absolute address (a ``file:`` URI for a path), so they work
wherever the output is saved: ``--report PAGE`` (a path that must exist, or a URL), else the
page of the pallas-compat checkout doctor runs from; installed from a wheel, without either,
the uses are listed unlinked and the page says how to link them. Each rule links to its page
of the docs site, where there is one (``_docs_site``).
"""

from __future__ import annotations

import html
from pathlib import Path

from pallas_compat._usage import UsageError
from pallas_compat.facts._anchors import anchor_for
from pallas_compat.lint._docs_site import rule_url
from pallas_compat.lint._report import FileRuns, Report
from pallas_compat.rules._use import UseState

#: The page a checkout of pallas-compat keeps (``nox -s report`` writes it).
CHECKOUT_PAGE = Path(__file__).resolve().parents[2] / "reports" / "api-diff.html"


def report_url(given: str | None) -> str | None:
    """The API-diff page's address for links, or None when there is none to link to."""
    if given is None:
        return CHECKOUT_PAGE.as_uri() if CHECKOUT_PAGE.is_file() else None
    if "://" in given:
        return given
    path = Path(given).expanduser()
    if not path.is_file():
        raise UsageError(
            f"--report {given}: no such file (give the API-diff page, api-diff.html, by a "
            "path or a URL)"
        )
    return path.resolve().as_uri()


STYLE = (
    "body{font:14px/1.45 system-ui,sans-serif;margin:0 auto;padding:1em;max-width:1380px}"
    "table{border-collapse:collapse;max-width:100%}td,th{border:1px solid #ccc;padding:2px 6px;"
    "vertical-align:top;overflow-wrap:anywhere}th{background:#f3f3f3}"
    ".bad{background:#fde2e1}.good{background:#e3f5e1}.warn{background:#fff4d6}"
    ".info{background:#eef2f7}"
)


#: A use's state (doctor's words) -> the tone of its verdict cell.
TONES = {UseState.BREAKS: "bad", UseState.WORKS: "good", UseState.WARNS: "warn"}


def api_cell(api: str, url: str | None) -> str:
    if url is None:
        return f"<td>{html.escape(api)}</td>"
    link = f"{url}#{anchor_for(api)}"
    return f'<td><a href="{html.escape(link)}">{html.escape(api)}</a></td>'


def rule_cell(code: str, name: str, site: str | None) -> str:
    text = f"{html.escape(code)} {html.escape(name)}"
    if site is None:
        return f"<td>{text}</td>"
    return f'<td><a href="{html.escape(rule_url(site, code))}">{text}</a></td>'


def page(report: Report, report_url: str | None, site: str | None = None) -> str:
    """``report`` as one page; ``report_url`` the API-diff page to link into, ``site`` the
    docs site whose rule pages the rules link to."""
    summary = report.summary
    rows = []
    for finding in report.findings:
        use = finding.use
        tone = TONES.get(finding.state, "info")
        rows.append(
            "<tr>"
            f"<td>{html.escape(use.path)}:{use.line}:{use.column}</td>"
            + rule_cell(use.code, finding.rule, site)
            + api_cell(use.api, report_url)
            + f"<td>{html.escape(finding.works_in)}</td>"
            f'<td class="{tone}">{html.escape(finding.verdict)}</td>'
            f"<td>{html.escape(finding.write)}</td>"
            "</tr>"
        )
    entries = [*report.files, FileRuns("all files", report.tree)] if report.files else []
    files = "".join(
        f"<tr><td>{html.escape(f.path)}</td><td>{html.escape(f.runs.runs_unchanged)}</td>"
        f"<td>{html.escape(f.runs.with_pallas_compat)}</td></tr>"
        for f in entries
    )
    title = (
        f"pallas-compat doctor: {summary.breaking} of {summary.uses} uses break on {report.checked}"
    )
    untouched = "".join(f"<li>{html.escape(p)}</li>" for p in report.left_untouched)
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        f"<title>{html.escape(title)}</title><style>{STYLE}</style></head><body>"
        f"<h1>{html.escape(title)}</h1>"
        + (
            f"<p>{summary.files} files read. Each API links to its row in "
            f'<a href="{html.escape(report_url)}">the API-diff report</a>.</p>'
            if report_url
            else f"<p>{summary.files} files read. To link each API to its row in the "
            "API-diff report, pass --report PAGE (the api-diff.html of a pallas-compat "
            "checkout, or its URL).</p>"
        )
        + "<table><tr><th>where</th><th>rule</th><th>API</th><th>works in JAX</th><th>verdict</th>"
        f"<th>write instead</th></tr>{''.join(rows)}</table>"
        + (
            "<h2>Where each file runs</h2><table><tr><th>file</th><th>unchanged on</th>"
            f"<th>with pallas_compat on</th></tr>{files}</table>"
            if files
            else ""
        )
        + (f"<h2>Could not be read</h2><ul>{untouched}</ul>" if untouched else "")
        + "</body></html>\n"
    )
