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


def md_cell(cell: Cell, notes: list[str], anchor: bool = True) -> str:
    text = md_text(cell.text)
    if cell.link:
        text = f"[{text}]({html.escape(cell.link)})"
    if cell.why and len(cell.text) > 1:  # a presence mark's why is a tooltip in HTML only
        if cell.why not in notes:
            notes.append(cell.why)
        text += f" [{notes.index(cell.why) + 1}]"
    if cell.anchor and anchor:  # a split table repeats its key column: one id, the first
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


def strip_runs(releases: list[str], cells: list[Cell]) -> str:
    """A presence strip in words for Markdown, each run of one mark labelled with its
    releases: ``· 0.4.30-0.4.31 ● 0.4.33-0.6.1 ◐ 0.6.2-0.7.1 · 0.7.2-0.12.0.1``."""
    runs: list[list[str]] = []
    for release, cell in zip(releases, cells, strict=True):
        if runs and runs[-1][0] == cell.text:
            runs[-1][2] = release
        else:
            runs.append([cell.text, release, release])
    return " ".join(f"{m} {a}" if a == b else f"{m} {a}-{b}" for m, a, b in runs)


def merge_strip(table: Table) -> Table:
    """The strip's columns as one column of labelled runs of marks, for Markdown."""
    if table.strip is None:
        return table
    first, count = table.strip
    end = first + count
    releases = table.headers[first:end]
    header = f"{releases[0]} → {releases[-1]}"
    rows = [
        [*row[:first], Cell(strip_runs(releases, row[first:end])), *row[end:]] for row in table.rows
    ]
    return Table(
        [*table.headers[:first], header, *table.headers[end:]], rows, table.caption, table.keys
    )


def md_table(table: Table) -> list[str]:
    if not table.rows:
        return ["(none)", ""]
    table = merge_strip(table)
    lines, notes = [], []
    for part, columns in enumerate(md_column_groups(table)):
        lines.append("| " + " | ".join(md_text(table.headers[i]) for i in columns) + " |")
        lines.append("|" + " --- |" * len(columns))
        for row in table.rows:
            cells = (md_cell(row[i], notes, anchor=part == 0) for i in columns)
            lines.append("| " + " | ".join(cells) + " |")
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
            if not fold.html_only:
                lines += md_fold(fold)
        if any(fold.html_only for fold in section.folds) and section.md_elsewhere:
            lines += [md_prose(section.md_elsewhere), ""]
        if not (section.tables or section.code or section.folds):
            lines += ["(none)", ""]
    return "\n".join(lines) + "\n"


# -- HTML

STYLE = """
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,sans-serif;margin:0 auto;padding:0 1.2em 3em;max-width:1380px;color:#222}
header.top{position:sticky;top:0;z-index:3;background:#fff;border-bottom:1px solid #ddd;padding:.4em 0}
header.top{display:flex;flex-wrap:wrap;align-items:center;gap:.3em 1em}
header.top nav{display:flex;flex-wrap:wrap;gap:.2em .9em}
[id]{scroll-margin-top:calc(var(--top,3em) + 72px)}
table{border-collapse:collapse;margin:.6em 0;max-width:100%}
td,th{border:1px solid #ccc;padding:2px 5px;vertical-align:top;overflow-wrap:anywhere}
th{background:#f3f3f3;white-space:nowrap;position:sticky;top:var(--top,3em);z-index:1}
th.r{writing-mode:vertical-rl;transform:rotate(180deg);padding:4px 1px;font-weight:500;font-size:12px}
td.m{text-align:center;padding:0 1px;min-width:1.1em;font-size:11px}
table.strip{font-size:12.5px;line-height:1.3}
table.strip td:first-child{min-width:11em}
.good{background:#e3f5e1}.warn{background:#fff4d6}.bad{background:#fde2e1}.info{background:#eef2f7}
td.m.bad{color:#b3261e}
pre{background:#f7f7f7;padding:.6em;overflow:auto;max-width:100%}
.legend span{padding:2px 8px;margin-right:6px;border:1px solid #ccc;display:inline-block}
.answers{border:1px solid #cdd;background:#f8fbfb;padding:.4em 1em;margin:.8em 0}
.answers li{margin:.2em 0}
code{background:#f3f3f3;padding:0 3px}
details{margin:.4em 0;border:1px solid #ddd;padding:.2em .6em}
summary{cursor:pointer;font-weight:600}
ol.notes{font-size:12px;color:#444}
.chart{overflow-x:auto;max-width:100%}
svg text{font:11px system-ui,sans-serif}
#filter{width:22em;max-width:100%;padding:2px 6px}
#filter-count{margin-left:.5em;color:#555}
@media (max-width:700px){
body{padding:0 .5em 2em;font-size:13px}
header.top nav{flex-wrap:nowrap;overflow-x:auto;white-space:nowrap;max-width:100%}
#filter{width:100%}
.wide{overflow-x:auto;max-width:100%}
.wide table{max-width:none}
td,th{overflow-wrap:normal}
td:not(.m){min-width:7em}
th{position:static}
}
"""

#: The filter box: every table's rows and the chart's bars; how many rows match; the first
#: match scrolled to; folds opened while it filters and put back as they were when cleared.
#: Without JS the box is never shown. ``--top`` keeps sticky table headers under the bar.
SCRIPT = """
(function(){var top=document.querySelector('header.top');
var box=document.createElement('input');box.id='filter';box.type='search';
box.placeholder='filter rows, e.g. pl.load';box.setAttribute('aria-label','filter rows');
var count=document.createElement('span');count.id='filter-count';count.setAttribute('aria-live','polite');
var slot=document.getElementById('filter-slot');slot.appendChild(box);slot.appendChild(count);
function place(){document.documentElement.style.setProperty('--top',top.offsetHeight+'px');}
place();window.addEventListener('resize',place);
function reveal(){var t=location.hash&&document.getElementById(decodeURIComponent(location.hash.slice(1)));
if(!t)return;for(var d=t;d;d=d.parentElement){if(d.tagName==='DETAILS')d.open=true;}
t.scrollIntoView();}
reveal();window.addEventListener('hashchange',reveal);
var rows=[].slice.call(document.querySelectorAll('tr.row'));
var bars=[].slice.call(document.querySelectorAll('svg g.bar'));
var folds=[].slice.call(document.querySelectorAll('details'));
var saved=null,timer=null;
function apply(){var q=box.value.trim().toLowerCase(),n=0,first=null;
if(q&&saved===null){saved=folds.map(function(d){return d.open;});}
rows.forEach(function(r){var hit=!q||r.textContent.toLowerCase().indexOf(q)>=0;
r.style.display=hit?'':'none';if(q&&hit){n++;if(!first)first=r;}});
bars.forEach(function(b){var hit=!q||b.getAttribute('data-name').toLowerCase().indexOf(q)>=0;
b.style.display=hit?'':'none';});
if(q){folds.forEach(function(d){d.open=[].some.call(d.querySelectorAll('tr.row'),
function(r){return r.style.display!=='none';});});}
else if(saved!==null){folds.forEach(function(d,i){d.open=saved[i];});saved=null;}
count.textContent=q?(n+(n===1?' row matches':' rows match')):'';
if(first){var d=first.closest('details');if(d)d.open=true;first.scrollIntoView({block:'center'});}}
box.addEventListener('input',function(){clearTimeout(timer);timer=setTimeout(apply,150);});})();
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
    names = [n for n, on in (("searchable", table.searchable), ("strip", table.strip)) if on]
    cls = f' class="{" ".join(names)}"' if names else ""
    first, count = table.strip or (0, 0)
    heads = [
        f'<th class="r">{html.escape(h)}</th>'
        if first <= i < first + count
        else f"<th>{html.escape(h)}</th>"
        for i, h in enumerate(table.headers)
    ]
    out.append(f'<div class="wide"><table{cls}><thead><tr>' + "".join(heads) + "</tr></thead>")
    out += ['<tr class="row">' + "".join(html_cell(c) for c in row) + "</tr>" for row in table.rows]
    out.append("</table></div>")
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
    out += html_parts(fold.tables, fold.code)
    for inner in fold.folds:
        out += html_fold(inner)
    return [*out, "</details>"]


SVG_FILL = {
    "good": "#7cc47a",
    "warn": "#f0b940",
    "bad": "#e8847c",
    "info": "#e4e8ee",
    "": "#e4e8ee",
}


def svg_chart(chart: Chart) -> str:
    """Rows of names, one coloured block per release (release labels upright above); each
    name links to its row. Drawn at its own pixel size, never shrunk: it scrolls instead."""
    longest = max((len(bar.label) for bar in chart.bars), default=0)
    label_w, cell_w, row_h, head_h = 12 + 7 * longest, 18, 13, 62  # 11 px text: ~6.5 px a letter
    width = label_w + cell_w * len(chart.releases)
    height = head_h + row_h * len(chart.bars)
    out = [
        f'<svg viewBox="0 0 {width} {height}" width="{width}" height="{height}" role="img" '
        f'aria-label="{html.escape(chart.caption)}">'
    ]
    for i, release in enumerate(chart.releases):
        x = label_w + i * cell_w + cell_w / 2 + 4
        out.append(
            f'<text transform="translate({x} {head_h - 4}) rotate(-90)">'
            f"{html.escape(release)}</text>"
        )
    for j, bar in enumerate(chart.bars):
        y = head_h + j * row_h
        out.append(f'<g class="bar" data-name="{html.escape(bar.label)}">')
        label = f'<text x="{label_w - 6}" y="{y + 10}" text-anchor="end">{html.escape(bar.label)}</text>'
        out.append(f'<a href="{html.escape(bar.link)}">{label}</a>' if bar.link else label)
        for i, tone in enumerate(bar.states):
            x = label_w + i * cell_w
            out.append(
                f'<rect x="{x + 1}" y="{y + 2}" width="{cell_w - 2}" height="{row_h - 3}" '
                f'fill="{SVG_FILL.get(tone, SVG_FILL[""])}"><title>{html.escape(bar.label)} '
                f"{html.escape(chart.releases[i])}</title></rect>"
            )
        out.append("</g>")
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
                f'<figure><div class="chart">{svg_chart(chart)}</div>'
                f"<figcaption>{html.escape(chart.caption)}</figcaption></figure>"
            )
        out += html_parts(section.tables, section.code)
        for fold in section.folds:
            out += html_fold(fold)
        if not (section.tables or section.code or section.folds):
            out.append("<p>(none)</p>")
    out.append(f"<script>{SCRIPT}</script></body></html>")
    return "\n".join(out) + "\n"
