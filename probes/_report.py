"""The API-diff report: one model, rendered as Markdown and as a self-contained HTML page."""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from typing import Any

from packaging.version import Version

from probes import _changes
from probes._load import Snapshot

PL, TPU = "jax.experimental.pallas", "jax.experimental.pallas.tpu"

#: Cell classes and what their colour means (the legend).
LEGEND = {
    "good": "works / present / pass",
    "warn": "deprecated, legacy or private spelling",
    "bad": "missing, removed, raised or failed",
    "info": "not applicable or unavailable on this release",
}


@dataclass(frozen=True)
class Cell:
    text: str
    tone: str = ""
    anchor: str = ""
    link: str = ""


@dataclass
class Table:
    headers: list[str]
    rows: list[list[Cell]]
    caption: str = ""


@dataclass
class Section:
    title: str
    anchor: str
    intro: str = ""
    tables: list[Table] = field(default_factory=list)
    code: list[tuple[str, str]] = field(default_factory=list)  # (caption, preformatted text)


def tone_of(status: str) -> str:
    if status in ("current", "present", "pass", "returned", "caught", "yes"):
        return "good"
    if status in ("deprecated", "legacy", "private", "missed"):
        return "warn"
    if status in ("unavailable", "n/a", "skipped"):
        return "info"
    return "bad"


def feature_cell(snap: Snapshot, key: str) -> Cell:
    record = snap.data["features"].get(key, {})
    status = record.get("status", "unavailable")
    return Cell(f"{record.get('resolves_to') or '—'} ({status})", tone_of(status))


def outcome_cell(snap: Snapshot, key: str, label: str) -> Cell:
    record = snap.data["behaviours"].get(key, {})
    ok = record.get("outcome") == "returned"
    return Cell(label if ok else f"no {label}", "good" if ok else "bad")


def probed(snap: Snapshot) -> str:
    """When the snapshot was taken, to the minute (``volatile.created``, UTC)."""
    created = str(snap.data.get("volatile", {}).get("created", ""))
    return created[:16].replace("T", " ") + " UTC" if created else "?"


def summary(snapshots: list[Snapshot]) -> Section:
    rows = []
    for snap in snapshots:
        block_spec = snap.data["modules"].get(PL, {}).get("names", {}).get("BlockSpec", {})
        params = block_spec.get("fields") or block_spec.get("signature") or [{}]
        first = params[0].get("name", "?")
        rules = snap.data.get("autodiff", {}).get("rules", {})
        failed = [m for m, r in snap.data["modules"].items() if r.get("imports") is False]
        interpret = [
            label
            for key, label in (
                ("interpret_true", "True"),
                ("interpret_tpu_params", "pltpu.InterpretParams"),
                ("interpret_gpu_params", "plgpu.InterpretGPUParams"),
            )
            if snap.data["behaviours"].get(key, {}).get("outcome") == "returned"
        ]
        rows.append(
            [
                Cell(snap.release, anchor=f"release-{snap.release}"),
                feature_cell(snap, "load"),
                feature_cell(snap, "tpu_compiler_params"),
                feature_cell(snap, "tpu_simulator"),
                Cell(f"BlockSpec({first}, ...)", "good" if first == "block_shape" else "warn"),
                Cell(", ".join(interpret) or "—", "good"),
                Cell(
                    ", ".join(
                        k for k in ("has_jvp", "has_partial_eval", "has_transpose") if rules.get(k)
                    ).replace("has_", "")
                    or "none",
                    "info",
                ),
                Cell(str(len(failed)), "good" if not failed else "warn"),
                Cell(probed(snap)),
            ]
        )
    headers = [
        "JAX",
        "masked load",
        "TPU compiler params",
        "TPU simulator",
        "BlockSpec order",
        "interpret= accepts",
        "pallas_call AD rules",
        "modules not importing",
        "probed",
    ]
    return Section(
        "Summary",
        "summary",
        "Where the headline features live in each release, as the probes found them, and when "
        "(a release whose session was skipped keeps its older snapshot).",
        [Table(headers, rows)],
    )


TONES = {"added": "good", "re-added": "good", "deprecated": "warn", "added, deprecated": "warn"}


def name_timeline(snapshots: list[Snapshot]) -> Section:
    rows = []
    anchored: set[str] = set()
    for event in _changes.timeline(snapshots):
        instead, does = _changes.compat_note(event.module, event.name)
        anchor = "" if event.anchor in anchored else event.anchor
        anchored.add(event.anchor)
        rows.append(
            [
                Cell(event.spelling, anchor=anchor),
                Cell(event.release, link=f"#release-{event.release}"),
                Cell(event.change, TONES.get(event.change, "bad")),
                Cell(event.message or ""),
                Cell(instead),
                Cell(does),
            ]
        )
    return Section(
        "Timeline of public names",
        "timeline",
        "Every public Pallas name that was added, deprecated, removed or re-added between the "
        "releases in this report, with JAX's own message and what to write instead.",
        [Table(["name", "JAX", "change", "JAX's message", "write instead", "pallas_compat"], rows)],
    )


def shapes(snapshots: list[Snapshot]) -> Section:
    rows = [
        [
            Cell(_changes.Location(c.module, c.name).spelling),
            Cell(f"{c.before} → {c.after}"),
            Cell(c.what),
            Cell(_changes.describe_params(c.old)),
            Cell(_changes.describe_params(c.new)),
        ]
        for c in _changes.shape_changes(snapshots)
    ]
    return Section(
        "Signatures and dataclass fields",
        "signatures",
        "Parameters and fields (with defaults) that changed between adjacent releases.",
        [Table(["name", "releases", "what", "before", "after"], rows)],
    )


def behaviours(snapshots: list[Snapshot]) -> Section:
    changes = _changes.behaviour_changes(snapshots)
    section = Section(
        "Behaviours and error messages",
        "behaviours",
        "What the same code did on each release (the chapter's behaviours), as text diffs.",
    )
    section.code = [(f"{c.key}: JAX {c.before} → {c.after}", c.diff) for c in changes]
    return section


def semantics(snapshots: list[Snapshot]) -> Section:
    """Behaviours whose probe states its finding in words (``summary``): runs of releases
    with the same finding, so that a change of meaning reads as one row per era."""
    rows = []
    for key, runs in _changes.summary_runs(snapshots):
        for i, (first, last, summary) in enumerate(runs):
            span = first if first == last else f"{first} to {last}"
            tone = "info" if summary.startswith("n/a") else ("warn" if len(runs) > 1 else "")
            rows.append(
                [Cell(key.partition(".")[2] if i == 0 else ""), Cell(span), Cell(summary, tone)]
            )
    return Section(
        "Changes of meaning",
        "semantics",
        "The same code compiles to a different program. No spelling fixes these: pallas-compat "
        "and migrate leave them alone, so read each era that your releases span.",
        [Table(["behaviour", "releases", "what the same code does"], rows)],
    )


def imports(snapshots: list[Snapshot], undeclared: dict[str, list[str]]) -> Section:
    rows = [
        [Cell(release), Cell(module), Cell(error, "bad")]
        for release, module, error in _changes.import_failures(snapshots)
    ]
    rows += [
        [Cell(release), Cell("(undeclared dependency)"), Cell(", ".join(names), "warn")]
        for release, names in undeclared.items()
    ]
    rows.sort(key=lambda row: Version(row[0].text))  # stable: per release, in the order above
    return Section(
        "Import failures and undeclared dependencies",
        "imports",
        "Pallas modules that did not import in a clean environment, and what JAX imported "
        "without declaring it.",
        [Table(["JAX", "module", "error"], rows)],
    )


def kernels(kernel_results: dict[str, dict[str, Any]]) -> Section:
    """One table per mode (kernel x release): ten release columns read; thirty did not."""
    releases = sorted(kernel_results, key=Version)
    modes: list[str] = []
    by_kernel: dict[str, dict[tuple[str, str], dict[str, Any]]] = {}
    for release in releases:
        for record in kernel_results[release]["results"]:
            if record["mode"] not in modes:
                modes.append(record["mode"])
            by_kernel.setdefault(record["kernel"], {})[(release, record["mode"])] = record
    tables = []
    for mode in modes:
        rows = []
        for kernel, cells in by_kernel.items():
            row = [Cell(kernel)]
            for release in releases:
                record = cells.get((release, mode))
                if record is None:
                    row.append(Cell("—", "info"))
                    continue
                text = record["status"]
                if isinstance(record.get("max_abs_err"), float):
                    text += f" {record['max_abs_err']:.1e}"
                row.append(Cell(text, tone_of(record["status"])))
            rows.append(row)
        tables.append(Table(["kernel", *releases], rows, caption=f"mode: {mode}"))
    return Section(
        "Kernels x mode x release",
        "kernels",
        "The chapter's kernels (python -m kernels), one table per mode: status and max abs error "
        "against NumPy float64. Interpreter timings are not kernel speed and are not shown.",
        tables,
    )


def skipped(missing: dict[str, str]) -> Section:
    rows = [[Cell(release), Cell(reason, "info")] for release, reason in sorted(missing.items())]
    return Section(
        "Skipped releases",
        "skipped",
        "Releases of the matrix without a snapshot in this report, and why.",
        [Table(["JAX", "why"], rows)],
    )


def build(
    snapshots: list[Snapshot],
    kernel_results: dict[str, dict[str, Any]],
    skipped_releases: dict[str, str],
    undeclared: dict[str, list[str]],
) -> list[Section]:
    return [
        summary(snapshots),
        name_timeline(snapshots),
        shapes(snapshots),
        semantics(snapshots),
        behaviours(snapshots),
        imports(snapshots, undeclared),
        kernels(kernel_results),
        skipped(skipped_releases),
    ]


# -- rendering


def md_cell(cell: Cell) -> str:
    text = cell.text.replace("|", "\\|").replace("\n", " ")
    if cell.anchor:
        text = f'<a id="{cell.anchor}"></a>{text}'
    return text


def markdown(title: str, releases: list[str], sections: list[Section]) -> str:
    lines = [f"# {title}", "", f"Releases: {', '.join(releases)}.", ""]
    lines += ["Sections: " + " · ".join(f"[{s.title}](#{s.anchor})" for s in sections), ""]
    for section in sections:
        lines += [f'<a id="{section.anchor}"></a>', f"## {section.title}", "", section.intro, ""]
        for table in section.tables:
            if table.caption:
                lines += [f"**{table.caption}**", ""]
            if not table.rows:
                lines += ["(none)", ""]
                continue
            lines.append("| " + " | ".join(table.headers) + " |")
            lines.append("|" + " --- |" * len(table.headers))
            lines += ["| " + " | ".join(md_cell(c) for c in row) + " |" for row in table.rows]
            lines.append("")
        for caption, text in section.code:
            lines += [f"**{caption}**", "", "```diff", text.rstrip(), "```", ""]
        if not section.tables and not section.code:
            lines += ["(none)", ""]
    return "\n".join(lines) + "\n"


STYLE = """
body{font:14px/1.45 system-ui,sans-serif;margin:2em;max-width:100em;color:#222}
table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:3px 6px;vertical-align:top}
th{background:#f3f3f3;position:sticky;top:0}.good{background:#e3f5e1}.warn{background:#fff4d6}
.bad{background:#fde2e1}.info{background:#eef2f7}pre{background:#f7f7f7;padding:.6em;overflow:auto}
.legend span{padding:2px 8px;margin-right:6px;border:1px solid #ccc}
"""


def html_cell(cell: Cell, tag: str = "td") -> str:
    text = html.escape(cell.text)
    if cell.link:
        text = f'<a href="{html.escape(cell.link)}">{text}</a>'
    attrs = f' class="{cell.tone}"' if cell.tone else ""
    if cell.anchor:
        attrs += f' id="{html.escape(cell.anchor)}"'
    return f"<{tag}{attrs}>{text}</{tag}>"


def page(title: str, releases: list[str], sections: list[Section]) -> str:
    out = [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{html.escape(title)}</title><style>{STYLE}</style></head><body>",
        f"<h1>{html.escape(title)}</h1>",
        f"<p>Releases: {html.escape(', '.join(releases))}.</p>",
        '<p class="legend">'
        + "".join(
            f'<span class="{tone}">{html.escape(meaning)}</span>'
            for tone, meaning in LEGEND.items()
        )
        + "</p>",
        "<nav>"
        + " · ".join(f'<a href="#{s.anchor}">{html.escape(s.title)}</a>' for s in sections)
        + "</nav>",
    ]
    for section in sections:
        out.append(f'<h2 id="{section.anchor}">{html.escape(section.title)}</h2>')
        out.append(f"<p>{html.escape(section.intro)}</p>")
        for table in section.tables:
            if table.caption:
                out.append(f"<h3>{html.escape(table.caption)}</h3>")
            if not table.rows:
                out.append("<p>(none)</p>")
                continue
            out.append(
                "<table><tr>"
                + "".join(f"<th>{html.escape(h)}</th>" for h in table.headers)
                + "</tr>"
            )
            out += ["<tr>" + "".join(html_cell(c) for c in row) + "</tr>" for row in table.rows]
            out.append("</table>")
        for caption, text in section.code:
            out.append(f"<p><b>{html.escape(caption)}</b></p><pre>{html.escape(text)}</pre>")
        if not section.tables and not section.code:
            out.append("<p>(none)</p>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"
