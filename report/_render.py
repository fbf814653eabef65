"""The report model as GitHub Markdown and as one self-contained HTML page (inline CSS, an
inline SVG chart, a few lines of inline JS for the filter box; no request leaves the page).

Every recorded string is escaped on the way out: HTML entities in both formats, and
Markdown's own markup characters in Markdown.
"""

from __future__ import annotations

import html
import re

from report._model import LEGEND, Answer, Cell, Chart, Fold, Section, Table

#: Markdown tables wider than this many columns are split (GitHub's reading column is narrow).
MD_MAX_COLUMNS = 8
MD_SPECIAL = re.compile(r"([\\`*_\[\]|])")


def md_text(text: str) -> str:
    """A recorded string as inert Markdown: entities for ``& < >``, backslashes for markup."""
    escaped = html.escape(text, quote=False).replace("\n", " ")
    return MD_SPECIAL.sub(r"\\\1", escaped)


def md_prose(text: str) -> str:
    """Authored text (intros): its `code` spans stay; only ``& < >`` become entities."""
    return html.escape(text, quote=False)


def md_cell(cell: Cell, notes: list[str]) -> str:
    text = md_text(cell.text)
    if cell.link:
        text = f"[{text}]({html.escape(cell.link)})"
    if cell.why and len(cell.text) > 1:  # a presence mark's why is a tooltip in HTML only
        if cell.why not in notes:
            notes.append(cell.why)
        text += f" [{notes.index(cell.why) + 1}]"
    if cell.anchor:
        text = f'<a id="{html.escape(cell.anchor)}"></a>{text}'
    return text


def md_column_groups(table: Table) -> list[list[int]]:
    """Column indexes of each part of a split table: the key columns, then a slice."""
    width = len(table.headers)
    if width <= MD_MAX_COLUMNS:
        return [list(range(width))]
    keys = list(range(table.keys))
    step = MD_MAX_COLUMNS - table.keys
    return [keys + list(range(i, min(i + step, width))) for i in range(table.keys, width, step)]


def merge_strip(table: Table) -> Table:
    """The strip's columns as one column of marks (``●●◐··``), for Markdown."""
    if table.strip is None:
        return table
    first, count = table.strip
    end = first + count
    header = f"{table.headers[first]} → {table.headers[end - 1]}"
    rows = [
        [*row[:first], Cell("".join(c.text for c in row[first:end])), *row[end:]]
        for row in table.rows
    ]
    return Table(
        [*table.headers[:first], header, *table.headers[end:]], rows, table.caption, table.keys
    )


def md_table(table: Table) -> list[str]:
    if not table.rows:
        return ["(none)", ""]
    table = merge_strip(table)
    lines, notes = [], []
    for columns in md_column_groups(table):
        lines.append("| " + " | ".join(md_text(table.headers[i]) for i in columns) + " |")
        lines.append("|" + " --- |" * len(columns))
        for row in table.rows:
            lines.append("| " + " | ".join(md_cell(row[i], notes) for i in columns) + " |")
        lines.append("")
    lines += [f"{n}. {md_text(note)}" for n, note in enumerate(notes, 1)]
    return [*lines, ""] if notes else lines


def md_parts(tables: list[Table], code: list[tuple[str, str]]) -> list[str]:
    lines = []
    for table in tables:
        if table.caption:
            lines += [f"**{md_text(table.caption)}**", ""]
        lines += md_table(table)
    for caption, text in code:
        fence = "`" * max(3, 1 + max((len(run) for run in re.findall(r"`+", text)), default=0))
        lines += [f"**{md_text(caption)}**", "", f"{fence}diff", text.rstrip(), fence, ""]
    return lines


def md_fold(fold: Fold) -> list[str]:
    anchor = f' id="{html.escape(fold.anchor)}"' if fold.anchor else ""
    lines = [f"<details{anchor}><summary>{html.escape(fold.summary)}</summary>", ""]
    if fold.intro:
        lines += [
            f"`{fold.intro}`" if fold.intro.startswith("python ") else md_text(fold.intro),
            "",
        ]
    return lines + md_parts(fold.tables, fold.code) + ["</details>", ""]


def md_chart(chart: Chart) -> list[str]:
    return [f"*{md_text(chart.caption)} (chart in the HTML page)*", ""]


def md_answers(items: list[Answer]) -> list[str]:
    lines = ["**Answers**", ""]
    for a in items:
        line = f"- {md_text(a.question)} → [{md_text(a.link_text)}](#{html.escape(a.link)})"
        if a.command:
            line += f" · `{a.command}`"
        lines.append(line)
    return [*lines, ""]


def markdown(title: str, releases: list[str], sections: list[Section], items: list[Answer]) -> str:
    lines = [f"# {md_text(title)}", "", f"Releases: {md_text(', '.join(releases))}.", ""]
    lines += md_answers(items)
    lines += ["Contents: " + " · ".join(f"[{md_text(s.title)}](#{s.anchor})" for s in sections), ""]
    for section in sections:
        lines += [f'<a id="{html.escape(section.anchor)}"></a>', f"## {md_text(section.title)}"]
        lines += ["", md_prose(section.intro), ""]
        for chart in section.charts:
            lines += md_chart(chart)
        lines += md_parts(section.tables, section.code)
        for fold in section.folds:
            lines += md_fold(fold)
        if not (section.tables or section.code or section.folds):
            lines += ["(none)", ""]
    return "\n".join(lines) + "\n"


# -- HTML

STYLE = """
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,sans-serif;margin:0 auto;padding:0 1.2em 3em;max-width:1380px;color:#222}
header.top{position:sticky;top:0;z-index:2;background:#fff;border-bottom:1px solid #ddd;padding:.4em 0}
header.top{display:flex;flex-wrap:wrap;align-items:center;gap:.3em 1em}
header.top nav{display:flex;flex-wrap:wrap;gap:.2em .9em}
[id]{scroll-margin-top:8em}
table{border-collapse:collapse;margin:.6em 0;max-width:100%}
td,th{border:1px solid #ccc;padding:2px 5px;vertical-align:top;overflow-wrap:anywhere}
th{background:#f3f3f3}
td.m{text-align:center;padding:2px 3px}
.good{background:#e3f5e1}.warn{background:#fff4d6}.bad{background:#fde2e1}.info{background:#eef2f7}
pre{background:#f7f7f7;padding:.6em;overflow:auto;max-width:100%}
.legend span{padding:2px 8px;margin-right:6px;border:1px solid #ccc;display:inline-block}
.answers{border:1px solid #cdd;background:#f8fbfb;padding:.4em 1em;margin:.8em 0}
.answers li{margin:.2em 0}
code{background:#f3f3f3;padding:0 3px}
details{margin:.4em 0;border:1px solid #ddd;padding:.2em .6em}
summary{cursor:pointer;font-weight:600}
ol.notes{font-size:12px;color:#444}
svg text{font:11px system-ui,sans-serif}
#filter{width:22em;padding:2px 6px}
"""

#: Filters the rows of searchable tables; without JS the box is never shown.
SCRIPT = """
(function(){var box=document.createElement('input');box.id='filter';box.type='search';
box.placeholder='filter names, e.g. pl.load';document.getElementById('filter-slot').appendChild(box);
box.addEventListener('input',function(){var q=box.value.toLowerCase();
document.querySelectorAll('table.searchable tr.row').forEach(function(r){
r.style.display=!q||r.textContent.toLowerCase().indexOf(q)>=0?'':'none';});
document.querySelectorAll('details.searchable').forEach(function(d){if(q)d.open=true;});});})();
"""


def html_prose(text: str) -> str:
    """Authored text with its `code` spans as <code>."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", html.escape(text))


def html_cell(cell: Cell) -> str:
    text = html.escape(cell.text)
    if cell.link:
        text = f'<a href="{html.escape(cell.link)}">{text}</a>'
    classes = [cell.tone] if cell.tone else []
    if len(cell.text) == 1:  # a presence mark
        classes.append("m")
    attrs = f' class="{" ".join(classes)}"' if classes else ""
    if cell.anchor:
        attrs += f' id="{html.escape(cell.anchor)}"'
    if cell.why:
        attrs += f' title="{html.escape(cell.why)}"'
    return f"<td{attrs}>{text}</td>"


def html_table(table: Table) -> list[str]:
    out = [f"<h3>{html.escape(table.caption)}</h3>"] if table.caption else []
    if not table.rows:
        return [*out, "<p>(none)</p>"]
    cls = ' class="searchable"' if table.searchable else ""
    out.append(
        f"<table{cls}><tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in table.headers) + "</tr>"
    )
    out += ['<tr class="row">' + "".join(html_cell(c) for c in row) + "</tr>" for row in table.rows]
    out.append("</table>")
    notes = sorted({c.why for row in table.rows for c in row if c.why and c.tone == "info"})
    if notes and len(notes) <= 12:  # unavailable cells: why, also without hovering
        out.append(
            '<ol class="notes">' + "".join(f"<li>{html.escape(n)}</li>" for n in notes) + "</ol>"
        )
    return out


def html_parts(tables: list[Table], code: list[tuple[str, str]]) -> list[str]:
    out = []
    for table in tables:
        out += html_table(table)
    for caption, text in code:
        out.append(f"<p><b>{html.escape(caption)}</b></p><pre>{html.escape(text)}</pre>")
    return out


def html_fold(fold: Fold) -> list[str]:
    classes = " searchable" if any(t.searchable for t in fold.tables) else ""
    anchor = f' id="{html.escape(fold.anchor)}"' if fold.anchor else ""
    out = [f'<details class="fold{classes}"{anchor}{" open" if fold.open else ""}>']
    out.append(f"<summary>{html.escape(fold.summary)}</summary>")
    if fold.intro:
        out.append(f"<p><code>{html.escape(fold.intro)}</code></p>")
    return out + html_parts(fold.tables, fold.code) + ["</details>"]


SVG_FILL = {"good": "#7cc47a", "warn": "#f0b940", "info": "#e4e8ee", "": "#e4e8ee"}


def svg_chart(chart: Chart) -> str:
    """Rows of names, one coloured block per release; each name links to its row."""
    label_w, cell_w, row_h, head_h = 250, 86, 15, 22
    width = label_w + cell_w * len(chart.releases)
    height = head_h + row_h * len(chart.bars)
    out = [
        f'<svg viewBox="0 0 {width} {height}" '
        f'width="100%" style="max-width:{width}px" role="img" aria-label="{html.escape(chart.caption)}">'
    ]
    for i, release in enumerate(chart.releases):
        x = label_w + i * cell_w + cell_w / 2
        out.append(f'<text x="{x}" y="14" text-anchor="middle">{html.escape(release)}</text>')
    for j, bar in enumerate(chart.bars):
        y = head_h + j * row_h
        label = f'<text x="{label_w - 6}" y="{y + 11}" text-anchor="end">{html.escape(bar.label)}</text>'
        out.append(f'<a href="{html.escape(bar.link)}">{label}</a>' if bar.link else label)
        for i, tone in enumerate(bar.states):
            x = label_w + i * cell_w
            out.append(
                f'<rect x="{x + 1}" y="{y + 2}" width="{cell_w - 2}" height="{row_h - 3}" '
                f'fill="{SVG_FILL.get(tone, SVG_FILL[""])}"><title>{html.escape(bar.label)} '
                f"{html.escape(chart.releases[i])}</title></rect>"
            )
    out.append("</svg>")
    return "".join(out)


def page(title: str, releases: list[str], sections: list[Section], items: list[Answer]) -> str:
    out = [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{html.escape(title)}</title><style>{STYLE}</style></head><body>",
        '<header class="top"><nav>'
        + "".join(
            f'<a href="#{s.anchor}">{html.escape(s.title.split(":")[0])}</a>' for s in sections
        )
        + '</nav><span id="filter-slot"></span></header>',
        f"<h1>{html.escape(title)}</h1>",
        f"<p>Releases: {html.escape(', '.join(releases))}.</p>",
        '<div class="answers"><b>Answers</b><ul>'
        + "".join(
            f'<li>{html.escape(a.question)} → <a href="#{html.escape(a.link)}">'
            f"{html.escape(a.link_text)}</a>"
            + (f" · <code>{html.escape(a.command)}</code>" if a.command else "")
            + "</li>"
            for a in items
        )
        + "</ul></div>",
        '<p class="legend">'
        + "".join(f'<span class="{t}">{html.escape(m)}</span>' for t, m in LEGEND.items())
        + "</p>",
    ]
    for section in sections:
        out.append(f'<h2 id="{html.escape(section.anchor)}">{html.escape(section.title)}</h2>')
        out.append(f"<p>{html_prose(section.intro)}</p>")
        for chart in section.charts:
            out.append(
                f"<figure>{svg_chart(chart)}<figcaption>{html.escape(chart.caption)}</figcaption></figure>"
            )
        out += html_parts(section.tables, section.code)
        for fold in section.folds:
            out += html_fold(fold)
        if not (section.tables or section.code or section.folds):
            out.append("<p>(none)</p>")
    out.append(f"<script>{SCRIPT}</script></body></html>")
    return "\n".join(out) + "\n"
