"""``pallas-compat doctor --format html``: the uses found, each linked to the row of the API-diff
report that tells when its API came and went. One self-contained page; every string escaped."""

from __future__ import annotations

import html
from typing import Any

from pallas_compat._anchors import anchor_for

STYLE = (
    "body{font:14px/1.45 system-ui,sans-serif;margin:0 auto;padding:1em;max-width:1380px}"
    "table{border-collapse:collapse;max-width:100%}td,th{border:1px solid #ccc;padding:2px 6px;"
    "vertical-align:top;overflow-wrap:anywhere}th{background:#f3f3f3}"
    ".bad{background:#fde2e1}.good{background:#e3f5e1}.info{background:#eef2f7}"
)


#: A use's state (doctor's words) -> the tone of its verdict cell.
TONES = {"breaks": "bad", "works": "good"}


def page(report: dict[str, Any], report_url: str) -> str:
    """``report`` is doctor's JSON record; ``report_url`` the API-diff page to link into."""
    summary = report["summary"]
    rows = []
    for use in report["uses"]:
        tone = TONES.get(use["state"], "info")
        link = f"{report_url}#{anchor_for(use['api'])}"
        rows.append(
            "<tr>"
            f"<td>{html.escape(use['path'])}:{use['line']}:{use['column']}</td>"
            f"<td>{html.escape(use['code'])} {html.escape(use['rule'])}</td>"
            f'<td><a href="{html.escape(link)}">{html.escape(use["api"])}</a></td>'
            f"<td>{html.escape(use['works_in'])}</td>"
            f'<td class="{tone}">{html.escape(use["verdict"])}</td>'
            f"<td>{html.escape(use['write_instead'])}</td>"
            "</tr>"
        )
    title = (
        f"pallas-compat doctor: {summary['breaking']} of {summary['uses']} uses break on "
        f"{report['checked']}"
    )
    untouched = "".join(f"<li>{html.escape(p)}</li>" for p in report["left_untouched"])
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        f"<title>{html.escape(title)}</title><style>{STYLE}</style></head><body>"
        f"<h1>{html.escape(title)}</h1>"
        f"<p>{summary['files']} files read. Each API links to its row in "
        f'<a href="{html.escape(report_url)}">the API-diff report</a>.</p>'
        "<table><tr><th>where</th><th>rule</th><th>API</th><th>works in JAX</th><th>verdict</th>"
        f"<th>write instead</th></tr>{''.join(rows)}</table>"
        + (f"<h2>Could not be read</h2><ul>{untouched}</ul>" if untouched else "")
        + "</body></html>\n"
    )
